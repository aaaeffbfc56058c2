"""A row-cursor table of entries, one row per entry, keyed by a string.

The limiter, journal, dimension and project tables differ only in their columns
and cells; what they share lives here once: the columns added on mount, the
entries shown in table order, the entry under the cursor, replacing every
row without the cursor jumping away from the entry the operator was looking at,
a count of the operator's own cursor moves (:attr:`EntryTable.moves`), so
that a screen placing the cursor later can tell whether it was moved meanwhile,
and the filter typed after ``/`` (:meth:`EntryTable.set_filter`: only the rows
whose visible text holds it are shown; :attr:`EntryTable.all_entries` are every
row, shown or not).

**The filter** (``/``): which rows match, and the line that shows it.

A row matches when its *visible* text (its cells' plain text, joined)
contains the typed text, ignoring case: what the operator reads is what
narrows, nothing hidden (:class:`RowFilter`). The tables hold thousands of
rows (5,000 projects, 4,000 limiters), so each row's text is folded once and
kept while the row's view is the same, and a text that only grew (``shop``
after ``sho``) is looked for among the last matches alone.

:class:`FilterBar` is the line above the table while a filter is typed or
kept: ``Filter / text  12 of 4,000``. Opened by ``/``
(:class:`~bottui.tui.screens.base.FilterableScreen`): typing narrows
the table at once, Enter goes back to the table with the filter kept (and
still shown here), Esc clears it and hides the line. The count says how many
rows are shown of how many, so a narrowed table is never mistaken for the
whole inventory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import Label, Static

from bottui.tui.perf.textual_private import QuickCellsTable
from bottui.tui.widgets.untrusted_text import PlainInput

#: A row as the filter sees it: its key and what it stands for.
R = TypeVar("R")


def fold(text: str) -> str:
    """The form texts are compared in (case ignored, surrounding blanks dropped)."""
    return text.strip().casefold()


def row_text(cells: Sequence[Text]) -> str:
    """A row's visible text, folded: its cells' plain text, a tab between two."""
    return "\t".join(cell.plain for cell in cells).casefold()


class RowFilter(Generic[R]):
    """The typed text, and the rows it kept the last time (to narrow from)."""

    def __init__(self) -> None:
        #: The folded text; "" shows every row.
        self.text = ""
        # (text, source marker, the rows it kept), to narrow from when the text grows.
        self._last: tuple[str, int, list[R]] | None = None
        # Bumped whenever the rows to filter change (read again, updated in place).
        self._source = 0

    @property
    def active(self) -> bool:
        """Whether some text is typed (some rows may be hidden)."""
        return bool(self.text)

    def set(self, text: str) -> None:
        """Take a new typed text."""
        self.text = fold(text)

    def source_changed(self) -> None:
        """The rows or their texts changed: the last matches are no longer a base."""
        self._source += 1
        self._last = None

    def apply(self, rows: Sequence[R], text_of: Callable[[R], str]) -> list[R]:
        """The rows whose text contains the typed text, in their order."""
        wanted = self.text
        if not wanted:
            self._last = None
            return list(rows)
        base: Sequence[R] = rows
        last = self._last
        if last is not None and last[1] == self._source and last[0] in wanted:
            base = last[2]  # every row matching the longer text matched the shorter one
        kept = [row for row in base if wanted in text_of(row)]
        self._last = (wanted, self._source, kept)
        return kept


class FilterInput(PlainInput):
    """The filter's text field; Esc in it clears the filter."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "Clear the filter", id="table.filter.clear"),
    ]

    class Cleared(Message):
        """Esc was pressed in the field: the filter is to be cleared."""

    def action_clear(self) -> None:
        """Ask the screen to clear the filter."""
        self.post_message(self.Cleared())


