"""bottui's modal dialogs that inform or ask a small question (error, help, dry run...).

:class:`_Dialog` is the frame every dialog shares (centred, Esc closes it,
toasts at its top); :class:`ErrorDialog` holds a whole error, :class:`DryRunDialog`
a dry run's requests, :class:`HelpDialog` every key of a screen. A change's
confirmation is a form of its own: :mod:`bottui.tui.screens.change_form`.

The "Discard changes?" question (:class:`DiscardDialog`), asked before an editor
closes with unsent edits.

Escape in an editor used to drop every edit without a word. This dialog
asks first, with **Keep editing** focused, so Enter or a second Escape
never throws edits away: only the Discard button does.

The dry run's dialog (:class:`DryRunDialog`): the exact request(s), unwrapped, and
``c`` to copy the curl.

A dry run shows what would be sent and sends nothing. The curl command is
the part an operator takes elsewhere (a ticket, another shell), so it is
shown on one line each, never soft-wrapped (a wrapped command pasted back
breaks), in an area that scrolls both ways and whose text the mouse can
select. ``c`` (or the Copy button) sends every curl command shown, one per
line, to the terminal's clipboard with OSC 52
(:meth:`textual.app.App.copy_to_clipboard`): it works over SSH and in tmux
with ``set-clipboard on``. A terminal never acknowledges OSC 52, so the
dialog and a notice say exactly what was sent (how many characters, and
how it starts), and the text stays on screen for copying by hand.

The curl never holds a token: its header names a shell variable
(``"$BOTTUI_API_KEY"``, ``"$BOTTUI_ACCESS_TOKEN"``; see :mod:`bottui.api.requests`).

The picker a palette action asks its target with (:class:`TargetPicker`): type to
filter, Enter picks.

Opened by the command palette (:mod:`bottui.tui.key_registry`) for an action
that acts on a row (a limiter, a dimension, a project, a journal entry), so
the action never falls on whichever row happens to be highlighted. Closes
with the picked row's key, or None.

The export dialog (:class:`ExportDialog`): the file a journal's entries or a bulk
run's per-id results go to. One path field, its problem line, Cancel and Export; the
format comes from the name's extension (``.csv``, ``.jsonl``) and a relative path
starts in the directory bottui was started in. What it exports and how an existing
file is replaced are each export's own (the journal's
:class:`~bottui.tui.screens.journal_dialogs.JournalExportDialog`, a bulk run's
:class:`~bottui.tui.screens.bulk_dialogs.BulkExportDialog`).

The error log screen (``e``): this session's errors, newest first.

One row per error: time, outcome (failed, or unknown when the request may
have arrived), operation, target, HTTP status, message and URL. Enter opens
the whole error (its details, the token hint, the service's error object);
escape closes. Every cell is cleaned text (:mod:`bottui.tui.widgets.untrusted_text`).
The log itself lives in memory for the session only
(:class:`~bottui.tui.error_report.ErrorLog`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Final, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, DataTable, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from bottui.plaintext import clean
from bottui.store.utc import utc_text
from bottui.tui.error_report import ErrorLog, LoggedError, outcome_word
from bottui.tui.key_registry import DIALOG_HELP, HelpRow, HelpSection
from bottui.tui.perf.textual_private import MeasuredTable
from bottui.tui.screens.base import say
from bottui.tui.ui_rules import focus_shown, show_widget
from bottui.tui.widgets.untrusted_text import PlainInput, safe, safe_text

ResultT = TypeVar("ResultT")


class _Modal(ModalScreen[ResultT]):
    """One of bottui's dialogs: its Close button (``#close``) and any button of class
    ``closes`` (Cancel, Hide) dismiss it with None, as ``action_close`` does."""

    @on(Button.Pressed, "#close, .closes")
    def _closes(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        """Close without a result."""
        self.dismiss(None)


class _Form(_Modal[Any]):
    """A form that validates as the operator types: :meth:`result` says each field's
    problem under it and is None while one is invalid; the submit button (id
    :attr:`SUBMIT`) stays disabled meanwhile; Enter or the button closes with the result."""

    SUBMIT: ClassVar[str] = "form-submit"

    def result(self) -> Any:
        """The form's result, checked, each field's message shown; None while invalid."""
        raise NotImplementedError

    def unchanged(self, result: Any) -> bool:
        """Whether ``result`` is what an edit opened with: nothing to write (closes with None)."""
        return False

    def validate_form(self) -> bool:
        """Check every field, show the messages; True when all are valid."""
        ok = self.result() is not None
        self.query_one(f"#{self.SUBMIT}", Button).disabled = not ok
        return ok

    def submit(self) -> None:
        """Dismiss with the form's result (None when untouched)."""
        result = self.result()
        if result is not None:
            self.dismiss(None if self.unchanged(result) else result)

    def first_field(self) -> Input:
        """The field that has the focus when the form opens."""
        return self.query(Input).first()

    def focus_invalid(self) -> None:
        """Enter in an invalid form: the focus to what needs fixing (default: stay)."""

    def on_mount(self) -> None:
        self.validate_form()
        self.first_field().focus()

    @on(Input.Changed)
    @on(Checkbox.Changed)
    @on(Select.Changed)
    def _changed(self) -> None:
        self.validate_form()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        if self.validate_form():
            self.submit()
        else:
            self.focus_invalid()

    @on(Button.Pressed)
    def _submit(self, event: Button.Pressed) -> None:
        if event.button.id == self.SUBMIT and self.validate_form():
            self.submit()


