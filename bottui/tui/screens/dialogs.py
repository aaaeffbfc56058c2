"""bottui's modal dialogs: their frame, and the dialogs that only inform.

:class:`_Dialog` is the frame every dialog shares (centred, Esc closes it,
toasts at its top); :class:`ErrorDialog` holds a whole error, :class:`RequestsDialog`
a dry run's requests, :class:`HelpDialog` every key of a screen. A change's
confirmation is a form of its own: :mod:`bottui.tui.screens.change_form`.
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
from textual.widgets import Button, Label, Static

from bottui.tui.key_registry import DIALOG_HELP, HelpRow, HelpSection
from bottui.tui.widgets.untrusted_text import safe


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
    /* Toasts over a dialog go to the top: at the bottom they covered its fields
       and buttons (#24); the facts at the top scroll and are said again below. */
    _Dialog > ToastRack { dock: top; align: right top; margin-bottom: 0; margin-top: 1; }
    _Dialog .duration-line.-error { color: $error; text-style: bold; }
    """

    def action_dismiss_dialog(self) -> None:
        self.dismiss(None)


def _listing(listing: Content | None) -> ComposeResult:
    """A long list under a confirmation's body, scrolled so the buttons stay on screen."""
    if listing is not None:
        with VerticalScroll(id="confirm-list-scroll"):
            yield Static(listing, id="confirm-list")


class _InfoDialog(_Dialog):
    """A dialog that only informs: one Close button, focused."""

    def on_mount(self) -> None:
        self._first_focus()

    def _first_focus(self) -> None:
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
    id for ``[keymap]`` (see :mod:`bottui.tui.key_registry`).
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

    BINDINGS: ClassVar[list[BindingType]] = [
        # Whatever has the focus (the rows, or Close after a Tab), the keys scroll.
        Binding("down", "scroll_rows('down')", "Scroll", show=False, id="help.down"),
        Binding("up", "scroll_rows('up')", "Scroll", show=False, id="help.up"),
        Binding(
            "pagedown", "scroll_rows('page_down')", "Scroll a page", show=False, id="help.page_down"
        ),
        Binding("pageup", "scroll_rows('page_up')", "Scroll a page", show=False, id="help.page_up"),
        Binding("home", "scroll_rows('home')", "To the top", show=False, id="help.home"),
        Binding("end", "scroll_rows('end')", "To the end", show=False, id="help.end"),
    ]

    def _first_focus(self) -> None:
        # The rows have the focus: arrows and PageDown scroll them at once (it was
        # the Close button: at 80x24 help stopped after ~9 keys and did not scroll).
        self.query_one("#help-rows").focus()

    def action_scroll_rows(self, how: str) -> None:
        rows = self.query_one("#help-rows", VerticalScroll)
        getattr(rows, f"scroll_{how}")(animate=False)


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
