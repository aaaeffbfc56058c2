"""The line above a table while a filter is typed or kept: ``Filter / text  12 of 4,000``.

Opened by ``/`` (:class:`~bottui.tui.screens.base.FilterableScreen`):
typing narrows the table at once, Enter goes back to the table with the
filter kept (and still shown here), Esc clears it and hides the line. The
count says how many rows are shown of how many, so a narrowed table is never
mistaken for the whole inventory.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Label, Static

from bottui.tui.widgets.plain_paste import PlainInput


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
