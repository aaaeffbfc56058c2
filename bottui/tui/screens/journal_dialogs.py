"""The Journal screen's table and dialogs: an entry in full, the export, the filters, a run's ids.

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

The Journal screen shows a bulk run as one row (:class:`RunGroup`); this dialog
reads the run's entries from the journal the screen reads (this machine's or the
team's), :data:`RUN_PAGE` at a time, awaited in a worker (the store reads on its own
thread), the next page when the cursor nears the end or on ``m``. The header counts
the outcomes of the entries read so far and says when every one is read.

**The table** (:class:`JournalTable`): the journal's entries, newest first.

Every cell is untrusted (ids, operators and targets come from the user, the
server or another process) and goes through ``safe_text``. An entry without
an outcome reads ``! UNFINISHED`` in reverse video: the word carries the
meaning, so it reads the same with ``NO_COLOR``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Final

import msgspec
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from bottui.api.errors import ValidationError
from bottui.ops import journal_view
from bottui.store.journal.journal_records import (
    EntryPage,
    EntryQuery,
    JournalEntry,
    Operation,
    Outcome,
    RunId,
    RunRest,
)
from bottui.store.paging import Cursor
from bottui.store.utc import parse_time, stamp
from bottui.tui.error_report import EXPECTED_ERRORS, error_line
from bottui.tui.key_registry import DIALOG_HELP
from bottui.tui.perf.textual_private import MeasuredTable
from bottui.tui.screens.base import say
from bottui.tui.screens.dialogs import ExportDialog, _Modal
from bottui.tui.services import services_of
from bottui.tui.ui_rules import tone
from bottui.tui.widgets.entry_table import EntryTable
from bottui.tui.widgets.untrusted_text import (
    PlainInput,
    join,
    safe,
    safe_id,
    safe_id_text,
    safe_text,
)

#: Column key -> heading.
COLUMNS: Final = (
    ("time", "Time (UTC)"),
    ("operator", "Operator"),
    ("operation", "Operation"),
    ("target", "Target"),
    ("outcome", "Outcome"),
    ("reason", "Why"),
    ("status", "HTTP"),
    ("duration", "Took"),
)
#: Characters of a reason the table shows at 100 columns (the entry's details
#: show it whole); it grows with the screen (:func:`cell_widths`).
REASON_CELL: Final = 24
#: Characters of a target the table shows: cut with ``…`` so the Outcome column
#: after it stays on a 100-column screen (a bulk revocation's subject, with its
#: project, pushed it past the edge: ``nothing-sta``); the details show it whole.
TARGET_CELL: Final = 32
#: The screen width the two cells above were made for.
DESIGN_WIDTH: Final = 100
#: Below it, the narrowest they get (80 columns: Why stays in view, #27).
NARROW_TARGET: Final = 16
NARROW_REASON: Final = 12


def cell_widths(screen_width: int) -> tuple[int, int]:
    """(target, reason) characters for a screen ``screen_width`` columns wide.

    At 100 columns 32 and 24; wider, every column more goes to the reason
    (the Why stayed 24 characters at 200 columns); narrower, both shrink
    so Why stays in view before HTTP and Took.
    """
    if screen_width >= DESIGN_WIDTH:
        return TARGET_CELL, REASON_CELL + screen_width - DESIGN_WIDTH
    return NARROW_TARGET, NARROW_REASON


#: Row keys of a bulk run's one row: ``run:<run id>`` (entries' keys are their ids).
RUN_KEY: Final = "run:"

#: Outcome word -> (attributes, colour): the attributes tell the group without colour.
_OUTCOME_STYLES: Final = {
    **{word: ("", "green") for word in journal_view.OUTCOME_GROUPS["succeeded"]},
    **{word: ("bold", "red") for word in journal_view.OUTCOME_GROUPS["failed"]},
    **{word: ("bold underline", "yellow") for word in journal_view.OUTCOME_GROUPS["unknown"]},
}


def outcome_cell(entry: JournalEntry) -> Text:
    """The outcome word; an unfinished entry is marked in words, colour only helps."""
    if entry.unfinished:
        cell = Text("! UNFINISHED", style="bold reverse")
    else:
        cell = safe_text(
            journal_view.outcome_text(entry),
            style=tone(*_OUTCOME_STYLES.get(entry.outcome or "", ("", ""))),
        )
    sharing = journal_view.sharing_text(entry)
    if sharing:  # with a team store: only in this machine's journal (waiting, or older)
        cell.append(f" · {sharing}", style="italic")
    return cell


def cut(text: str, width: int) -> str:
    """``text`` on one line, at most ``width`` characters, ``…`` marking a cut."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= width else one_line[: width - 1] + "…"


