"""The one confirmation of a playbook run: its steps, a duration field, a reason field.

The duration is typed like ``--for`` (``90s``, ``30m``, ``2h``, ``1h30m``);
empty means the playbook's default (named in the placeholder) or none. A
protected profile also wants the project id typed, as every change does.
The dialog returns a :class:`RunAnswer`, or None when cancelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, Static

from bottui.ops.durations import parse_duration
from bottui.plaintext import clean
from bottui.tui.screens.dialogs import ReasonAsked, _Dialog, _listing, _ReasonField
from bottui.tui.widgets.plain_paste import PlainInput


@dataclass(frozen=True)
class RunAnswer:
    """What the confirmation decided: when to revert (None: never) and why."""

    revert_after: timedelta | None
    reason: str | None


class PlaybookConfirm(_ReasonField, _Dialog):
    """Run a playbook? One confirmation for every step."""

    DEFAULT_CSS = """
    PlaybookConfirm #duration { width: 1fr; margin-top: 1; }
    PlaybookConfirm #duration-error { display: none; height: auto; padding: 0 1; }
    PlaybookConfirm #duration-error.-shown { display: block; text-style: bold; }
    PlaybookConfirm #typed { margin-top: 1; }
    """

    def __init__(
        self,
        title: str,
        body: Content,
        listing: Content,
        *,
        default: timedelta | None,
        default_text: str | None,
        reason: ReasonAsked,
        typed: str | None = None,
    ) -> None:
        super().__init__()
        self._title = title
        self._body = body
        self._listing = listing
        self._default = default
        self._default_text = default_text
        self._asked = reason
        self._typed = typed

    def compose(self) -> ComposeResult:
        hint = (
            f"Revert after (empty: the playbook's {self._default_text})"
            if self._default_text
            else "Revert after, e.g. 30m or 2h (empty: never)"
        )
        with Vertical():
            yield Label(Content(self._title), classes="dialog-title")
            yield Static(self._body, id="confirm-body")
            yield from _listing(self._listing)
            yield PlainInput(placeholder=hint, id="duration", max_length=20)
            # A bad duration is said here, next to its field: a toast would
            # cover the Run button the operator needs next.
            yield Static("", id="duration-error")
            if self._typed is not None:
                yield PlainInput(placeholder=f"Type {self._typed} to confirm", id="typed")
            with Horizontal(classes="dialog-buttons"):
                yield from self._reason_widgets()
                yield Button("Cancel", id="cancel", variant="default")
                yield Button("Run", id="confirm", variant="error")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self) -> None:
        # Enter in a field does not run the playbook: the button must be pressed.
        self.query_one("#confirm", Button).focus()

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        field = self.query_one("#duration", Input)
        text = field.value.strip()
        try:
            after = parse_duration(text) if text else self._default
        except ValueError as exc:
            field.add_class("-invalid")
            field.focus()
            said = self.query_one("#duration-error", Static)
            said.update(Content(f"Invalid duration: {clean(str(exc))}"))
            said.add_class("-shown")
            return
        field.remove_class("-invalid")
        self.query_one("#duration-error", Static).remove_class("-shown")
        if self._typed is not None:
            typed = self.query_one("#typed", Input)
            if typed.value != self._typed:
                typed.add_class("-invalid")
                typed.focus()
                self.notify(
                    "Type the project id exactly to confirm on a protected profile.",
                    title="Not confirmed",
                    severity="error",
                    markup=False,
                )
                return
        if self._reason_ok():
            self.dismiss(RunAnswer(after, self.reason))


__all__ = ["PlaybookConfirm", "RunAnswer"]
