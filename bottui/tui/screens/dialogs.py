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
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from bottui.tui.help_rows import DIALOG_HELP, HelpRow, HelpSection
from bottui.tui.screens.duration_field import DurationField
from bottui.tui.widgets.plain_paste import PlainInput
from bottui.tui.widgets.safe import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.tui.change_prompt import Timing


class _Dialog(ModalScreen[Any]):
    """A framed box in the middle of the screen; escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Close", id="dialog.close"),
        DIALOG_HELP,
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
    /* A timed change's duration (#15): short, after the reason (Tab from the
       project id or Confirm reaches the reason first, as before). */
    _Dialog .dialog-buttons #duration { width: 17; }
    /* With the duration, narrower buttons leave the reason its words. */
    _Dialog .dialog-buttons.-timed Button { min-width: 10; margin-left: 1; }
    _Dialog .duration-line { color: $text-muted; margin-top: 1; }
    _Dialog .duration-line.-error { color: $error; text-style: bold; }
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


class ConfirmDialog(DurationField, _ReasonField, _Dialog):
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
        timing: Timing | None = None,
    ):
        super().__init__()
        self._title = title
        self._body = body
        self._confirm_label = confirm_label
        self._timing = timing
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
            with Horizontal(classes=self._buttons_classes()):
                yield from self._reason_widgets()
                yield from self._duration_input()
                yield Button("Cancel", id="cancel", variant="default")
                yield Button(
                    Content(self._confirm_label),
                    id="confirm",
                    variant="error" if self._danger else "primary",
                )
            yield from self._duration_line()

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    @on(Input.Submitted, "#reason")
    def _reason_submitted(self) -> None:
        # Enter in the reason does not confirm: the button must be pressed.
        self.query_one("#confirm", Button).focus()

    @on(Input.Changed, "#duration")
    def _duration_typed(self, event: Input.Changed) -> None:
        self._duration_changed(event.value)

    @on(Input.Submitted, "#duration")
    def _duration_submitted(self) -> None:
        # Enter in the duration does not confirm either.
        self.query_one("#confirm", Button).focus()

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        if self._duration_ok() and self._reason_ok():
            self.dismiss(True)

    def action_dismiss_dialog(self) -> None:
        self.dismiss(False)


class TypedConfirmDialog(DurationField, _ReasonField, _Dialog):
    """Confirmation for a protected profile: the project id must be typed.

    Enter in the typed field confirms once the id matches; before that it
    confirms nothing and says, under the field, what is missing.

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
        timing: Timing | None = None,
    ):
        super().__init__()
        self._title = title
        self._body = body
        self._timing = timing
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
            # Said only after an Enter that could not confirm (see _submitted).
            hint = Static("", id="typed-hint", classes="dialog-warning")
            hint.display = False
            yield hint
            with Horizontal(classes=self._buttons_classes()):
                yield from self._reason_widgets()
                yield from self._duration_input()
                yield Button("Cancel", id="cancel")
                yield Button(
                    Content(self._confirm_label), id="confirm", variant="error", disabled=True
                )
            yield from self._duration_line()

    def on_mount(self) -> None:
        self.query_one("#typed", Input).focus()

    @on(Input.Changed, "#typed")
    def _typed(self, event: Input.Changed) -> None:
        matches = event.value == self._expected
        self._sync_confirm()
        if matches:
            self.query_one("#typed-hint", Static).display = False

    def _may_confirm(self) -> bool:
        typed = self.query_one("#typed", Input).value == self._expected
        return typed and self._duration_ok()

    @on(Input.Changed, "#duration")
    def _duration_typed(self, event: Input.Changed) -> None:
        self._duration_changed(event.value)

    @on(Input.Submitted, "#duration")
    def _duration_submitted(self) -> None:
        self.query_one("#typed", Input).focus()

    @on(Input.Submitted, "#typed")
    def _submitted(self, event: Input.Submitted) -> None:
        # Typing the id is the deliberate act, so Enter on a match confirms (as the
        # button would, reason check included). On no match nothing is sent, and
        # the dialog says why rather than seeming to ignore the key.
        if event.value == self._expected and self._duration_ok():
            self._confirm()
            return
        hint = self.query_one("#typed-hint", Static)
        if event.value == self._expected:  # the id is right: the duration is not
            hint.update(Content("Not confirmed: the duration is not usable (said below)."))
        else:
            hint.update(
                join(
                    "Not confirmed: the text typed is not the project id. Type exactly ",
                    safe_id(self._expected),
                )
            )
        hint.display = True

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    @on(Input.Submitted, "#reason")
    def _reason_submitted(self) -> None:
        self.query_one("#typed", Input).focus()

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        if self._duration_ok() and self._reason_ok():
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
    """The whole error: title, details, and the service's error object.

    ``where`` (from the error log) says what was being done: the token hint,
    when, the operation, its target and URL.
    """

    def __init__(
        self,
        title: str,
        details: str,
        error_object: dict[str, Any] | None,
        *,
        where: str = "",
    ):
        super().__init__()
        self._title = title
        self._details = details
        self._object = error_object
        self._where = where

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe(self._title), classes="dialog-title", id="error-title")
            with VerticalScroll():
                if self._details:
                    yield Static(safe(self._details, keep_newlines=True), id="error-details")
                if self._where:
                    yield Static(safe(self._where, keep_newlines=True), id="error-where")
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
    """Every key of the screen it was opened on: its own first, then the app's, then the rest.

    Full height (the rows scroll), each key once, each row with its binding
    id for ``[keymap]`` (see :mod:`bottui.tui.help_rows`).
    """

    DEFAULT_CSS = """
    HelpDialog > Vertical { width: 100; height: 1fr; max-height: 100%; margin: 1 0; }
    HelpDialog VerticalScroll#help-rows { height: 1fr; max-height: 100%; }
    HelpDialog .help-heading { text-style: bold; margin-top: 1; }
    """

    def __init__(self, screen_title: str, sections: Sequence[HelpSection]):
        super().__init__()
        self._screen_title = screen_title
        self._sections = list(sections)
        #: (keys, description) of the keys that work here (this screen's, the app's,
        #: navigation), in order; the other screens' rows follow them on screen.
        here = [s for s in self._sections if not s.title.endswith("(elsewhere)")]
        self._rows = [(row.keys, row.description) for s in here for row in s.rows]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(f"Keys: {self._screen_title}"), classes="dialog-title")
            yield Static(Content(HELP_NOTE), id="help-note")
            keys, words = self._widths()
            with VerticalScroll(id="help-rows"):
                for section in self._sections:
                    yield Static(Content(section.title), classes="help-heading")
                    for row in section.rows:
                        yield Static(help_line(row, keys, words), classes="help-row")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")

    def _widths(self) -> tuple[int, int]:
        """Widths of the keys and words columns, so a row fits on one line where it can."""
        first = [row for section in self._sections[:3] for row in section.rows]
        rows = [row for section in self._sections for row in section.rows]
        keys = min(max((len(row.keys) for row in first), default=1), 20)
        ids = max((len(row.binding_id) for row in rows), default=0)
        # The box: 100 columns at most, 95% of the screen; border, padding, scrollbar.
        room = min(100, self.app.size.width * 95 // 100) - 8
        longest = max((len(row.description) for row in rows), default=1)
        return keys, max(16, min(longest, 36, room - keys - ids - 4))

    def on_mount(self) -> None:
        # The rows have the focus: arrows and PageDown scroll them at once.
        self.query_one("#help-rows").focus()


#: Under the help's title.
HELP_NOTE = (
    "? or F1 opens this (F1 in a text field, where ? types). "
    "Remap a key by its id in config.toml [keymap]; check with: bottui config check"
)


def help_line(row: HelpRow, keys_width: int = 16, words_width: int = 36) -> Content:
    """``keys  description  id``: the keys bold, the id dim."""
    keys = Content.styled(f"{row.keys:>{keys_width}}", "bold")
    words = Content(f"  {row.description:<{words_width}}  ")
    return Content.assemble(keys, words, Content.styled(row.binding_id, "dim"))
