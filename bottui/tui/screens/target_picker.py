"""The picker a palette action asks its target with: type to filter, Enter picks.

Opened by the command palette (:mod:`bottui.tui.key_registry`) for an action
that acts on a row (a limiter, a dimension, a project, a journal entry), so
the action never falls on whichever row happens to be highlighted. Closes
with the picked row's key, or None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from bottui.tui.key_registry import DIALOG_HELP
from bottui.tui.widgets.untrusted_text import PlainInput


class TargetPicker(ModalScreen[str | None]):
    """Choose one of ``choices`` (row key, label); the filter matches any part, any case."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel"),
        Binding("down", "move(1)", "Next match", show=False, id="picker.down"),
        Binding("up", "move(-1)", "Previous match", show=False, id="picker.up"),
        DIALOG_HELP,
    ]
    DEFAULT_CSS = """
    TargetPicker { align: center middle; }
    TargetPicker > Vertical {
        width: 80; max-width: 95%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 1 2;
    }
    TargetPicker .dialog-title { text-style: bold; margin-bottom: 1; }
    TargetPicker OptionList { height: auto; max-height: 16; margin-top: 1; }
    """

    def __init__(self, title: str, choices: Sequence[tuple[str, Content]]) -> None:
        super().__init__()
        self._title = title
        self._choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(self._title), classes="dialog-title")
            yield PlainInput(placeholder="type to filter", id="picker-filter")
            yield OptionList(*self._options(""), id="picker-options")
            yield Static(Content("Enter picks · Esc cancels"), classes="hint")

    def _options(self, text: str) -> list[Option]:
        words = text.casefold().split()
        return [
            Option(label, id=key)
            for key, label in self._choices
            if all(word in label.plain.casefold() for word in words)
        ]

    def on_mount(self) -> None:
        self.query_one("#picker-filter", Input).focus()
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = 0

    @on(Input.Changed, "#picker-filter")
    def _filter(self, event: Input.Changed) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(event.value))
        if options.option_count:
            options.highlighted = 0

    def action_move(self, step: int) -> None:
        """Move the highlight while the filter keeps the focus."""
        options = self.query_one(OptionList)
        if options.option_count:
            now = options.highlighted or 0
            options.highlighted = max(0, min(options.option_count - 1, now + step))

    @on(Input.Submitted, "#picker-filter")
    def _submitted(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            self.notify("Nothing matches: change the filter, or Esc.", markup=False)
            return
        self.dismiss(options.get_option_at_index(options.highlighted).id)

    @on(OptionList.OptionSelected, "#picker-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["TargetPicker"]
