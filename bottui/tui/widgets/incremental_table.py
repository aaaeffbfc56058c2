"""An entry table for thousands of rows: built a screenful first, then updated in place.

The Projects and Rate limiters tables are shown again and again, mostly with
the same rows, and may hold thousands of them (issue #12: 5,000 projects,
4,000 limiters of one project). A DataTable row costs about a quarter of a
millisecond to add and measure, so this table

* builds only what the screen can show before the first frame, and the
  rest after it in chunks of ~25 ms with pauses between them, so keys are
  answered throughout (a cursor that waits for its row, hidden meanwhile,
  is taken there a bigger chunk per frame);
* when the same keys come back in the same order, updates in place only the
  rows whose *view* (what their cells are made from) changed;
* fixes each column's width once per update: ``update_cell(...,
  update_width=True)`` re-measures the whole column whenever the new cell is
  narrower than the column, so asking it for every changed cell was
  quadratic (8 minutes for 5,000 projects).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import ClassVar, Generic, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual.widgets.data_table import ColumnKey

from bottui.tui.widgets.entry_table import E, EntryTable

#: What a row's cells are made from (compared to know whether they changed).
V = TypeVar("V", bound=Hashable)


def cell_width(cell: Text) -> int:
    """The width DataTable gives ``cell`` (its widest line), without a console."""
    return max((cell_len(line) for line in cell.plain.splitlines()), default=0)


def same_cell(a: Text, b: Text) -> bool:
    """Whether two cells look alike (``Text.__eq__`` ignores the base style)."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans


