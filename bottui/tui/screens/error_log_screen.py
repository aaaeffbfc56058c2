"""The error log screen (``e``): this session's errors, newest first.

One row per error: time, outcome (failed, or unknown when the request may
have arrived), operation, target, HTTP status, message and URL. Enter opens
the whole error (its details, the token hint, the service's error object);
escape closes. Every cell is cleaned text (:mod:`bottui.tui.widgets.untrusted_text`).
The log itself lives in memory for the session only
(:class:`~bottui.tui.error_report.ErrorLog`).
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from bottui.tui.error_report import ErrorLog, LoggedError, outcome_word
from bottui.tui.perf.textual_private import MeasuredTable
from bottui.tui.screens.dialogs import ErrorDialog
from bottui.tui.ui_rules import focus_shown, show_widget
from bottui.tui.widgets.untrusted_text import safe, safe_text

COLUMNS: Final = (
    ("time", "Time (UTC)"),
    ("outcome", "Outcome"),
    ("status", "Status"),
    ("operation", "Operation"),
    ("target", "Target"),
    ("message", "Message"),
    ("url", "URL"),
)
EMPTY: Final = "No error so far in this session."


def entry_where(entry: LoggedError) -> str:
    """What the error interrupted, raw (shown through ``clean``): outcome, hint, what, where."""
    lines = []
    if entry.refused:
        lines.append("Outcome: refused by bottui before anything was sent.")
    elif entry.unknown:
        lines.append("Outcome: unknown, the request may have arrived; check before repeating.")
    if entry.hint:
        lines.append(entry.hint)
    lines.append(f"At: {entry.at.strftime('%Y-%m-%d %H:%M:%S')} UTC")
    if entry.operation:
        lines.append(f"Operation: {entry.operation}")
    if entry.target:
        lines.append(f"Target: {entry.target}")
    if entry.url:
        lines.append(f"URL: {entry.url}")
    return "\n".join(lines)


class ErrorLogScreen(ModalScreen[None]):
    """Every error of this session, newest first; Enter shows one whole."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="error_log.close"),
    ]
    #: Not Textual's "first focusable": that is the table even while it is hidden.
    AUTO_FOCUS: ClassVar[str | None] = ""
    DEFAULT_CSS = """
    /* Below the header line: the profile and project stay in view. */
    ErrorLogScreen { align: center top; }
    ErrorLogScreen > Vertical {
        width: 100%; height: 1fr; margin-top: 1;
        border: thick $error; background: $surface; padding: 0 1;
    }
    ErrorLogScreen .dialog-title { text-style: bold; }
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
            yield Static(Content(EMPTY), id="error-log-empty")
            yield MeasuredTable(cursor_type="row", zebra_stripes=True, id="error-log-table")
            # The highlighted error's message whole: the table's cells may be cut.
            yield Static("", id="error-log-detail")

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one("#error-log-table", DataTable)
        for key, heading in COLUMNS:
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

    def action_close(self) -> None:
        """Back to the screen the log was opened from."""
        self.dismiss(None)
