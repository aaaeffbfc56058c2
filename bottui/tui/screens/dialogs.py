"""Modal dialogs: confirm (focus on Cancel), typed confirm, error details, dry run, help.

A confirmation dialog opens with focus on **Cancel**, so Enter alone never
changes anything: the operator has to move to the confirm button on purpose.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from bottui.tui.widgets.plain_paste import PlainInput
from bottui.tui.widgets.safe import safe


class _Dialog(ModalScreen[Any]):
    """A framed box in the middle of the screen; escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Close", id="dialog.close"),
    ]
    DEFAULT_CSS = """
    _Dialog { align: center middle; }
    _Dialog > Vertical {
        width: 72; max-width: 95%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 1 2;
    }
    _Dialog .dialog-title { text-style: bold; margin-bottom: 1; }
    _Dialog .dialog-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    _Dialog .dialog-buttons Button { margin-left: 2; }
    _Dialog VerticalScroll { height: auto; max-height: 16; }
    """

    def action_dismiss_dialog(self) -> None:
        self.dismiss(None)


class ConfirmDialog(_Dialog):
    """Yes/no for a change. Returns True only when the confirm button is pressed."""

    def __init__(self, title: str, body: Content, confirm_label: str, *, danger: bool = True):
        super().__init__()
        self._title = title
        self._body = body
        self._confirm_label = confirm_label
        self._danger = danger

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(self._title), classes="dialog-title")
            yield Static(self._body, id="confirm-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel", variant="default")
                yield Button(
                    Content(self._confirm_label),
                    id="confirm",
                    variant="error" if self._danger else "primary",
                )

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        self.dismiss(True)

    def action_dismiss_dialog(self) -> None:
        self.dismiss(False)


class TypedConfirmDialog(_Dialog):
    """Confirmation for a protected profile: the project id must be typed."""

    def __init__(self, title: str, body: Content, expected: str, confirm_label: str):
        super().__init__()
        self._title = title
        self._body = body
        self._expected = expected
        self._confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(self._title), classes="dialog-title")
            yield Static(self._body)
            yield Label(Content("This profile is protected. Type the project id to confirm:"))
            yield PlainInput(placeholder="project id", id="typed")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(
                    Content(self._confirm_label), id="confirm", variant="error", disabled=True
                )

    def on_mount(self) -> None:
        self.query_one("#typed", Input).focus()

    @on(Input.Changed, "#typed")
    def _typed(self, event: Input.Changed) -> None:
        self.query_one("#confirm", Button).disabled = event.value != self._expected

    @on(Input.Submitted, "#typed")
    def _submitted(self, event: Input.Submitted) -> None:
        # Enter in the field does not confirm: the button must be pressed.
        if event.value == self._expected:
            self.query_one("#confirm", Button).focus()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        self.dismiss(self.query_one("#typed", Input).value == self._expected)

    def action_dismiss_dialog(self) -> None:
        self.dismiss(False)


class _InfoDialog(_Dialog):
    """A dialog that only informs: one Close button, focused."""

    def on_mount(self) -> None:
        self.query_one("#close", Button).focus()

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)


class ErrorDialog(_InfoDialog):
    """The whole error: title, details, and the service's error object."""

    def __init__(self, title: str, details: str, error_object: dict[str, Any] | None):
        super().__init__()
        self._title = title
        self._details = details
        self._object = error_object

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe(self._title), classes="dialog-title", id="error-title")
            with VerticalScroll():
                if self._details:
                    yield Static(safe(self._details, keep_newlines=True), id="error-details")
                if self._object:
                    for key in ("status", "message", "code", "type", "context"):
                        value = self._object.get(key)
                        if isinstance(value, dict | list):
                            value = json.dumps(value, ensure_ascii=False, indent=1)
                        yield Static(
                            Content(f"{key}: ") + safe(value, keep_newlines=True),
                            classes=f"error-field error-{key}",
                        )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")


class RequestsDialog(_InfoDialog):
    """Dry run: the exact request(s) and an equivalent curl; nothing was sent."""

    def __init__(self, lines: Sequence[str]):
        super().__init__()
        self._lines = list(lines)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content("Dry run: nothing was sent"), classes="dialog-title")
            with VerticalScroll():
                yield Static(safe("\n".join(self._lines), keep_newlines=True), id="dry-run")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")


class HelpDialog(_InfoDialog):
    """Every key of the current screen."""

    def __init__(self, screen_title: str, rows: Sequence[tuple[str, str]]):
        super().__init__()
        self._screen_title = screen_title
        self._rows = list(rows)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(f"Keys: {self._screen_title}"), classes="dialog-title")
            with VerticalScroll():
                for key, description in self._rows:
                    yield Static(Content(f"{key:>10}  {description}"), classes="help-row")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")