class IncrementalTable(EntryTable[E], Generic[E, V]):
    """An :class:`EntryTable` shown through :meth:`_update_rows`.

    Subclasses give each row a key and its entry, a function making the row's
    hashable *view* from the entry (what its cells show), and one making the
    cells from the view. Views are made for the rows built only.
    """

    #: Rows added at a time after the first screenful (~0.25 ms each, measuring included).
    CHUNK_ROWS: ClassVar[int] = 100
    #: Seconds left free between two chunks, for keys and frames.
    CHUNK_PAUSE: ClassVar[float] = 0.03
    #: Rows added per frame while the cursor waits for its row (hidden: no key to answer).
    SEEK_ROWS: ClassVar[int] = 400

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Row key -> (view, cells) of every row built, None for a row still to
        # build; in table order.
        self._views: dict[str, tuple[V, Sequence[Text]] | None] = {}
        self._order: list[str] = []
        self._built = 0
        self._make_view: Callable[[E], V] | None = None
        self._make_cells: Callable[[V], Sequence[Text]] | None = None
        # Bumped by every rebuild: a chunk scheduled for an older one stops.
        self._generation = 0
        # Where the cursor goes once that row is built (None: nowhere to go).
        self._pending_select: str | None = None

    @property
    def building(self) -> bool:
        """Whether rows are still to be added (they follow in chunks)."""
        return self._built < len(self._order)

    def _update_rows(
        self,
        rows: Iterable[tuple[str, E]],
        view: Callable[[E], V],
        cells: Callable[[V], Sequence[Text]],
        *,
        select: str | None = None,
    ) -> None:
        """Show ``rows`` (key, entry); a row's cells are ``cells(view(entry))``.

        The same keys in the same order as shown: the built rows whose view
        changed are updated in place; the cursor stays, or goes to ``select``.
        Otherwise every row is replaced, the cursor kept on ``select`` or else
        on the same key.
        """
        shown = list(rows)
        self._make_view, self._make_cells = view, cells
        same_keys = len(shown) == len(self._order) and all(
            key == old for (key, _entry), old in zip(shown, self._order, strict=True)
        )
        if not same_keys:
            self._rebuild(shown, select or self._pending_select or self._cursor_key())
            return
        self._entries = dict(shown)
        self._update_in_place(view, cells)
        if select is not None and select != self._cursor_key():
            self._select(select)

    def _rebuild(self, shown: list[tuple[str, E]], keep: str | None) -> None:
        self.clear()
        self._generation += 1
        self._entries = dict(shown)
        self._views = dict.fromkeys(self._entries)
        self._order = list(self._entries)
        self._built = 0
        self._pending_select = keep if keep is not None and keep in self._entries else None
        self.show_cursor = True
        # A screenful before the first frame (the terminal's height when the
        # table has not been laid out yet); the rest after it.
        self._build(self._generation, (self.size.height or self.app.size.height) + 2)
        if self._pending_select is not None:
            self._select(self._pending_select)

    def _select(self, key: str) -> None:
        """Put the cursor on ``key`` now if its row is built, else once it is.

        Meanwhile the cursor is hidden and nothing is selected: Enter or an
        action must not take the first row for the one the cursor is going to.
        """
        if key in self.rows:
            self._pending_select = None
            self.show_cursor = True
            self.move_cursor(row=self.get_row_index(key), animate=False)
        elif key in self._views:
            self._pending_select = key
            self.show_cursor = False

    def _cursor_key(self) -> str | None:
        if self._pending_select is not None:
            return None  # the cursor is on its way to a row not built yet
        return super()._cursor_key()

    def action_select_cursor(self) -> None:
        """Select the row under the cursor (not while the cursor waits for its row)."""
        if self._pending_select is None:
            super().action_select_cursor()

    def _build(self, generation: int, count: int) -> None:
        """Add the next ``count`` rows; schedule the next chunk, if any.

        After a pause while the cursor is where the operator put it; after the
        next frame while it is hidden, on its way to a row not built yet.
        """
        if generation != self._generation or self._make_view is None or self._make_cells is None:
            return  # a newer rebuild started over
        make_view, make_cells, entries = self._make_view, self._make_cells, self._entries
        start, end = self._built, min(self._built + count, len(self._order))
        for key in self._order[start:end]:
            view = make_view(entries[key])
            cells = make_cells(view)
            self._views[key] = (view, cells)
            self.add_row(*cells, key=key)
        self._built = end
        pending = self._pending_select
        if pending is not None and pending in self.rows:
            self._select(pending)
        if not self.building:
            return
        if self._pending_select is not None:
            self.call_after_refresh(self._build, generation, self.SEEK_ROWS)
        else:
            self.set_timer(
                self.CHUNK_PAUSE, lambda: self._build(generation, self.CHUNK_ROWS), name="rows"
            )

    def _update_in_place(
        self, view: Callable[[E], V], cells: Callable[[V], Sequence[Text]]
    ) -> None:
        """Update the cells of the rows whose view changed; fix each column's width once.

        Cells are updated without ``update_width``; afterwards at most one cell
        per column asks for it: the widest new one if it is wider than the column
        (Textual widens the column, nothing more), else the widest one that got
        narrower, if it may have set the column's width (Textual re-measures
        that column, once).
        """
        column_keys = [key for key, _heading in self.COLUMNS]
        # Column -> (width, row key, cell) of its widest new cell.
        widest: dict[str, tuple[int, str, Text]] = {}
        # Column -> (old width, row key, new cell) of the widest cell that got narrower.
        narrowed: dict[str, tuple[int, str, Text]] = {}
        known, entries = self._views, self._entries
        for key, shown in known.items():
            if shown is None:
                continue  # not built yet: its turn comes with the newest view
            old_view, old_cells = shown
            new_view = view(entries[key])
            if new_view == old_view:
                continue
            new_cells = cells(new_view)
            known[key] = (new_view, new_cells)
            for column, old, new in zip(column_keys, old_cells, new_cells, strict=False):
                if same_cell(old, new):
                    continue
                self.update_cell(key, column, new)
                width, old_width = cell_width(new), cell_width(old)
                if column not in widest or width > widest[column][0]:
                    widest[column] = (width, key, new)
                if width < old_width and (
                    column not in narrowed or old_width > narrowed[column][0]
                ):
                    narrowed[column] = (old_width, key, new)
        for column, (width, key, cell) in widest.items():
            current = self.columns[ColumnKey(column)].content_width
            if width > current:
                self.update_cell(key, column, cell, update_width=True)
            elif column in narrowed and narrowed[column][0] >= current:
                _old_width, row_key, narrowed_cell = narrowed[column]
                self.update_cell(row_key, column, narrowed_cell, update_width=True)
