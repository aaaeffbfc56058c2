"""An entry table for thousands of rows: every row at once, cells made when drawn.

The Projects and Rate limiters tables are shown again and again, mostly with
the same rows, and may hold thousands of them (issue #12: 5,000 projects,
4,000 limiters of one project). A DataTable row costs ~0.2 ms to add with
``add_row`` and measure, and making its cells ~20 µs more, so this table

* adds every row at once without ``add_row`` (a few µs a row: see
  :func:`~bottui.tui.perf.textual_private.add_blank_rows`) and makes a row's cells
  only when the table draws it, so the first frame costs a screenful
  whatever the rows, and PageDown finds its rows there at once;
* measures the columns itself: a screenful before the first frame, the rest
  after it in small batches with pauses between them (keys are answered
  throughout), keeping each row's cell widths, so a cell that got narrower
  re-measures its column from those numbers, never from the cells;
* when the same keys come back in the same order, updates in place only the
  rows whose *view* (what their cells are made from) changed; when they come
  back with more keys after them (a list read a page first, then the rest),
  adds those;
* starts what follows a first page (measuring the rest, a screen's read of
  the rest) once the table has drawn it (:meth:`IncrementalTable.call_after_drawn`),
  not before: it would compete with that frame for the GIL;
* filters (``/``) without remaking a cell: the rows kept are added again
  blank (a few µs a row), and each gets back the cells and widths it had
  when it is next drawn; each row's visible text is folded once per view;
* on a Textual other than the one tested, adds its rows with ``add_row``
  (every row before the first frame) and lets Textual measure them: slower,
  the same screen.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets.data_table import ColumnKey, RowKey

from bottui.tui.perf.textual_private import (
    add_blank_rows,
    cells_changed,
    set_row_cells,
    table_as_tested,
)
from bottui.tui.widgets.entry_table import E, EntryTable, row_text

#: What a row's cells are made from (compared to know whether they changed).
V = TypeVar("V", bound=Hashable)


def cell_width(cell: Text) -> int:
    """The width DataTable gives ``cell`` (its widest line), without a console."""
    return max((cell_len(line) for line in cell.plain.splitlines()), default=0)


def same_cell(a: Text, b: Text) -> bool:
    """Whether two cells look alike (``Text.__eq__`` ignores the base style)."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans


def _key_text(row_key: RowKey | str) -> str:
    value = row_key.value if isinstance(row_key, RowKey) else row_key
    return value or ""