class JournalTable(EntryTable[JournalEntry]):
    """One row per journal entry, and one per bulk run; the cursor selects one for details.

    The entries of a bulk run (same ``run_id``) share one row, keyed
    ``run:<id>``, placed where its newest loaded entry is: the count and the
    outcome counts of its entries loaded so far (:class:`RunGroup`). Its
    :attr:`selected` entry is the run's newest; :attr:`selected_run` says a
    run row is under the cursor (Enter lists its ids, page by page).
    """

    # Enter opens the entry in full (DataTable's own "Select", renamed for help).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Details", id="journal.details"),
        Binding("right", "expand", "Expand a bulk run", show=False, id="journal.expand"),
    ]

    # The module-level COLUMNS above: the class body has not bound the name yet.
    COLUMNS = COLUMNS

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._runs: dict[str, RunGroup] = {}
        #: (target, reason) characters the cells were made with.
        self.widths: tuple[int, int] = (TARGET_CELL, REASON_CELL)

    class Resized(Message):
        """The screen's width changed the cells' widths: the rows are to be read again."""

    class AtEnd(Message):
        """``ctrl+end`` took the cursor to the last row: older rows are wanted."""

    def action_scroll_bottom(self) -> None:
        """Ask for older rows, and go to the last row (no row highlight comes
        when the cursor is on the last row already: a bulk run's one row, say).
        Asked first: the read the highlight starts would not go past a run."""
        self.post_message(self.AtEnd())
        super().action_scroll_bottom()

    def only_run_shown(self, entries: Sequence[JournalEntry]) -> RunId | None:
        """The run of this machine's journal every one of ``entries`` belongs to,
        when its row is shown already (they would add no row), else None."""
        runs = {(e.run_id, e.local_id) for e in entries}
        if len(runs) != 1:
            return None
        ((run_id, local_id),) = runs
        if run_id is None or local_id is not None or f"{RUN_KEY}{run_id}" not in self._runs:
            return None
        return RunId(run_id)

    def add_rest(self, run_id: RunId, rest: RunRest, *, with_project: bool) -> None:
        """Count the rest of a run (read as counts, not entries) in its row."""
        key = f"{RUN_KEY}{run_id}"
        self._runs[key].add_rest(rest)
        self._redraw_run(key, with_project=with_project)

    def _redraw_run(self, key: str, *, with_project: bool) -> None:
        """A bulk run's row, made again from its counts."""
        cells = self._runs[key].cells(with_project=with_project, widths=self.widths)
        for (column, _heading), cell in zip(COLUMNS, cells, strict=True):
            self.update_cell(key, column, cell)

    def _take_widths(self) -> tuple[int, int]:
        """The widths for the screen as it is now (remembered for :meth:`on_resize`)."""
        self.widths = cell_widths(self.app.size.width)
        return self.widths

    def on_resize(self) -> None:
        """A wider or narrower screen: rows made for another width are read again."""
        if cell_widths(self.app.size.width) != self.widths and self.row_count:
            self.post_message(self.Resized())

    def action_expand(self) -> None:
        """On a bulk run's row: list its ids (as Enter); elsewhere scroll right."""
        if self.selected_run is not None:
            self.action_select_cursor()
        else:
            self.action_cursor_right()

    @property
    def not_shared(self) -> int:
        """Rows of entries journaled here before the team store and not shared."""
        return sum(1 for entry in self.all_entries if entry.before_store)

    @property
    def selected_run(self) -> RunGroup | None:
        """The bulk run whose row is under the cursor, if it is one."""
        key = self._cursor_key()
        return None if key is None else self._runs.get(key)

    def show(
        self, entries: Sequence[JournalEntry], *, with_project: bool, more: bool = False
    ) -> None:
        """Replace the rows, keeping the cursor on the same entry when it is still shown.

        Args:
            entries: Newest first.
            with_project: Prefix targets with their project (entries of several projects).
            more: Older entries are still to be read: a run the last entry belongs
                to may hold more than those read (its count says ``+``).
        """
        self._runs = {}
        widths = self._take_widths()
        rows: list[tuple[str, JournalEntry, tuple[Text, ...]]] = []
        for entry in entries:
            if entry.run_id is None:
                # Local numbers and teammates' event ids are two namespaces: one key each.
                key = journal_view.entry_key(entry)
                cells = _cells(entry, with_project=with_project, widths=widths)
                rows.append((key, entry, cells))
                continue
            key = f"{RUN_KEY}{journal_view.run_key(entry)}"
            group = self._runs.get(key)
            if group is None:
                group = self._runs[key] = RunGroup(entry)
                rows.append((key, entry, ()))
            group.add(entry)
        self._mark_open(entries, more)
        self._replace_rows(
            (key, entry, cells or self._runs[key].cells(with_project=with_project, widths=widths))
            for key, entry, cells in rows
        )

    def _mark_open(self, entries: Sequence[JournalEntry], more: bool) -> None:
        for group in self._runs.values():
            group.open = False
        last = entries[-1] if entries else None
        if more and last is not None and last.run_id is not None:
            self._runs[f"{RUN_KEY}{journal_view.run_key(last)}"].open = True

    def append(
        self, entries: Sequence[JournalEntry], *, with_project: bool, more: bool = False
    ) -> None:
        """Add older entries below the rows; the cursor stays, an entry shown is skipped."""
        changed = {k for k, g in self._runs.items() if g.open}  # may lose their "+"
        for entry in entries:
            if entry.run_id is None:
                key = journal_view.entry_key(entry)
                if key not in self._entries:
                    self._entries[key] = entry
                    cells = _cells(entry, with_project=with_project, widths=self.widths)
                    self.add_row(*cells, key=key)
                continue
            key = f"{RUN_KEY}{journal_view.run_key(entry)}"
            known = self._runs.get(key)
            if known is None:
                self._runs[key] = RunGroup(entry)
                self._entries[key] = entry
                self.add_row(*(Text(""),) * len(COLUMNS), key=key)
            # An older part of a run shown: its one row counts it.
            if self._runs[key].add(entry):
                changed.add(key)
        self._mark_open(entries, more)
        changed |= {k for k, g in self._runs.items() if g.open}
        for key in changed:
            self._redraw_run(key, with_project=with_project)


