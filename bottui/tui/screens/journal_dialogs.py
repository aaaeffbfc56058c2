"""Dialogs of the Journal screen: one entry in full, the export file, the filters, a run's ids.

Everything an entry holds is untrusted (ids, server messages, another
process's writes) and reaches the screen through ``safe()``.

The filter dialog (``F``, ``/``): every filter in one place.

Project (this one, every one, or another id), operation, outcome, operator
(exact), time range (ISO 8601 or ``15m``/``2h``/``3d`` ago) and a text the
reason holds. It returns a :class:`JournalFilters`; the screen turns it into
the store's query (:func:`bottui.ops.journal_view.entry_query`), read off
the event loop and a page at a time as before. The ``p``/``o``/``f`` keys
still cycle the first three.

Typed texts are compared, never shown raw: the filter line shows them
through ``safe()``.

One bulk run's ids, page by page: what Enter (or →) opens on a run's journal row.

The Journal screen shows a bulk run as one row (:class:`~bottui.tui.widgets.
journal_table.RunGroup`); this dialog reads the run's entries from the
journal the screen reads (this machine's or the team's), :data:`RUN_PAGE`
at a time, awaited in a worker (the store reads on its own thread), the next
page when the cursor nears the end or on ``m``. The header counts the
outcomes of the entries read so far and says when every one is read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Final

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from bottui.api.errors import ValidationError
from bottui.ops import journal_view
from bottui.store.journal.records import EntryPage, EntryQuery, JournalEntry, Outcome, RunId
from bottui.store.paging import Cursor
from bottui.store.utc import parse_time, stamp
from bottui.tui.error_report import EXPECTED_ERRORS, error_line
from bottui.tui.key_registry import DIALOG_HELP
from bottui.tui.perf.textual_private import MeasuredTable
from bottui.tui.screens.dialogs import _Modal
from bottui.tui.services import services_of
from bottui.tui.widgets.journal_table import RunGroup, outcome_cell
from bottui.tui.widgets.untrusted_text import PlainInput, join, safe, safe_id, safe_id_text

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


class _JournalDialog(_Modal[Any]):
    """A framed box in the middle of the screen; escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="journal.dialog.close"),
        DIALOG_HELP,
    ]


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
                yield Button("Cancel", id="cancel", classes="closes")
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


#: Operation choices: (label, value); None: every operation.
OPERATIONS: Final[tuple[tuple[str, str | None], ...]] = (
    ("every operation", None),
    *((short, str(op)) for op, short in journal_view.OPERATION_NAMES.items()),
)

#: Outcome choices: the groups first, then each word.
OUTCOMES: Final[tuple[tuple[str, str | None], ...]] = (
    ("every outcome", None),
    (journal_view.UNFINISHED, journal_view.UNFINISHED),
    *((group, group) for group in journal_view.OUTCOME_GROUPS),
    *((f"  {word}", str(word)) for word in Outcome),
)

_ALL: Final = "all"

_CURRENT: Final = "current"

_OTHER: Final = "other"


@dataclass(frozen=True)
class JournalFilters:
    """What the Journal screen shows; None: no filter on that field.

    ``project`` is ``"current"``, ``"all"`` or ``"other"`` (then
    ``project_id`` names it, in any account). ``since``/``until`` are ISO
    8601 as typed or resolved from ``2h`` (UTC).
    """

    project: str = _CURRENT
    project_id: str | None = None
    operation: str | None = None
    outcome: str | None = None
    operator: str | None = None
    since: str | None = None
    until: str | None = None
    reason: str | None = None


def resolve_time(field: str, text: str, now: datetime) -> str | None:
    """A time field as ISO 8601: ``2h`` is two hours before ``now``; blank: None.

    Raises:
        ValidationError: neither a relative time nor an ISO 8601 one.
    """
    if not text.strip():
        return None
    typed = text.strip()
    # The CLI's grammar (journal_view.time_of): ISO 8601 kept as typed, a duration ago resolved.
    moment = journal_view.time_of(f"--{field}", typed, now)
    try:
        parse_time(typed)
    except ValueError:
        return stamp(moment)
    return typed