class IncrementalTable(EntryTable[E], Generic[E, V]):
    """An :class:`EntryTable` shown through :meth:`_update_rows`.

    Subclasses give each row a key and its entry, a function making the row's
    hashable *view* from the entry (what its cells show), and one making the
    cells from the view. Views and cells are made for the rows drawn or
    measured only, each once until its entry's view changes.
    """

    #: Rows measured at a time after the first frame (~25 µs each: cells made and measured).
    MEASURE_ROWS: ClassVar[int] = 100
    #: Seconds left free between two batches, for keys and frames.
    MEASURE_PAUSE: ClassVar[float] = 0.005
    #: Seconds after which work waiting for the table to be drawn runs anyway
    #: (a table hidden, or its screen left, before it was drawn).
    DRAWN_TIMEOUT: ClassVar[float] = 0.5

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Row key -> (view, cells) of every row whose cells were made, None for
        # the others; in table order.
        self._views: dict[str, tuple[V, Sequence[Text]] | None] = {}
        # Row key -> its cells' widths, for the rows measured (the first
        # ``_measured`` of ``_order``).
        self._cell_widths: dict[str, tuple[int, ...]] = {}
        self._order: list[str] = []
        self._measured = 0
        self._make_view: Callable[[E], V] | None = None
        self._make_cells: Callable[[V], Sequence[Text]] | None = None
        # Bumped by every rebuild: a batch scheduled for an older one stops.
        self._generation = 0
        self._lazy: bool | None = None
        #: Rows whose cells were made (for tests: the work must follow what is drawn).
        self.cells_made = 0
        # Called once the table's lines have next been drawn (see call_after_drawn).
        self._after_drawn: list[Callable[[], None]] = []
        # Row key -> (view, folded visible text), for the filter.
        self._texts: dict[str, tuple[V, str]] = {}
        # Rows added again blank whose cells were made before (given back when drawn).
        self._unset: set[str] = set()
        # Row key -> ((view, cells), widths) made for rows, also those a filter hides.
        self._kept: dict[str, tuple[tuple[V, Sequence[Text]], tuple[int, ...] | None]] = {}

    def call_after_drawn(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the table has next been drawn (or after ``DRAWN_TIMEOUT``).

        Work following a first page (the rest's read, measuring) must not
        compete with the frame that shows it. A screen's ``call_after_refresh``
        may run before that frame (when the screen's idle comes before the
        table's repaint is known): this waits for the table's own lines.
        """
        pending = [callback]

        def once() -> None:
            if pending:
                pending.pop()()

        self._after_drawn.append(once)
        self.set_timer(self.DRAWN_TIMEOUT, once, name="drawn or not")
        self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        if self._after_drawn:
            waiting, self._after_drawn = self._after_drawn, []
            for callback in waiting:  # after this frame is written
                self.call_later(callback)
        return lines

    @property
    def building(self) -> bool:
        """Whether rows are still to be measured (they follow in batches)."""
        return self._measured < len(self._order)

    @property
    def lazy(self) -> bool:
        """Whether rows are added at once and their cells made when drawn (see the module)."""
        if self._lazy is None:
            self._lazy = table_as_tested(self)
        return self._lazy

    # -- what the DataTable reads: the cells, made on first use -----------------------

    def get_row(self, row_key: RowKey | str) -> list[Text]:
        """The row's cells (made now if the row was never drawn)."""
        self._cells_of(_key_text(row_key))
        return super().get_row(row_key)

    def get_cell(self, row_key: RowKey | str, column_key: ColumnKey | str) -> Text:
        """One cell (its row's cells made now if never drawn)."""
        self._cells_of(_key_text(row_key))
        return super().get_cell(row_key, column_key)

    def get_column(self, column_key: ColumnKey | str) -> Iterable[Text]:
        """A column's cells (every row's made now)."""
        for key in self._order:
            self._cells_of(key)
        return super().get_column(column_key)

    def _cells_of(self, key: str) -> Sequence[Text] | None:
        """The cells of row ``key``, made (and given to the DataTable) if not yet."""
        made = self._views.get(key)
        if made is not None:
            if key in self._unset:  # added again by a filter: its cells go back in
                self._unset.discard(key)
                set_row_cells(self, key, made[1])
            return made[1]
        if key not in self._views or self._make_view is None or self._make_cells is None:
            return None
        view = self._make_view(self._entries[key])
        cells = self._new_cells(view)
        self._views[key] = (view, cells)
        if self.lazy:
            set_row_cells(self, key, cells)
        return cells

    def _new_cells(self, view: V) -> Sequence[Text]:
        """The cells of a row with ``view`` (the one place cells are made)."""
        assert self._make_cells is not None
        self.cells_made += 1
        return self._make_cells(view)

    # -- the filter --------------------------------------------------------------------

    def set_filter(self, text: str) -> None:
        """Show only the rows whose visible text contains ``text`` (any case); "" shows all."""
        self.row_filter.set(text)
        if self._make_view is None or self._make_cells is None:
            return
        with self._placing():
            self._show_rows(self._filter(), self._make_view, self._make_cells, None, reuse=True)
        self._filtered_message()

    def _filter(self) -> list[tuple[str, E]]:
        return self.row_filter.apply(self._source, self._text_of)

    def _text_of(self, row: tuple[str, E]) -> str:
        """A row's folded visible text (its cells made once per view)."""
        key, entry = row
        assert self._make_view is not None and self._make_cells is not None
        view = self._make_view(entry)
        known = self._texts.get(key)
        if known is not None and known[0] == view:
            return known[1]
        made = self._views.get(key)
        cells = made[1] if made is not None and made[0] == view else self._make_cells(view)
        text = row_text(cells)
        self._texts[key] = (view, text)
        return text

    # -- showing rows ------------------------------------------------------------------

    def _update_rows(
        self,
        rows: Iterable[tuple[str, E]],
        view: Callable[[E], V],
        cells: Callable[[V], Sequence[Text]],
        *,
        select: str | None = None,
    ) -> None:
        """Show ``rows`` (key, entry); a row's cells are ``cells(view(entry))``.

        The keys shown so far, in the same order, at the start of ``rows``: the
        rows whose view changed are updated in place and the others added
        after them; the cursor stays, or goes to ``select``. Otherwise every
        row is replaced, the cursor kept on ``select`` or else on the same key.
        """
        self._source = list(rows)
        self._make_view, self._make_cells = view, cells
        self.row_filter.source_changed()
        shown = self._filter() if self.row_filter.active else self._source
        with self._placing():
            self._show_rows(shown, view, cells, select)
        if self.row_filter.active:
            self._filtered_message()

    def _show_rows(
        self,
        shown: list[tuple[str, E]],
        view: Callable[[E], V],
        cells: Callable[[V], Sequence[Text]],
        select: str | None,
        *,
        reuse: bool = False,
    ) -> None:
        self._make_view, self._make_cells = view, cells
        old = self._order
        continues = (
            bool(old)
            and len(shown) >= len(old)
            and all(key == was for (key, _entry), was in zip(shown, old, strict=False))
        )
        if not continues:
            self._rebuild(shown, select or self._cursor_key(), reuse=reuse)
            return
        self._entries = dict(shown)
        self._update_in_place()
        self._append([key for key, _entry in shown[len(old) :]])
        if select is not None and select != self._cursor_key():
            self._select(select)

    def _refresh_rows(self, keys: Iterable[str], view: Callable[[E], V]) -> None:
        """Update in place the rows of ``keys`` alone (their views may have changed)."""
        self._make_view = view
        if self._make_cells is not None:
            self._update_in_place(keys)

    def _rebuild(
        self, shown: list[tuple[str, E]], keep: str | None, *, reuse: bool = False
    ) -> None:
        """Replace every row; with ``reuse`` (same entries, filtered) keep cells and widths."""
        self.clear()
        self._generation += 1
        self._entries = dict(shown)
        if reuse:
            self._reuse_made()
        else:
            self._views, self._cell_widths, self._unset, self._kept = {}, {}, set(), {}
        self._order, self._measured = [], 0
        self.show_cursor = True
        self._append(list(self._entries))
        if keep is not None and keep in self._entries:
            self._select(keep)

    def _reuse_made(self) -> None:
        """Give the rows now shown (same entries, filtered) the cells and widths made for them.

        What was made for rows the filter now hides is kept aside for when
        they come back; a row's cells are used again only while its view is
        the same (a limiter unmarked while hidden is made again when shown).
        """
        kept = self._kept
        for key, made in self._views.items():
            if made is not None:
                kept[key] = (made, self._cell_widths.get(key))
        view = self._make_view
        assert view is not None
        self._views, self._cell_widths = {}, {}
        for key, entry in self._entries.items():
            was = kept.get(key)
            if was is None or was[0][0] != view(entry):
                self._views[key] = None
                continue
            self._views[key] = was[0]
            if was[1] is not None:
                self._cell_widths[key] = was[1]
        self._unset = (
            {key for key, made in self._views.items() if made is not None} if self.lazy else set()
        )

    def _append(self, keys: list[str]) -> None:
        """Add rows after the others: all at once, measured a screenful now and the rest later."""
        if not keys:
            return
        self._order += keys
        views = self._views
        for key in keys:  # a row added again by a filter keeps what was made for it
            views.setdefault(key, None)
        if not self.lazy:
            for key in keys:  # Textual measures them on its next idle
                self.add_row(*(self._cells_of(key) or ()), key=key)
            self._measured = len(self._order)
            return
        add_blank_rows(self, keys)
        # What the first frame shows, measured before it: the terminal's
        # height when the table has not been laid out yet.
        screenful = (self.size.height or self.app.size.height) + 2
        if self._measured < screenful:
            self._measure(screenful - self._measured)
        if self.building:
            generation = self._generation
            self.call_after_drawn(lambda: self._next_batch(generation))

    def _select(self, key: str) -> None:
        """Put the cursor on ``key`` (and its neighbours' widths measured: it is drawn now)."""
        index = self.get_row_index(key)
        if index >= self._measured:
            height = self.size.height or self.app.size.height
            self._measure_rows(self._order[max(0, index - height) : index + height])
        with self._placing():
            self.show_cursor = True
            self.move_cursor(row=index, animate=False)

    # -- widths ------------------------------------------------------------------------

    def _next_batch(self, generation: int) -> None:
        def batch() -> None:
            if generation != self._generation or not self.building:
                return  # a newer rebuild started over, or nothing left
            self._measure(self.MEASURE_ROWS)
            if self.building:
                self._next_batch(generation)

        self.set_timer(self.MEASURE_PAUSE, batch, name="measure rows")

    def _measure(self, count: int) -> None:
        """Measure the next ``count`` rows not measured yet (in table order)."""
        start = self._measured
        end = min(start + max(0, count), len(self._order))
        self._measure_rows(self._order[start:end])
        self._measured = end

    def _measure_rows(self, keys: Sequence[str]) -> None:
        """Keep the widths of these rows' cells; widen the columns they need wider."""
        widest: dict[int, int] = {}
        known = self._cell_widths
        for key in keys:
            if key in known:
                continue
            widths = known[key] = tuple(cell_width(cell) for cell in self._cells_of(key) or ())
            for index, width in enumerate(widths):
                if width > widest.get(index, 0):
                    widest[index] = width
        self._set_widths(widest, grow_only=True)

    def _set_widths(self, widths: dict[int, int], *, grow_only: bool) -> None:
        """Give columns (by index) these content widths; redraw if any changed."""
        columns = list(self.columns.values())
        changed = False
        for index, width in widths.items():
            column = columns[index]
            new = max(width, cell_width(column.label))
            if new > column.content_width or (not grow_only and new != column.content_width):
                column.content_width = new
                changed = True
        if changed:
            cells_changed(self)

    def _column_width(self, index: int) -> int:
        """The widest cell of column ``index`` among the rows measured."""
        return max((widths[index] for widths in self._cell_widths.values()), default=0)

    # -- in place ----------------------------------------------------------------------

    def _update_in_place(self, keys: Iterable[str] | None = None) -> None:
        """Update the cells of the rows (of ``keys``, or all) whose view changed.

        Rows whose cells were never made get the new view when they are drawn.
        Each column's width is fixed once: the widest new cell widens it; a
        cell that got narrower and may have set it re-measures it, from the
        kept widths (or, without them, by Textual: one ``update_width``).
        """
        view = self._make_view
        assert view is not None
        column_keys = [key for key, _heading in self.COLUMNS]
        # Column index -> (width, row key, cell) of its widest new cell.
        widest: dict[int, tuple[int, str, Text]] = {}
        # Column index -> (old width, row key, new cell) of the widest cell that got narrower.
        narrowed: dict[int, tuple[int, str, Text]] = {}
        known, entries, lazy = self._views, self._entries, self.lazy
        updated = False
        for key in known if keys is None else keys:
            shown = known.get(key)
            if shown is None:
                continue  # not made yet: its turn comes with the newest view
            old_view, old_cells = shown
            new_view = view(entries[key])
            if new_view == old_view:
                continue
            new_cells = self._new_cells(new_view)
            known[key] = (new_view, new_cells)
            if lazy:
                set_row_cells(self, key, new_cells)
                updated = True
                if key in self._cell_widths:
                    self._cell_widths[key] = tuple(cell_width(cell) for cell in new_cells)
            for index, (column, old, new) in enumerate(
                zip(column_keys, old_cells, new_cells, strict=False)
            ):
                if same_cell(old, new):
                    continue
                if not lazy:
                    self.update_cell(key, column, new)
                width, old_width = cell_width(new), cell_width(old)
                if index not in widest or width > widest[index][0]:
                    widest[index] = (width, key, new)
                if width < old_width and (index not in narrowed or old_width > narrowed[index][0]):
                    narrowed[index] = (old_width, key, new)
        self._fix_widths(widest, narrowed, updated)

    def _fix_widths(
        self,
        widest: dict[int, tuple[int, str, Text]],
        narrowed: dict[int, tuple[int, str, Text]],
        updated: bool,
    ) -> None:
        columns = list(self.columns.values())
        grow: dict[int, int] = {}
        exact: dict[int, int] = {}
        for index, (width, key, cell) in widest.items():
            current = columns[index].content_width
            if width > current:
                grow[index] = width
                remeasure = (key, cell)  # Textual widens the column, nothing more
            elif index in narrowed and narrowed[index][0] >= current:
                exact[index] = self._column_width(index) if self.lazy else 0
                remeasure = narrowed[index][1:]  # Textual re-measures the column, once
            else:
                continue
            if not self.lazy:
                row_key, cell_now = remeasure
                self.update_cell(row_key, column_key(self, index), cell_now, update_width=True)
        if self.lazy:
            self._set_widths(grow, grow_only=True)
            self._set_widths(exact, grow_only=False)
            if updated:
                cells_changed(self)


def column_key(table: IncrementalTable[Any, Any], index: int) -> str:
    """The key of column ``index`` (as in ``COLUMNS``)."""
    return table.COLUMNS[index][0]