class RunGroup:
    """The loaded entries of one bulk run, counted by outcome."""

    def __init__(self, newest: JournalEntry) -> None:
        #: The run's newest loaded entry (its time, operator, operation, project).
        self.newest = newest
        self.run_id = newest.run_id
        self.count = 0
        #: Outcome word (``UNFINISHED`` for none) -> how many.
        self.outcomes: dict[str, int] = {}
        #: True while older entries still to be read may belong to the run.
        self.open = False
        self._seen: set[str] = set()
        #: The distinct reasons of the loaded entries: a resume may have given another.
        self.reasons: set[str] = set()

    def add(self, entry: JournalEntry) -> bool:
        """Count ``entry`` (once); True when it was new."""
        key = journal_view.entry_key(entry)
        if key in self._seen:
            return False
        self._seen.add(key)
        self.count += 1
        if entry.reason:
            self.reasons.add(" ".join(entry.reason.split()))
        word = journal_view.outcome_text(entry).split(" ")[0]
        self.outcomes[word] = self.outcomes.get(word, 0) + 1
        return True

    def add_rest(self, rest: RunRest) -> None:
        """Count the run's entries older than those loaded, from their counts:
        after it the row counts the whole run (they are never read one by one)."""
        for word, count in rest.outcomes.items():
            shown = journal_view.UNFINISHED.upper() if word is None else word
            self.outcomes[shown] = self.outcomes.get(shown, 0) + count
            self.count += count
        self.reasons |= {" ".join(reason.split()) for reason in rest.reasons}
        self.open = False

    def outcome_words(self) -> str:
        """``12 withdrawn, 3 api-error``: most first."""
        ranked = sorted(self.outcomes.items(), key=lambda item: (-item[1], item[0]))
        return ", ".join(f"{n} {word}" for word, n in ranked)

    def cells(
        self, *, with_project: bool, widths: tuple[int, int] = (TARGET_CELL, REASON_CELL)
    ) -> tuple[Text, ...]:
        """The run's row: ``▸ bulk run #7 · 15 ids`` and its outcome counts."""
        target_width, reason_width = widths
        newest = self.newest
        # A bulk run revokes grants by id; any other run is a playbook's steps.
        bulk = newest.operation == Operation.REVOKE_GRANT
        operation = journal_view.operation_text(newest, short=True)
        items = "ids" if bulk else "steps"
        run = journal_view.run_ref(newest)
        what = f"▸ {self.count}{'+' if self.open else ''} {items}, {run}"
        if with_project:
            what = f"{newest.project}: {what}"
        failed = any(w not in journal_view.OUTCOME_GROUPS["succeeded"] for w in self.outcomes)
        return (
            Text(journal_view.short_when(newest)),
            safe_text(newest.operator),
            safe_text(f"bulk {operation}" if bulk else "playbook"),
            safe_id_text(cut(what, target_width)),
            safe_text(self.outcome_words(), style="bold" if failed else ""),
            safe_text(self.reason_cell(reason_width)),
            Text(""),
            Text(""),
        )

    def reason_cell(self, width: int = REASON_CELL) -> str:
        """The newest entry's reason; ``(2 reasons) …`` when a resume gave another."""
        newest = journal_view.reason_text(self.newest, width)
        if len(self.reasons) <= 1:
            return newest
        return cut(f"({len(self.reasons)} reasons) {newest}", width)