class _Dialog(_Modal[Any]):
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
    /* An extension's duration (#15), beside its buttons. */
    _Dialog .dialog-buttons #duration { width: 17; }
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


def discard_title(changed: Sequence[str]) -> str:
    """``Discard changes to 2 thresholds?``, naming the name apart when it changed."""
    thresholds = [name for name in changed if name != "name"]
    count = len(thresholds)
    parts = [f"{count} threshold{'' if count == 1 else 's'}"] if count else []
    if "name" in changed:
        parts.append("the name")
    return f"Discard changes to {' and '.join(parts)}?"


class DiscardDialog(ModalScreen[bool]):
    """Ask whether to drop unsent edits; True only when Discard is pressed.

    Args:
        changed: The fields edited, in the editor's order (``name``, ``block``...).
        lines: One line per edit, ``block: 0.8 -> 0.9`` (untrusted text: shown plain).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # A second Escape keeps the edits: only the button discards them.
        Binding("escape", "keep", "Keep editing", id="discard.keep"),
    ]
    DEFAULT_CSS = """
    DiscardDialog { align: center middle; }
    DiscardDialog > Vertical {
        width: 60; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    DiscardDialog .dialog-title { text-style: bold; margin-bottom: 1; }
    DiscardDialog .dialog-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    DiscardDialog .dialog-buttons Button { margin-left: 2; }
    """

    def __init__(self, changed: Sequence[str], lines: Sequence[str]) -> None:
        super().__init__()
        self._changed = list(changed)
        self._lines = list(lines)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(discard_title(self._changed)), classes="dialog-title")
            yield Static(safe("\n".join(self._lines), keep_newlines=True), id="discard-edits")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep editing", id="keep", variant="primary")
                yield Button("Discard", id="discard", variant="error")

    def on_mount(self) -> None:
        self.query_one("#keep", Button).focus()

    @on(Button.Pressed, "#keep")
    def action_keep(self) -> None:
        """Back to the editor, every edit kept."""
        self.dismiss(False)

    @on(Button.Pressed, "#discard")
    def _discard(self) -> None:
        self.dismiss(True)


class ExportDialog(_Modal[Any]):
    """Ask for the file to export to; :meth:`chosen` takes a name that passed :meth:`problem`.

    Args:
        title: The dialog's title.
        hint: What is exported, and how the file is named.
        default_name: The name the field starts with.
    """

    #: The box's classes (its frame) and whether the field takes one row.
    BOX_CLASSES: ClassVar[str] = ""
    COMPACT: ClassVar[bool] = False

    def __init__(self, title: str, hint: str, default_name: str) -> None:
        super().__init__()
        self._title = title
        self._hint = hint
        self._default = default_name

    def compose(self) -> ComposeResult:
        with Vertical(classes=self.BOX_CLASSES):
            yield Label(Content(self._title), classes="dialog-title")
            yield Static(Content(self._hint), classes="hint")
            yield PlainInput(self._default, id="export-path", compact=self.COMPACT)
            yield Static("", id="export-problem", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="export-cancel", classes="closes")
                yield Button(Content("Export"), id="export-write", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#export-problem").display = False
        self.query_one("#export-path", Input).focus()

    def _say(self, words: Content | None) -> None:
        say(self.query_one("#export-problem", Static), words)

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-write")
    def _write(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        raw = self.query_one("#export-path", Input).value.strip()
        path = Path(raw).expanduser()
        problem = (
            self.problem(path, raw) if raw else Content("Give a file name: … .jsonl or … .csv.")
        )
        if problem is not None:
            self._say(problem)
            return
        self.chosen(path)

    def problem(self, path: Path, raw: str) -> Content | None:
        """What stops an export to the name typed (``raw``, as ``path``) now; None: nothing."""
        return None

    def chosen(self, path: Path) -> None:
        """Export to ``path``, a name without a problem."""
        raise NotImplementedError


#: How much of the copied text the notice repeats.
PREVIEW: Final = 100


def copied_words(text: str) -> str:
    """``copied 212 characters: curl --silent …``: what went to the clipboard, in words."""
    commands = text.count("\n") + 1
    what = f"{len(text):,} characters"
    if commands > 1:
        what += f", {commands} curl commands, one per line"
    first = clean(text.split("\n", 1)[0])
    preview = first if len(first) <= PREVIEW else first[: PREVIEW - 1] + "…"
    return f"copied {what}: {preview}"


class DryRunDialog(_InfoDialog):
    """Dry run: the exact request(s) and their curl, unwrapped; nothing was sent; ``c``
    copies the curl.

    Args:
        lines: What the dialog shows (method, URL, headers, body, curl; untrusted).
        curls: The curl command of each request, copied by ``c``.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_curl", "Copy curl (OSC 52)", id="dry_run.copy"),
    ]
    DEFAULT_CSS = """
    DryRunDialog > Vertical { width: 95%; }
    DryRunDialog #dry-run-scroll {
        height: auto; max-height: 40vh; overflow-x: auto; overflow-y: auto;
        border: round $primary-muted;
    }
    DryRunDialog #dry-run-scroll:focus { border: round $accent; }
    /* One line per line of the request: a wrapped curl pasted back breaks. */
    DryRunDialog #dry-run { width: auto; text-wrap: nowrap; text-overflow: clip; }
    DryRunDialog #copy-status { margin-top: 1; }
    """

    def __init__(self, lines: Sequence[str], curls: Sequence[str]) -> None:
        # The request lines end in a blank line: no empty row at the box's foot.
        shown = list(lines)
        while shown and not shown[-1].strip():
            shown.pop()
        super().__init__()
        self._lines = shown
        self._curls = list(curls)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content("Dry run: nothing was sent"), classes="dialog-title")
            with ScrollableContainer(id="dry-run-scroll"):
                yield Static(safe("\n".join(self._lines), keep_newlines=True), id="dry-run")
            yield Static(
                Content(
                    "c copies the curl (it holds no token) · arrows scroll the box "
                    "when focused · the mouse selects text"
                ),
                id="copy-status",
                classes="hint",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Copy curl (c)", id="copy", disabled=not self._curls)
                yield Button("Close", id="close", variant="primary")

    @property
    def curl_text(self) -> str:
        """What ``c`` copies: each curl command, one per line."""
        return "\n".join(self._curls)

    @on(Button.Pressed, "#copy")
    def action_copy_curl(self) -> None:
        """Send the curl command(s) to the clipboard (OSC 52) and say what was sent."""
        text = self.curl_text
        if not text:
            return
        self.app.copy_to_clipboard(text)
        words = copied_words(text)
        # The terminal says nothing back: the dialog keeps the words, the text stays above.
        what = "the curl command" if len(self._curls) == 1 else "the curl commands"
        self.query_one("#copy-status", Static).update(
            Content(
                f"Sent to the terminal's clipboard (OSC 52): {len(text):,} characters, "
                f"{what} above. The terminal does not confirm it: if nothing pastes, "
                "select the text above with the mouse."
            )
        )
        self.notify(words, title="Sent to the clipboard (OSC 52)", markup=False)


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


ERROR_LOG_COLUMNS: Final = (
    ("time", "Time (UTC)"),
    ("outcome", "Outcome"),
    ("status", "Status"),
    ("operation", "Operation"),
    ("target", "Target"),
    ("message", "Message"),
    ("url", "URL"),
)
NO_ERROR: Final = "No error so far in this session."


def entry_where(entry: LoggedError) -> str:
    """What the error interrupted, raw (shown through ``clean``): outcome, hint, what, where."""
    lines = []
    if entry.refused:
        lines.append("Outcome: refused by bottui before anything was sent.")
    elif entry.unknown:
        lines.append("Outcome: unknown, the request may have arrived; check before repeating.")
    if entry.hint:
        lines.append(entry.hint)
    lines.append(f"At: {utc_text(entry.at)}")
    if entry.operation:
        lines.append(f"Operation: {entry.operation}")
    if entry.target:
        lines.append(f"Target: {entry.target}")
    if entry.url:
        lines.append(f"URL: {entry.url}")
    return "\n".join(lines)


class ListModal(_Modal[None]):
    """A list over the whole screen but its header line (the error log, the timed changes)."""

    #: Not Textual's "first focusable": that is the table even while it is hidden.
    AUTO_FOCUS: ClassVar[str | None] = ""
    DEFAULT_CSS = """
    /* Below the header line: the profile and project stay in view. */
    ListModal { align: center top; }
    ListModal > Vertical {
        width: 100%; height: 1fr; margin-top: 1;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    ListModal .dialog-title { text-style: bold; }
    """


class ErrorLogScreen(ListModal):
    """Every error of this session, newest first; Enter shows one whole."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="error_log.close"),
    ]
    DEFAULT_CSS = """
    ErrorLogScreen > Vertical { border: thick $error; }
    ErrorLogScreen #error-log-table { height: 1fr; }
    ErrorLogScreen #error-log-detail { height: auto; max-height: 6; border-top: solid $error; }
    """

    def __init__(self, log: ErrorLog) -> None:
        super().__init__()
        self._log = log
        self._shown: list[LoggedError] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content("Error log (this session, newest first)"), classes="dialog-title")
            yield Static(
                Content("enter: the whole error · escape: close · kept in memory for this session"),
                classes="hint",
            )
            yield Static(Content(NO_ERROR), id="error-log-empty")
            yield MeasuredTable(cursor_type="row", zebra_stripes=True, id="error-log-table")
            # The highlighted error's message whole: the table's cells may be cut.
            yield Static("", id="error-log-detail")

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one("#error-log-table", DataTable)
        for key, heading in ERROR_LOG_COLUMNS:
            table.add_column(heading, key=key)
        self.refresh_rows()
        focus_shown(table)

    def refresh_rows(self) -> None:
        """Show the log as it is now (newest first); the cursor stays on the top row."""
        table: DataTable[Text] = self.query_one("#error-log-table", DataTable)
        self._shown = list(self._log)
        table.clear()
        for entry in self._shown:
            word = outcome_word(entry)
            outcome = Text(word, style={"unknown": "bold reverse", "failed": "bold"}.get(word, ""))
            table.add_row(
                Text(entry.at.strftime("%H:%M:%S")),
                outcome,
                Text(str(entry.status) if entry.status is not None else "—"),
                safe_text(entry.operation or "—"),
                safe_text(entry.target or "—"),
                safe_text(entry.message),
                safe_text(entry.url or "—"),
            )
        self.query_one("#error-log-empty").display = not self._shown
        show_widget(table, bool(self._shown), take_focus=True)
        self._show_detail(0)

    @on(DataTable.RowHighlighted, "#error-log-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, index: int) -> None:
        detail = self.query_one("#error-log-detail", Static)
        detail.display = 0 <= index < len(self._shown)
        if detail.display:
            entry = self._shown[index]
            lines = [entry.message, entry.hint, f"URL: {entry.url}" if entry.url else ""]
            detail.update(safe("\n".join(line for line in lines if line), keep_newlines=True))

    @on(DataTable.RowSelected, "#error-log-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        index = event.cursor_row
        if 0 <= index < len(self._shown):
            entry = self._shown[index]
            self.app.push_screen(
                ErrorDialog(
                    entry.title, entry.details, entry.error_object, where=entry_where(entry)
                )
            )
