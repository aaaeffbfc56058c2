"""The parts of a form: one labelled field with its error line, and a checkbox that reads as text.

Forms validate as the operator types: the message appears under the field
and the submit button stays disabled while any field is invalid. The label
sits left of a compact (one-row) field so that a form fits in 24 rows
(:class:`FormField`).

:class:`StateCheckbox` reads ``[x] Resume`` on and ``[ ] Resume`` off.
Textual's ``Checkbox`` draws ``▐X▌`` both on and off and tells them apart by
colour alone, which NO_COLOR, 16 colours and monochrome lose (and an X reads
as "on" to most people even when it is off). Here the box holds ``x`` or a
space, in bold, so the state survives any palette.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Checkbox, Label, Static


class FormField(Vertical):
    """A label and one input widget on a row, and a line for its error under them.

    Args:
        label: Our own words naming the field.
        field: The input widget (Input, SecretInput, ...).
        hint: Optional words under the field while it is valid.
    """

    DEFAULT_CSS = """
    FormField { height: auto; margin-bottom: 1; }
    FormField > Horizontal { height: auto; }
    FormField > Horizontal > .form-label { width: 16; padding: 0 1; }
    FormField > Horizontal > Input { width: 1fr; background: $boost; }
    FormField > Horizontal > Input:focus { background: $primary 25%; }
    FormField > .form-error { color: $error; padding: 0 1 0 16; height: auto; }
    FormField > .form-hint { color: $text-muted; padding: 0 1 0 16; height: auto; }
    """

    def __init__(self, label: str, field: Widget, *, hint: str = "", id: str | None = None):
        super().__init__(id=id)
        self._label = label
        self._field = field
        self._hint = hint

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label(Content(self._label), classes="form-label")
            yield self._field
        hint = Static(Content(self._hint), classes="form-hint")
        hint.display = bool(self._hint)
        yield hint
        error = Static("", classes="form-error")
        error.display = False
        yield error

    def show_error(self, message: Content | None) -> None:
        """Show ``message`` (safe Content) under the field, or clear it."""
        error = self.query_one(".form-error", Static)
        error.update(message or "")
        error.display = message is not None
        self.query_one(".form-hint", Static).display = message is None and bool(self._hint)
        self.set_class(message is not None, "-invalid")


class StateCheckbox(Checkbox):
    """A ``Checkbox`` drawn ``[x]`` when on and ``[ ]`` when off (see the module docstring)."""

    DEFAULT_CSS = """
    StateCheckbox > .toggle--button,
    StateCheckbox.-on > .toggle--button {
        background: transparent;
        color: $text;
        text-style: bold;
    }
    StateCheckbox:focus > .toggle--button { text-style: bold reverse; }
    """

    BUTTON_LEFT: str = ""
    BUTTON_RIGHT: str = ""
    BUTTON_INNER: str = "[ ]"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._show_state()

    def watch_value(self) -> None:
        super().watch_value()
        self._show_state()
        self.refresh(layout=True)

    def _show_state(self) -> None:
        # BUTTON_INNER is Textual's documented way to choose the box's characters;
        # set per instance, it follows the value.
        self.BUTTON_INNER = "[x]" if self.value else "[ ]"