class FilterBar(Horizontal):
    """The filter's label, its text field, and how many rows it shows."""

    DEFAULT_CSS = """
    FilterBar { height: 1; width: 1fr; padding: 0 1; }
    FilterBar > Label { width: auto; text-style: bold; }
    FilterBar > FilterInput { border: none; height: 1; width: 1fr; padding: 0 1; }
    FilterBar > FilterInput:focus { border: none; text-style: underline; }
    FilterBar > Static { width: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Label(Content("Filter /"))
        yield FilterInput(
            placeholder="type to narrow · Enter keeps · Esc clears", id="table-filter"
        )
        yield Static("", id="table-filter-count")

    @property
    def input(self) -> FilterInput:
        """The text field."""
        return self.query_one(FilterInput)

    def show_count(self, shown: int, total: int) -> None:
        """Say how many rows the filter keeps, of how many."""
        self.query_one("#table-filter-count", Static).update(
            Content(f"{shown:,} of {total:,} shown · Esc clears")
        )


#: The entry type of a table (a limiter, a journal entry, ...).
E = TypeVar("E")

#: One row to show: its key, the entry it stands for, its cells in column order.
Row = tuple[str, E, Sequence[Text]]


class EntryTable(QuickCellsTable, Generic[E]):
    """A table whose rows are entries keyed by string; the row cursor selects one.

    Subclasses set ``COLUMNS`` and build their rows in a ``show`` method that
    passes them to ``_replace_rows``.
    """

    class Filtered(Message):
        """The rows shown under a filter changed: ``shown`` of ``total`` rows."""

        def __init__(self, shown: int, total: int) -> None:
            super().__init__()
            self.shown = shown
            self.total = total

    #: Column key -> heading, in display order.
    COLUMNS: ClassVar[Sequence[tuple[str, str]]] = ()
    #: Whether every other row is shaded.
    ZEBRA_STRIPES: ClassVar[bool] = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=self.ZEBRA_STRIPES, id=id)
        # Row key -> entry, in table order; the cells alone cannot give the entry back.
        self._entries: dict[str, E] = {}
        #: How many times the operator moved the cursor (keys, mouse): every move
        #: but the table's own placements (rows replaced, a row selected by the app).
        self.moves = 0
        # Depth of the table's own placements under way (see _placing).
        self._placing_depth = 0
        # The row the palette's picker chose, while its action runs (see picked).
        self._picked: str | None = None
        #: The text typed after ``/`` and the ``(key, entry)`` rows it kept last.
        self.row_filter: RowFilter[tuple[str, E]] = RowFilter()
        # Every row given to be shown, shown or hidden by the filter, in table order.
        self._source: list[tuple[str, E]] = []
        # Row key -> its cells, of every row given to _replace_rows.
        self._row_cells: dict[str, Sequence[Text]] = {}

    @property
    def picking(self) -> bool:
        """True while a palette action runs on the row its picker chose (see picked)."""
        return self._picked is not None

    @contextmanager
    def picked(self, key: str) -> Iterator[None]:
        """Inside, :attr:`selected` is the entry of ``key``, wherever the cursor is.

        The command palette runs a row action on the row its picker chose,
        not on the highlighted one (which may be another, or hidden).
        """
        self._picked = key
        try:
            yield
        finally:
            self._picked = None

    @contextmanager
    def _placing(self) -> Iterator[None]:
        """The cursor moves inside are the table's own, not the operator's."""
        self._placing_depth += 1
        try:
            yield
        finally:
            self._placing_depth -= 1

    def watch_cursor_coordinate(
        self, old_coordinate: Coordinate, new_coordinate: Coordinate
    ) -> None:
        super().watch_cursor_coordinate(old_coordinate, new_coordinate)
        # Textual calls this at once when the cursor is set: a move outside the
        # table's own placements came from a key or the mouse.
        if old_coordinate != new_coordinate and not self._placing_depth:
            self.moves += 1

    def on_mount(self) -> None:
        for key, heading in self.COLUMNS:
            # Text, not str: a str heading is parsed as markup (and loads
            # Rich's emoji table, ~2.5 ms of the first frame).
            self.add_column(Text(heading), key=key)

    @property
    def entries(self) -> list[E]:
        """The rows shown, in table order."""
        return list(self._entries.values())

    @property
    def keyed_entries(self) -> list[tuple[str, E]]:
        """``(row key, entry)`` of the rows shown, in table order."""
        return list(self._entries.items())

    @property
    def all_keyed_entries(self) -> list[tuple[str, E]]:
        """``(row key, entry)`` of every row, also those the filter hides, in table order."""
        return list(self._source)

    @property
    def all_entries(self) -> list[E]:
        """Every row's entry, also those the filter hides, in table order."""
        return [entry for _key, entry in self._source]

    @property
    def total(self) -> int:
        """How many rows the table holds, shown or hidden by the filter."""
        return len(self._source)

    def set_filter(self, text: str) -> None:
        """Show only the rows whose visible text contains ``text`` (any case); "" shows all."""
        self.row_filter.set(text)
        self._show_filtered(None)

    def _filtered_message(self) -> None:
        self.post_message(self.Filtered(len(self._entries), self.total))

    @property
    def selected(self) -> E | None:
        """The entry under the cursor (or the one picked: see :meth:`picked`), if any."""
        if self._picked is not None:  # shown or hidden by the filter: the palette's pick
            return self._entries.get(self._picked) or dict(self.all_keyed_entries).get(self._picked)
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
        given = list(rows)
        self._source = [(key, entry) for key, entry, _cells in given]
        self._row_cells = {key: cells for key, _entry, cells in given}
        self.row_filter.source_changed()
        self._show_filtered(select)

    def _show_filtered(self, select: str | None) -> None:
        # Read before clearing: clear() moves the cursor back to the first row.
        keep = select or self._cursor_key()
        with self._placing():
            self.clear()
            shown = self.row_filter.apply(
                self._source, lambda row: row_text(self._row_cells[row[0]])
            )
            self._entries = dict(shown)
            for key, _entry in shown:
                self.add_row(*self._row_cells[key], key=key)
            if keep is not None and keep in self._entries:
                self.move_cursor(row=self.get_row_index(keep), animate=False)
        self._filtered_message()
