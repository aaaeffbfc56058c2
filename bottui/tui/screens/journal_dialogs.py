"""Dialogs of the Journal screen: one entry in full, the export file.

The filter dialog is :mod:`bottui.tui.screens.journal_filter`.

Everything an entry holds is untrusted (ids, server messages, another
process's writes) and reaches the screen through ``safe()``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from bottui.api.errors import ValidationError
from bottui.ops import journal_view
from bottui.store.journal.records import JournalEntry
from bottui.tui.key_registry import DIALOG_HELP
from bottui.tui.widgets.untrusted_text import PlainInput, join, safe, safe_id

UNFINISHED_WORDS = (
    "UNFINISHED: started, but no outcome was recorded. The request is still under way, "
    "or the process was cut off (crash, SIGKILL, power loss): the service may or may not "
    "have applied it."
)


def _block(value: Any) -> Content:
    """A JSON value, indented; untrusted, so through ``safe``."""
    if value is None:
        return Content("(none)")
    text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)
    return safe(text, keep_newlines=True)


def entry_details(entry: JournalEntry) -> Content:
    """Every field of an entry, as lines an operator reads."""
    when = journal_view.when(entry)
    host = join(" on ", safe(entry.host)) if entry.host else Content("")
    lines: list[Content] = [
        join("Started   ", when, " by ", safe(entry.operator), host, f" (pid {entry.pid})"),
    ]
    if entry.reason:
        lines.append(join("Why       ", safe(entry.reason)))
    if entry.unfinished:
        lines.append(Content.styled(UNFINISHED_WORDS, "bold"))
    else:
        finished = (entry.finished_at or "")[:19].replace("T", " ") + "Z"
        outcome = join("Finished  ", finished, " · ", safe(entry.outcome))
        if entry.status is not None:
            outcome = join(outcome, f" · HTTP {entry.status}")
        took = journal_view.duration_text(entry)
        if took:
            outcome = join(outcome, f" · took {took}")
        lines.append(outcome)
    lines += [
        join("Profile   ", safe(entry.profile), " · ", safe(entry.base_url)),
        join("Project   ", safe_id(entry.account), " / ", safe_id(entry.project)),
        join("Target    ", safe_id(journal_view.target_id(entry))),
    ]
    if entry.undo_of is not None:
        lines.append(Content(f"Undoes    journal entry #{entry.undo_of}"))
    if entry.run_id is not None:
        lines.append(join(f"Bulk run  #{entry.run_id}, item ", safe(entry.item_key)))
    sections = [
        ("Request body", entry.request_body),
        ("Value before (as known)", entry.previous),
        ("Result", entry.result),
        ("Error", entry.error),
    ]
    for title, value in sections:
        if value is None and title in ("Result", "Error"):
            continue
        lines += [Content(""), Content.styled(title, "bold"), _block(value)]
    return Content("\n").join(lines)


class _JournalDialog(ModalScreen[Any]):
    """A framed box in the middle of the screen; escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="journal.dialog.close"),
        DIALOG_HELP,
    ]

    def action_close(self) -> None:
        """Close without a result."""
        self.dismiss(None)


class EntryDialog(_JournalDialog):
    """One journal entry in full: request body, previous value, result, error object."""

    def __init__(self, entry: JournalEntry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        entry = self.entry
        ref = journal_view.entry_ref(entry)
        title = join(f"Journal entry {ref} · ", safe(journal_view.operation_text(entry)))
        with Vertical(id="entry-box", classes="journal-dialog"):
            yield Label(title, classes="dialog-title")
            with VerticalScroll(id="entry-scroll"):
                yield Static(entry_details(entry), id="entry-details")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")

    def on_mount(self) -> None:
        # The fields have focus, so arrows and page keys scroll at once; escape closes.
        self.query_one("#entry-scroll", VerticalScroll).focus()

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)


class ExportDialog(_JournalDialog):
    """Ask where to export; returns ``(path, format)`` or None.

    The format comes from the extension (``.jsonl`` or ``.csv``). A file that
    exists is replaced only after a second press, once the dialog said so.
    """

    def __init__(self, default_name: str, count_words: str) -> None:
        super().__init__()
        self._default = default_name
        self._count_words = count_words
        self._confirmed_replace: Path | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="journal-dialog"):
            yield Label(Content("Export the journal"), classes="dialog-title")
            yield Static(
                Content(
                    f"{self._count_words}. Name the file .jsonl (one JSON object a line) "
                    "or .csv; a relative path is in the current directory."
                ),
                classes="hint",
            )
            yield PlainInput(self._default, id="export-path")
            yield Static("", id="export-problem", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Export", id="export", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#export-problem", Static).display = False
        self.query_one("#export-path", Input).focus()

    def _problem(self, text: Content) -> None:
        problem = self.query_one("#export-problem", Static)
        problem.update(text)
        problem.display = True

    @on(Input.Changed, "#export-path")
    def _changed(self) -> None:
        self._confirmed_replace = None
        self.query_one("#export-problem", Static).display = False
        self.query_one("#export", Button).label = Content("Export")

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export")
    def _export(self) -> None:
        raw = self.query_one("#export-path", Input).value.strip()
        if not raw:
            self._problem(Content("Give a file name."))
            return
        path = Path(raw).expanduser()
        try:
            fmt = journal_view.export_format(path)
        except ValidationError as exc:
            self._problem(safe(exc.message))
            return
        if path.is_dir():
            self._problem(join(safe(raw), " is a directory."))
            return
        if path.exists() and self._confirmed_replace != path:
            self._confirmed_replace = path
            self._problem(join(safe(raw), " exists: press Replace to overwrite it."))
            self.query_one("#export", Button).label = Content("Replace")
            return
        # Replace only the file the operator saw named and pressed Replace for (#25).
        self.dismiss((path, fmt, self._confirmed_replace == path))

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
