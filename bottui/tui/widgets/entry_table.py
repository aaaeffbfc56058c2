"""A row-cursor table of entries, one row per entry, keyed by a string.

The limiter, journal, dimension and project tables differ only in their columns
and cells; what they share lives here once: the columns added on mount, the
entries shown in table order, the entry under the cursor, and replacing every
row without the cursor jumping away from the entry the operator was looking at.

Tables that are shown again and again with mostly the same rows (projects,
rate limiters: thousands of them, issue #12) go through :meth:`EntryTable._update_rows`
instead: when the same keys come back in the same order, only the cells that
changed are updated, and each column's width is fixed once per update
rather than re-measured over the whole column for every changed cell.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import ClassVar, Generic, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

#: The entry type of a table (a limiter, a journal entry, ...).
E = TypeVar("E")

#: What a row's cells are made from (compared to know whether they changed).
V = TypeVar("V", bound=Hashable)

#: One row to show: its key, the entry it stands for, its cells in column order.
Row = tuple[str, E, Sequence[Text]]


def cell_width(cell: Text) -> int:
    """The width DataTable gives ``cell`` (its widest line), without a console."""
    return max((cell_len(line) for line in cell.plain.splitlines()), default=0)


def same_cell(a: Text, b: Text) -> bool:
    """Whether two cells look alike (``Text.__eq__`` ignores the base style)."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans


class EntryTable(DataTable[Text], Generic[E]):
    """A table whose rows are entries keyed by string; the row cursor selects one.

    Subclasses set ``COLUMNS`` and build their rows in a ``show`` method that
    passes them to ``_replace_rows``.
    """

    #: Column key -> heading, in display order.
    COLUMNS: ClassVar[Sequence[tuple[str, str]]] = ()
    #: Whether every other row is shaded.
    ZEBRA_STRIPES: ClassVar[bool] = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=self.ZEBRA_STRIPES, id=id)
        # Row key -> entry, in table order; the cells alone cannot give the entry back.
        self._entries: dict[str, E] = {}
        # Row key -> (view, cells) of the rows shown by _update_rows: what the cells
        # were made from, to know which changed, and the cells, to know their widths.
        self._views: dict[str, tuple[Hashable, Sequence[Text]]] = {}

    def on_mount(self) -> None:
        for key, heading in self.COLUMNS:
            self.add_column(heading, key=key)

    @property
    def entries(self) -> list[E]:
        """The rows shown, in table order."""
        return list(self._entries.values())

    @property
    def selected(self) -> E | None:
        """The entry under the cursor, if any."""
        key = self._cursor_key()
        return None if key is None else self._entries[key]

    def _cursor_key(self) -> str | None:
        """The key of the row under the cursor, None if no shown entry is there."""
        if not self._entries or self.row_count == 0:
            return None
        row = self.cursor_row
        # The cursor can sit outside the rows (e.g. right after a clear).
        if not 0 <= row < self.row_count:
            return None
        key = self.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value
        return key if key is not None and key in self._entries else None

    def _replace_rows(self, rows: Iterable[Row[E]], *, select: str | None = None) -> None:
        """Replace every row; keep the cursor on ``select`` or else on the same key.

        The cursor stays where it was (by key, not by position) only when that row
        is still shown, so a refresh does not move the operator's selection.
        """
        # Read before clearing: clear() moves the cursor back to the first row.
        keep = select or self._cursor_key()
        self.clear()
        shown = list(rows)
        self._entries = {key: entry for key, entry, _cells in shown}
        self._views = {}
        for key, _entry, cells in shown:
            self.add_row(*cells, key=key)
        if keep is not None and keep in self._entries:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

    def _update_rows(
        self,
        rows: Iterable[tuple[str, E, V]],
        cells: Callable[[V], Sequence[Text]],
        *,
        select: str | None = None,
    ) -> None:
        """Show ``rows`` (key, entry, view); ``cells(view)`` makes a row's cells.

        When the table already shows the same keys in the same order, only the
        rows whose view changed are updated, in place (the cursor stays, or goes
        to ``select``); otherwise every row is replaced as :meth:`_replace_rows`
        does. Either way the cost is linear in the rows, never quadratic.
        """
        shown = list(rows)
        if len(shown) != self.row_count or len(shown) != len(self._views):
            self._rebuild(shown, cells, select)
            return
        if any(key != old for (key, _entry, _view), old in zip(shown, self._views, strict=True)):
            self._rebuild(shown, cells, select)
            return
        self._entries = {key: entry for key, entry, _view in shown}
        self._update_in_place([(key, view) for key, _entry, view in shown], cells)
        if select is not None and select in self._entries and select != self._cursor_key():
            self.move_cursor(row=self.get_row_index(select), animate=False)

    def _rebuild(
        self,
        shown: list[tuple[str, E, V]],
        cells: Callable[[V], Sequence[Text]],
        select: str | None,
    ) -> None:
        made = [(key, entry, view, cells(view)) for key, entry, view in shown]
        self._replace_rows(((key, entry, row) for key, entry, _view, row in made), select=select)
        self._views = {key: (view, row) for key, _entry, view, row in made}

    def _update_in_place(
        self, views: Iterable[tuple[str, V]], cells: Callable[[V], Sequence[Text]]
    ) -> None:
        """Update the cells of the rows whose view changed; fix each column's width once.

        ``update_cell(..., update_width=True)`` re-measures the whole column whenever
        the new cell is narrower than the column: once per cell, that is quadratic.
        So cells are updated without it, and afterwards at most one cell per column
        asks for a width update: the widest new one if it is wider than the column
        (Textual then widens the column, nothing else), else one that set the
        column's width and got narrower (Textual re-measures that column once).
        """
        column_keys = [key for key, _heading in self.COLUMNS]
        # Column -> (width, row key, cell) of its widest new cell.
        widest: dict[str, tuple[int, str, Text]] = {}
        # Column -> (old width, row key, new cell) of the widest cell that got narrower.
        narrowed: dict[str, tuple[int, str, Text]] = {}
        known = self._views
        for key, view in views:
            old_view, old_cells = known[key]
            if old_view == view:
                continue
            new_cells = cells(view)
            known[key] = (view, new_cells)
            for column, old, new in zip(column_keys, old_cells, new_cells, strict=False):
                if same_cell(old, new):
                    continue
                self.update_cell(key, column, new)
                width = cell_width(new)
                if width > widest.get(column, (-1, "", new))[0]:
                    widest[column] = (width, key, new)
                old_width = cell_width(old)
                if width < old_width and old_width > narrowed.get(column, (-1, "", new))[0]:
                    narrowed[column] = (old_width, key, new)
        for column, (width, key, cell) in widest.items():
            current = self.columns[ColumnKey(column)].content_width
            if width > current:
                self.update_cell(key, column, cell, update_width=True)
            elif column in narrowed and narrowed[column][0] >= current:
                _old_width, row_key, narrowed_cell = narrowed[column]
                self.update_cell(row_key, column, narrowed_cell, update_width=True)