class FilterDialog(_Modal[JournalFilters | None]):
    """Every journal filter in one dialog; returns the filters, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="journal.filter.close"),
    ]
    DEFAULT_CSS = """
    FilterDialog { align: center middle; }
    FilterDialog #filter-grid {
        grid-size: 2; grid-columns: 12 1fr; grid-rows: 1; grid-gutter: 0 1; height: auto;
    }
    FilterDialog #filter-problem { color: $error; text-style: bold; height: auto; }
    """

    def __init__(
        self,
        filters: JournalFilters,
        current: str | None,
        now: datetime,
        *,
        first: str = "filter-operation",
    ) -> None:
        super().__init__()
        self._first = first
        self._filters = filters
        self._current = current
        self._now = now

    def compose(self) -> ComposeResult:
        f = self._filters
        here = f"this project ({self._current})" if self._current else "this project (none)"
        projects = [(here, _CURRENT), ("every project", _ALL), ("another project:", _OTHER)]
        with Vertical(classes="journal-dialog", id="filter-box"):
            yield Label(Content("Journal filters"), classes="dialog-title")
            yield Static(
                Content(
                    "Blank: no filter. Operator: exactly as journaled. Times: ISO 8601 "
                    "(UTC unless an offset is given) or 15m, 2h, 3d ago. Reason: any part, "
                    "any case."
                ),
                classes="hint",
            )
            with Grid(id="filter-grid"):
                yield Label("Project")
                yield _select(projects, f.project, "filter-project")
                yield Label("  id")
                yield PlainInput(
                    f.project_id or "",
                    placeholder="project id",
                    id="filter-project-id",
                    compact=True,
                )
                yield Label("Operation")
                yield _select(OPERATIONS, f.operation, "filter-operation")
                yield Label("Outcome")
                yield _select(OUTCOMES, f.outcome, "filter-outcome")
                yield Label("Operator")
                yield _input(f.operator, "e.g. alice or bob@bastion-2", "filter-operator")
                yield Label("Since")
                yield _input(f.since, "e.g. 2h or 2026-11-21T03:00", "filter-since")
                yield Label("Until")
                yield _input(f.until, "e.g. 30m or 2026-11-21", "filter-until")
                yield Label("Reason holds")
                yield _input(f.reason, "a part of the reason", "filter-reason")
            yield Static("", id="filter-problem")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Clear", id="clear")
                yield Button("Cancel", id="cancel", classes="closes")
                yield Button("Filter", id="apply", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#filter-problem", Static).display = False
        self.query_one(f"#{self._first}").focus()

    def _text(self, widget_id: str) -> str | None:
        value = self.query_one(f"#{widget_id}", Input).value
        return value if value.strip() else None

    def _choice(self, widget_id: str) -> str | None:
        value = self.query_one(f"#{widget_id}", Select).value
        return value if isinstance(value, str) else None

    def filters(self) -> JournalFilters:
        """The filters as typed.

        Raises:
            ValidationError: a time is not one, or the range is empty.
        """
        project = self._choice("filter-project") or _CURRENT
        project_id = self._text("filter-project-id")
        if project_id is not None:
            project = _OTHER  # typing an id means that project
        elif project == _OTHER:
            raise ValidationError("project", "type the project id, or choose this/every project")
        since = resolve_time("since", self.query_one("#filter-since", Input).value, self._now)
        until = resolve_time("until", self.query_one("#filter-until", Input).value, self._now)
        if since is not None and until is not None:
            journal_view.entry_query(journal_view.JournalQuery(since=since, until=until))
        return JournalFilters(
            project=project,
            project_id=project_id,
            operation=self._choice("filter-operation"),
            outcome=self._choice("filter-outcome"),
            operator=self._text("filter-operator"),
            since=since,
            until=until,
            reason=self._text("filter-reason"),
        )

    @on(Input.Submitted)
    @on(Button.Pressed, "#apply")
    def _apply(self) -> None:
        try:
            chosen = self.filters()
        except ValidationError as exc:
            problem = self.query_one("#filter-problem", Static)
            problem.update(safe(f"{exc.field.lstrip('-')}: {exc.message}"))
            problem.display = True
            return
        self.dismiss(chosen)

    @on(Button.Pressed, "#clear")
    def _clear(self) -> None:
        self.dismiss(JournalFilters())


def _select(
    options: tuple[tuple[str, str | None], ...] | list[tuple[str, str]],
    value: str | None,
    widget_id: str,
) -> Select[str]:
    # Select has no None value: "every ..." is the blank choice.
    choices = [(label, v) for label, v in options if v is not None]
    blank = next((label for label, v in options if v is None), None)
    return Select(
        choices,
        prompt=blank or "choose",
        allow_blank=blank is not None,
        value=value if value is not None else Select.NULL,
        id=widget_id,
        compact=True,
    )


def _input(value: str | None, placeholder: str, widget_id: str) -> PlainInput:
    return PlainInput(value or "", placeholder=placeholder, id=widget_id, compact=True)


#: Entries each read of the dialog adds.
RUN_PAGE: Final = 100

#: The next page is read when the cursor comes this close to the last row.
LOOKAHEAD: Final = 10


class RunDialog(_Modal[None]):
    """The ids of one bulk run and how each ended; escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="journal.run.close"),
        Binding("m", "more", "More ids", id="journal.run.more"),
    ]
    DEFAULT_CSS = """
    RunDialog { align: center middle; }
    RunDialog #run-box { height: 90%; }
    RunDialog #run-ids { height: 1fr; }
    """

    def __init__(self, group: RunGroup) -> None:
        super().__init__()
        self._group = group
        self._counts = RunGroup(group.newest)
        self._next: Cursor | None = None
        self._started = False
        self._reading = False
        self._problem: Content | None = None

    def compose(self) -> ComposeResult:
        newest = self._group.newest
        title = (
            f"Bulk {journal_view.run_ref(newest)}: "
            f"{journal_view.operation_text(newest, short=True)}, {newest.account}/{newest.project}"
        )
        with Vertical(classes="journal-dialog", id="run-box"):
            yield Label(safe(title), classes="dialog-title")
            yield Static("", id="run-summary")
            table: DataTable[Any] = MeasuredTable(
                cursor_type="row", zebra_stripes=True, id="run-ids"
            )
            table.add_columns("Entry", "Id", "Outcome", "HTTP")
            yield table
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#run-ids", DataTable).focus()
        self.action_more()

    def action_more(self) -> None:
        """Read the next page of the run's entries."""
        if self._reading or (self._started and self._next is None):
            return
        if self._group.newest.local_id is not None:
            # A teammate's run: run ids are per journal file, and a --run query reads
            # this machine's. Its ids would be another run's: say so, list none (#27).
            self._started = True
            self.query_one("#run-summary", Static).update(
                Content(
                    f"{self._group.outcome_words()} · a teammate's run "
                    f"({journal_view.run_ref(self._group.newest)}): its ids are not listed here "
                    "(run ids are per machine; / filters the Journal by operator)"
                )
            )
            return
        self._reading = True
        services = services_of(self)
        store = services.journal_pages()
        query = EntryQuery(run_id=RunId(self._group.run_id or 0))
        cursor = self._next

        async def read() -> None:
            try:
                page = await journal_view.read_page(store, query, limit=RUN_PAGE, cursor=cursor)
            except EXPECTED_ERRORS as exc:
                page, self._problem = EntryPage((), None), error_line("Cannot read the run: ", exc)
            self._show(page)

        self.run_worker(read(), group="run-ids", exit_on_error=False)

    def _show(self, page: EntryPage) -> None:
        self._started, self._reading = True, False
        self._next = page.next
        table = self.query_one("#run-ids", DataTable)
        for entry in page.entries:
            if self._counts.add(entry):
                table.add_row(*_cells(entry), key=journal_view.entry_key(entry))
        read = self._counts.count
        more = f"the first {read} read; more below (m)" if self._next is not None else f"all {read}"
        summary = Content(f"{self._counts.outcome_words() or 'no entries'} · {more}")
        if self._problem is not None:
            summary = Content("\n").join([summary, self._problem])
        self.query_one("#run-summary", Static).update(summary)

    @on(DataTable.RowHighlighted, "#run-ids")
    def _near_the_end(self, event: DataTable.RowHighlighted) -> None:
        if self._next is not None and event.cursor_row >= event.data_table.row_count - LOOKAHEAD:
            self.action_more()


def _cells(entry: JournalEntry) -> tuple[Text, ...]:
    return (
        Text(journal_view.entry_ref(entry)),
        safe_id_text(journal_view.target_id(entry)),
        outcome_cell(entry),
        Text(journal_view.status_text(entry)),
    )


__all__ = [
    "OPERATIONS",
    "OUTCOMES",
    "RUN_PAGE",
    "FilterDialog",
    "JournalFilters",
    "RunDialog",
    "resolve_time",
]
