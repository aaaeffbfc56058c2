"""A table's filter (``/``): which rows match, and the line that shows it.

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

from collections.abc import Callable, Sequence
from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Label, Static

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
