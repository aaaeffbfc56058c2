"""Modal dialogs: confirm (focus on Cancel), typed confirm, error details, dry run, help.

A change's confirmation shows, under its body, who else changed the same
target lately (:mod:`bottui.ops.collisions`), in plain text.

A confirmation dialog opens with focus on **Cancel**, so Enter alone never
changes anything: the operator has to move to the confirm button on purpose.
A change's confirmation also holds a **reason** field, left of the buttons
(Tab reaches it; Enter in it moves to the confirm button, never presses it):
what is typed there is journaled with the change (:attr:`ConfirmDialog.reason`).
Under a profile with ``require_reason`` the confirm button refuses, and says
so, until a reason is typed.
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
    _Dialog .dialog-warning { color: $warning; margin-top: 1; }
    _Dialog .dialog-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    _Dialog .dialog-buttons Button { margin-left: 2; }
    _Dialog VerticalScroll { height: auto; max-height: 16; }
    /* The list of a change of many: what is left at 80x24 under a protected profile. */
    _Dialog #confirm-list-scroll { max-height: 30vh; margin-top: 1; }
    /* Beside the buttons: the reason costs the dialog no row (it fits 80x24).
       Focus goes by position, so from Cancel, Tab reaches Confirm, then the reason. */
    _Dialog .dialog-buttons #reason { width: 1fr; }
    """

    def action_dismiss_dialog(self) -> None:
        self.dismiss(None)


def _listing(listing: Content | None) -> ComposeResult:
    """A long list under a confirmation's body, scrolled so the buttons stay on screen."""
    if listing is not None:
        with VerticalScroll(id="confirm-list-scroll"):
            yield Static(listing, id="confirm-list")


class ReasonAsked:
    """What a change's confirmation asks about its reason: whether, and whether required."""

    def __init__(self, *, required: bool = False, refusal: str = "") -> None:
        self.required = required
        #: What the dialog says when confirm is pressed without a reason.
        self.refusal = refusal or (
            "This profile requires a reason for every change: type one in the Reason field."
        )


class _ReasonField:
    """The reason field of a confirmation, and the check of ``require_reason``.

    Mixed into a dialog (a Textual screen): ``query_one`` is the screen's.
    """

    _asked: ReasonAsked | None
    reason: str | None = None

    def _reason_widgets(self) -> ComposeResult:
        from bottui.ops.reasons import MAX_REASON

        if self._asked is None:
            return
        yield PlainInput(
            placeholder="Reason (required)" if self._asked.required else "Reason (optional)",
            id="reason",
            max_length=MAX_REASON,
        )

    def _reason_ok(self) -> bool:
        """Keep the typed reason; False (and say why) when one is required and blank."""
        if self._asked is None:
            return True
        field: Input = self.query_one("#reason", Input)  # type: ignore[attr-defined]
        text = field.value
        self.reason = text if text.strip() else None
        if self._asked.required and self.reason is None:
            field.add_class("-invalid")
            field.focus()
            self.notify(  # type: ignore[attr-defined]
                self._asked.refusal, title="Reason required", severity="error", markup=False
            )
            return False
        return True


class ConfirmDialog(_ReasonField, _Dialog):
    """Yes/no for a change. Returns True only when the confirm button is pressed.

    With ``reason`` it holds a reason field; the text is :attr:`reason` once
    confirmed (None: blank).
    """

    def __init__(
        self,
        title: str,
        body: Content,
        confirm_label: str,
        *,
        danger: bool = True,
        reason: ReasonAsked | None = None,
        warning: Content | None = None,
        listing: Content | None = None,
    ):
        super().__init__()
        self._title = title
        self._body = body
        self._confirm_label = confirm_label
        self._danger = danger
        self._asked = reason
        self._warning = warning
        self._listing = listing

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(self._title), classes="dialog-title")
            yield Static(self._body, id="confirm-body")
            yield from _listing(self._listing)
            if self._warning is not None:
                yield Static(self._warning, id="recent-changes", classes="dialog-warning")
            with Horizontal(classes="dialog-buttons"):
                yield from self._reason_widgets()
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

    @on(Input.Submitted, "#reason")
    def _reason_submitted(self) -> None:
        # Enter in the reason does not confirm: the button must be pressed.
        self.query_one("#confirm", Button).focus()

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        if self._reason_ok():
            self.dismiss(True)

    def action_dismiss_dialog(self) -> None:
        self.dismiss(False)


class TypedConfirmDialog(_ReasonField, _Dialog):
    """Confirmation for a protected profile: the project id must be typed.

    With ``reason`` it holds a reason field too (see :class:`ConfirmDialog`).
    """

    def __init__(
        self,
        title: str,
        body: Content,
        expected: str,
        confirm_label: str,
        *,
        reason: ReasonAsked | None = None,
        warning: Content | None = None,
        listing: Content | None = None,
    ):
        super().__init__()
        self._title = title
        self._body = body
        self._expected = expected
        self._confirm_label = confirm_label
        self._asked = reason
        self._warning = warning
        self._listing = listing

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(self._title), classes="dialog-title")
            yield Static(self._body)
            yield from _listing(self._listing)
            if self._warning is not None:
                # Above the typed confirmation: read before the project id is typed.
                yield Static(self._warning, id="recent-changes", classes="dialog-warning")
            yield Label(Content("This profile is protected. Type the project id to confirm:"))
            yield PlainInput(placeholder="project id", id="typed")
            with Horizontal(classes="dialog-buttons"):
                yield from self._reason_widgets()
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

    @on(Input.Submitted, "#reason")
    def _reason_submitted(self) -> None:
        self.query_one("#typed", Input).focus()

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        if self._reason_ok():
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