def _cells(
    entry: JournalEntry,
    *,
    with_project: bool,
    widths: tuple[int, int] = (TARGET_CELL, REASON_CELL),
) -> tuple[Text, ...]:
    """One entry's cells, in ``COLUMNS`` order; untrusted text goes through ``safe_text``."""
    target_width, reason_width = widths
    target = journal_view.target_text(entry)
    if with_project:
        target = f"{entry.project}: {target}"
    return (
        Text(journal_view.short_when(entry)),
        safe_text(entry.operator),
        safe_text(journal_view.operation_text(entry, short=True)),
        safe_id_text(cut(target, target_width)),
        outcome_cell(entry),
        safe_text(journal_view.reason_text(entry, reason_width)),
        Text(journal_view.status_text(entry)),
        Text(journal_view.duration_text(entry), justify="right"),
    )


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


class JournalExportDialog(_JournalDialog, ExportDialog):
    """Ask where to export; returns ``(path, format, replace)`` or None.

    The format comes from the extension (``.jsonl`` or ``.csv``). A file that
    exists is replaced only after a second press, once the dialog said so.
    """

    BOX_CLASSES = "journal-dialog"

    def __init__(self, default_name: str, count_words: str) -> None:
        super().__init__(
            "Export the journal",
            f"{count_words}. Name the file .jsonl (one JSON object a line) "
            "or .csv; a relative path is in the current directory.",
            default_name,
        )
        self._confirmed_replace: Path | None = None

    @on(Input.Changed, "#export-path")
    def _changed(self) -> None:
        self._confirmed_replace = None
        self._say(None)
        self.query_one("#export-write", Button).label = Content("Export")

    def problem(self, path: Path, raw: str) -> Content | None:
        try:
            journal_view.export_format(path)
        except ValidationError as exc:
            return safe(exc.message)
        if path.is_dir():
            return join(safe(raw), " is a directory.")
        if path.exists() and self._confirmed_replace != path:
            self._confirmed_replace = path
            self.query_one("#export-write", Button).label = Content("Replace")
            return join(safe(raw), " exists: press Replace to overwrite it.")
        return None

    def chosen(self, path: Path) -> None:
        # Replace only the file the operator saw named and pressed Replace for (#25).
        fmt = journal_view.export_format(path)
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


class JournalFilters(msgspec.Struct, frozen=True):
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
            problem = safe(f"{exc.field.lstrip('-')}: {exc.message}")
            say(self.query_one("#filter-problem", Static), problem)
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
                table.add_row(*_run_cells(entry), key=journal_view.entry_key(entry))
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


def _run_cells(entry: JournalEntry) -> tuple[Text, ...]:
    return (
        Text(journal_view.entry_ref(entry)),
        safe_id_text(journal_view.target_id(entry)),
        outcome_cell(entry),
        Text(journal_view.status_text(entry)),
    )
