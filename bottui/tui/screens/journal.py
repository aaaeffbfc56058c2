"""The Journal screen: every change this profile made, newest first, and undo.

The table shows the audit journal (:mod:`bottui.store.journal`) of the
session's profile: who changed what, when, how it ended, how long it took.
An entry without an outcome is marked UNFINISHED (still running, or cut off
by a crash). ``F`` opens every filter in one dialog (project, operation,
outcome, operator, time range, reason: :class:`~bottui.tui.screens.journal_dialogs.FilterDialog`;
``/`` opens it in the operator field); ``p``, ``o`` and ``f`` cycle the first three;
``enter`` opens an entry in full; ``x`` exports what the filters show;
``u`` undoes the highlighted rate limiter or threshold change of the current
project, after the one confirmation (dry run, read-only and protected rules
included; :func:`start_undo`).

A journal may hold millions of entries, so the table holds pages: the newest
:data:`FIRST_PAGE` first, then :data:`MORE_PAGE` more whenever the cursor
comes within :data:`LOOKAHEAD` rows of the end (or on ``m``). Every read is
awaited in a worker (the store reads on its own thread), so keys answer
while a page is read; a page read for filters that have changed since is
dropped.

``u``: undo a journal row (the Journal screen) or the current project's newest change.

The planning, refusals and the changed-since check are
:mod:`bottui.ops.undo`'s; this module runs them in a worker of the
screen, builds the confirmation's body (before -> after, and who changed
the object since) and says how it ended. A row that cannot be undone is
refused with its reason, through the app's one error path; nothing else
is offered in its place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

import msgspec
from msgspec.structs import replace
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import DataTable, Static
from textual.worker import Worker

from bottui.ops import journal_view, undo
from bottui.ops.journal_view import JournalQuery
from bottui.ops.shared_journal import SharedJournal
from bottui.plaintext import clean
from bottui.store.journal.journal_records import (
    EntryId,
    EntryPage,
    EntryQuery,
    JournalEntry,
    JournalReader,
    Operation,
    RunId,
    RunRest,
)
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.paging import Cursor
from bottui.store.utc import stamp, system_clock
from bottui.tui.change_prompt import ChangePrompt
from bottui.tui.error_report import EXPECTED_ERRORS, error_line
from bottui.tui.screens.base import BottuiScreen, say
from bottui.tui.screens.journal_dialogs import (
    EntryDialog,
    FilterDialog,
    JournalExportDialog,
    JournalFilters,
    JournalTable,
    RunDialog,
    cut,
)
from bottui.tui.widgets.untrusted_text import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.ops.planning import PlannedChange


#: Entries of the first read: a few screens' worth, shown at once.
FIRST_PAGE: Final = 100

#: Entries each later read adds below.
MORE_PAGE: Final = 200

#: The next page is read when the cursor comes this close to the last row.
LOOKAHEAD: Final = 20

#: A re-read (after a change, ``r``) keeps at most this many of the rows loaded
#: (rebuilding a longer table would hold up the keys; the rest is read again on scrolling).
KEPT_ON_RELOAD: Final = 500

#: Characters of a typed filter the filter line shows (cut with ``…``).
FILTER_TEXT: Final = 32

#: Worker group of the screen's reads of a first page.
JOURNAL_READS: Final = "journal"

#: Worker group of the screen's reads of older pages.
OLDER_READS: Final = "journal-older"

#: Operation filters, in the order ``o`` cycles them (None: all).
OPERATION_FILTERS: Final[tuple[str | None, ...]] = (
    None,
    Operation.SET_LIMITER_ACTIVE,
    Operation.SET_THRESHOLDS,
    Operation.REVOKE_GRANT,
)

#: Outcome filters, in the order ``f`` cycles them (None: all).
OUTCOME_FILTERS: Final[tuple[str | None, ...]] = (
    None,
    journal_view.UNFINISHED,
    "succeeded",
    "failed",
    "unknown",
)


class JournalScreen(BottuiScreen):
    """The audit journal of this profile: filters, details, export, undo."""

    SCREEN_TITLE: ClassVar[str] = "Journal"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "undo", "Undo row", id="journal.undo"),
        # The filter line names these keys; the key bar has no room for them at 80 columns.
        Binding("p", "cycle_project", "Project filter", show=False, id="journal.project"),
        Binding("o", "cycle_operation", "Operation filter", show=False, id="journal.operation"),
        Binding("f", "cycle_outcome", "Outcome filter", show=False, id="journal.outcome"),
        Binding("slash", "who_why", "Operator/reason filter", show=False, id="journal.who"),
        Binding("F", "filters", "Filters", id="journal.filters"),
        Binding("x", "export", "Export", id="journal.export"),
        Binding("r", "reload", "Reload", id="journal.reload"),
        Binding("m", "older", "More: older entries", show=False, id="journal.older"),
    ]
    # The palette's "Undo row…" asks which entry (never the highlighted one).
    TARGETS: ClassVar[dict[str, type]] = {"undo": JournalTable}

    def __init__(self) -> None:
        super().__init__()
        #: What the rows are filtered by: ``p``, ``o`` and ``f`` cycle the first three;
        #: who and why (``/``: exact operator, reason substring in any case), another
        #: project's id (any account) and a time range (ISO 8601, UTC) are set in the
        #: filter dialog (``F``).
        self.filters = JournalFilters()
        #: Bumped by every first-page read: an older page of earlier filters is dropped.
        self._generation = 0
        #: The query of the rows shown, and the cursor of the page after them (None: the end).
        self._shown: EntryQuery | None = None
        self._next: Cursor | None = None
        self._reading_older = False

    def compose_body(self) -> ComposeResult:
        yield Static(Content(self.SCREEN_TITLE), id="journal-title", classes="screen-title")
        yield Static("", id="journal-filters", classes="hint")
        yield Static("", id="journal-empty", classes="hint")
        yield JournalTable(id="journal-table")

    # -- reading ------------------------------------------------------------------

    def query_now(self) -> JournalQuery:
        """The filters as a journal query (this profile only; the whole team's when
        the shared journal is read)."""
        current, f = self.services.current, self.filters
        scoped = current is not None and f.project == "current"
        # Teammates journal under their own profile names (local words that
        # differ between machines): the shared journal is scoped by account
        # and project only, or a teammate's changes would never show.
        shared = isinstance(self.services.journal_pages(), SharedJournal)
        return JournalQuery(
            profile=None if shared else self.services.session.settings.inventory_scope,
            account=current[0] if scoped and current else None,
            project=current[1] if scoped and current else f.project_id,
            since=f.since,
            until=f.until,
            operation=f.operation,
            outcome=f.outcome,
            operator=f.operator,
            reason=f.reason,
        )

    def on_journal_table_resized(self, _message: JournalTable.Resized) -> None:
        """The screen's width changed the cells' widths: the rows are made again."""
        self.refresh_data()

    def refresh_data(self) -> None:
        """Read the first page again, as many rows as are loaded (the cursor stays)."""
        tables = self.query(JournalTable)
        rows = tables.first().row_count if tables else 0
        self._read_first(max(FIRST_PAGE, min(rows, KEPT_ON_RELOAD)))

    def _read_first(self, size: int = FIRST_PAGE) -> None:
        """Read the newest ``size`` entries of the filters; they replace the rows."""
        query = self.query_now()
        store = self.services.journal_pages()
        self._generation += 1
        generation = self._generation
        self._reading_older = False

        async def read() -> tuple[EntryPage, Content | None, bool]:
            try:
                page = await journal_view.read_page(
                    store, journal_view.entry_query(query), limit=size
                )
            except EXPECTED_ERRORS as exc:
                # Said on the screen, not toasted: hidden screens refresh too, and a
                # damaged journal would toast on every change made elsewhere.
                return EntryPage((), None), error_line("The journal cannot be read: ", exc), False
            others = (
                not page.entries and query.project is not None and await self._profile_has_entries()
            )
            return page, None, others

        def show(found: tuple[EntryPage, Content | None, bool]) -> None:
            if generation == self._generation:
                self._show(query, *found)

        self.load(read, show, group=JOURNAL_READS)

    def action_older(self, go_past: bool = True) -> None:
        """Read the next page of older entries and add it below; ``go_past``
        (``m``, ``ctrl+end``): past the run the last row shows (:func:`_read_older`)."""
        if self._next is None or self._shown is None:
            if self._shown is not None:
                self.notify("No older entries.", markup=False)
            return
        if self._reading_older:
            return
        self._reading_older = True
        store = self.services.journal_pages()
        query, cursor, generation = self._shown, self._next, self._generation
        table = self.query_one(JournalTable)

        async def read() -> Older:
            try:
                return await _read_older(store, table, query, cursor, go_past=go_past)
            finally:
                if generation == self._generation:
                    self._reading_older = False

        def show(older: Older) -> None:
            if generation != self._generation:
                return  # the filters changed meanwhile: these rows belong to none shown
            with_project = self.query_now().project is None
            more = older.page.next is not None
            table.append(older.entries, with_project=with_project, more=more)
            for run_id, rest in older.rests.items():
                table.add_rest(run_id, rest, with_project=with_project)
            self._shown, self._next = older.query, older.page.next
            self._show_filters(table.row_count)

        self.load(read, show, group=OLDER_READS)

    def on_journal_table_at_end(self, _message: JournalTable.AtEnd) -> None:
        """``ctrl+end`` on the last row: the older entries (the cursor is there already)."""
        self.action_older()

    @on(DataTable.RowHighlighted, "#journal-table")
    def _near_the_end(self, event: DataTable.RowHighlighted) -> None:
        if self._next is not None and event.cursor_row >= event.data_table.row_count - LOOKAHEAD:
            self.action_older(go_past=False)

    def _show(
        self,
        query: JournalQuery,
        page: EntryPage,
        problem: Content | None,
        profile_has_entries: bool,
    ) -> None:
        entries = page.entries
        self._shown = journal_view.entry_query(query)
        self._next = page.next
        table = self.query_one(JournalTable)
        table.show(entries, with_project=query.project is None, more=page.next is not None)
        self._show_filters(len(entries))
        if entries:
            words = None
        elif problem is not None:
            words = problem
        elif query.operation or query.outcome or query.operator or query.reason or query.since:
            words = Content("No entry matches the filters (F changes them, p shows every project).")
        elif query.project and profile_has_entries:
            words = Content(
                "Nothing journaled for this project yet (p shows every project). Every "
                "change bottui sends, from here or the command line, is recorded before "
                "it is sent."
            )
        else:
            words = Content(
                "The journal is empty. Every change bottui sends, from here or the command "
                "line, is recorded before it is sent."
            )
        say(self.query_one("#journal-empty", Static), words)

    async def _profile_has_entries(self) -> bool:
        session = self.services.session
        query = EntryQuery(profile=session.settings.inventory_scope)
        try:
            page = await session.journal_store.page(query, limit=1)
        except EXPECTED_ERRORS:
            return False
        return bool(page.entries)

    def _show_filters(self, count: int) -> None:
        current, f = self.services.current, self.filters
        if f.project_id is not None:
            project = join(safe_id(f.project_id), " (any account)")
        elif current is None:
            project = Content("all (no project chosen)")
        elif f.project == "all":
            project = Content("all")
        else:
            project = join(safe_id(current[0]), " / ", safe_id(current[1]))
        operation = journal_view.OPERATION_NAMES.get(f.operation or "", "all")
        shown = f"newest {count} shown, older on m" if self._next is not None else f"{count} shown"
        line = join(
            "Project ",
            project,
            f" (p) · Operation {operation} (o) · Outcome {f.outcome or 'all'} (f) · {shown}",
        )
        parts = []
        if f.operator is not None:
            parts.append(join("Operator ", safe(cut(f.operator, FILTER_TEXT))))
        if f.reason is not None:
            parts.append(join("Reason holds ", safe(cut(f.reason, FILTER_TEXT))))
        if f.since is not None or f.until is not None:
            start, end = f.since or "the start", f.until or "now"
            parts.append(
                join("From ", safe(cut(start, FILTER_TEXT)), " to ", safe(cut(end, FILTER_TEXT)))
            )
        if self.services.team_down:
            parts.append(Content("team store down: this machine's journal only"))
        older = self.query_one(JournalTable).not_shared
        if older:
            # Journaled here before the store was configured: shown, and how to share them.
            parts.append(
                Content(f"{older} not shared: bottui store sync --backfill shares this profile's")
            )
        if parts:  # a second line: only while another filter is on or the store is down
            line = join(line, "\n", Content(" · ").join(parts), " (/, F)")
        self.query_one("#journal-filters", Static).update(line)

    # -- filters ------------------------------------------------------------------------

    def action_cycle_project(self) -> None:
        """Show the current project's entries, or every project's."""
        project = "all" if self.filters.project == "current" else "current"
        self.filters = replace(self.filters, project=project, project_id=None)
        self._read_first()

    def action_cycle_operation(self) -> None:
        """Next operation filter: all, limiter, thresholds, revoke."""
        operation = _next(OPERATION_FILTERS, self.filters.operation)
        self.filters = replace(self.filters, operation=operation)
        self._read_first()

    def action_cycle_outcome(self) -> None:
        """Next outcome filter: all, unfinished, succeeded, failed, unknown."""
        outcome = _next(OUTCOME_FILTERS, self.filters.outcome)
        self.filters = replace(self.filters, outcome=outcome)
        self._read_first()

    def action_who_why(self) -> None:
        """The filter dialog, in the operator field."""
        self.action_filters(first="filter-operator")

    def action_filters(self, first: str = "filter-operation") -> None:
        """Every filter in one dialog: project, operation, outcome, operator, time, reason."""
        current = self.services.current
        session = self.services.session
        now = (session.clock or system_clock)()
        where = f"{clean(current[0])}/{clean(current[1])}" if current else None

        def chosen(result: JournalFilters | None) -> None:
            if result is not None:
                self.filters = result
                self._read_first()

        self.app.push_screen(FilterDialog(self.filters, where, now, first=first), chosen)

    def action_reload(self) -> None:
        """Read the journal again (another process may have written to it)."""
        self.refresh_data()

    # -- details ------------------------------------------------------------------------

    @on(DataTable.RowSelected, "#journal-table")
    def action_details(self) -> None:
        """Open the selected entry in full; a bulk run's row: its ids, page by page."""
        table = self.query_one(JournalTable)
        run = table.selected_run
        if run is not None:
            self.app.push_screen(RunDialog(run))
            return
        entry = table.selected
        if entry is None:
            self.notify("No entry selected.", markup=False)
            return
        self.app.push_screen(EntryDialog(entry))

    # -- export ----------------------------------------------------------------------------

    def action_export(self) -> None:
        """Write the entries the filters select (all of them, not only those shown)."""
        session = self.services.session
        query = journal_view.entry_query(self.query_now())
        moment = stamp((session.clock or system_clock)())
        default = f"bottui-journal-{moment[:10]}-{moment[11:19].replace(':', '')}.jsonl"
        count = self.query_one(JournalTable).row_count
        words = (
            "Every entry the filters select"
            if self._next is not None
            else f"The {count} entries the filters select"
        )
        self._export(JournalExportDialog(default, words), query)

    @work(exit_on_error=False)
    async def _export(self, dialog: JournalExportDialog, query: EntryQuery) -> None:
        """Write what ``query`` selects to the file the dialog names (cancelled: nothing)."""
        chosen = await self.services.ask(dialog)
        if chosen is None:
            return
        path, fmt, replace = chosen
        session = self.services.session
        with self.sending("Exporting the journal"):
            # Page by page, never the whole journal in memory; the keyring's
            # tokens are looked up (awaited) to mask them.
            stream = journal_view.EntryStream(session.journal_store, query, tokens=session.tokens)
            count = await journal_view.export_stream(stream, path, fmt, overwrite=replace)
        words = clean(f"Exported {count} entries to {path}")
        self.notify(words, title="Journal exported", markup=False)

    # -- undo ----------------------------------------------------------------------------

    def action_undo(self) -> None:
        """Undo the highlighted row (with confirmation); no row: the project's newest change."""
        start_undo(self, self.query_one(JournalTable).selected)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The journal gained an entry either way (failures: the base screen's handler,
        which Textual calls after this one: calling it here too reported each twice).

        Not after the screen's own journal read: that would start the next read,
        whose end starts the next, forever (the screen never idles).
        """
        if event.worker.is_finished and event.worker.group not in (JOURNAL_READS, OLDER_READS):
            self.refresh_data()


class Older(msgspec.Struct, frozen=True):
    """What an older read found: the entries to add, the counted rests of the
    runs it went past, the query to read on with, and the last page read."""

    entries: tuple[JournalEntry, ...]
    rests: dict[RunId, RunRest]
    query: EntryQuery
    page: EntryPage


#: Runs counted and skipped by one older read at most (then it shows what it has).
MAX_SKIPPED_RUNS: Final = 8


async def _read_older(
    store: JournalReader, table: JournalTable, query: EntryQuery, cursor: Cursor, *, go_past: bool
) -> Older:
    """The page after ``cursor``; a page that would add no row goes past the run it shows.

    A bulk run is one row: paging through a run of a million ids 200 at a
    time (5,000 reads) before the next row appears is what stalled
    ``ctrl+end``. When every entry read belongs to the run the last row
    shows, this machine's journal counts the rest of that run in SQL
    (:meth:`~bottui.store.journal.journal_store.SqliteJournalStore.run_rest`) and
    the read goes on without it (``skip_runs``): the entries between its
    ids that belong to no run, or to another, are still read, in order. Only
    when asked (``go_past``): the read made as the cursor nears the end loads
    the run page by page, its count saying more may follow.
    """
    page = await journal_view.read_page(store, query, limit=MORE_PAGE, cursor=cursor)
    entries = list(page.entries)
    rests: dict[RunId, RunRest] = {}
    while (
        go_past
        and isinstance(store, SqliteJournalStore)
        and page.next is not None
        and len(rests) < MAX_SKIPPED_RUNS
        and (run := table.only_run_shown(page.entries)) is not None
    ):
        rests[run] = await store.run_rest(query, run, EntryId(page.entries[-1].id))
        query = replace(query, skip_runs=query.skip_runs | {run})
        page = await journal_view.read_page(store, query, limit=MORE_PAGE, cursor=page.next)
        entries += page.entries
    return Older(tuple(entries), rests, query, page)


def _next(options: tuple[str | None, ...], value: str | None) -> str | None:
    index = options.index(value) if value in options else -1
    return options[(index + 1) % len(options)]


def start_undo(screen: BottuiScreen, entry: JournalEntry | None) -> None:
    """Plan the undo of ``entry`` (None: the current project's newest change), confirm, send."""
    operation = "Undo" if entry is None else f"Undo journal entry #{entry.id}"
    if not screen.services.refuse_if_read_only(operation):  # before planning: refused anyway
        screen.run_worker(
            _undo(screen, entry, operation), name="Planning", group="plan", exit_on_error=False
        )


async def _undo(screen: BottuiScreen, entry: JournalEntry | None, operation: str) -> None:
    """:func:`start_undo`'s worker: planned once (the dialog, the dry run and the request
    sent are this plan's), confirmed, sent, said."""
    services = screen.services
    session = services.session
    pages = services.journal_pages()
    current = services.current
    rows: list[undo.RowUndo] = []

    async def plan() -> PlannedChange[Any]:
        # Refusals (another project, a revocation, an unknown outcome...) are
        # reported like any error: the toast says why, nothing is sent.
        if entry is None:
            rows.append(await undo.plan_latest(session, pages, current))
        else:
            rows.append(await undo.plan_row(session, pages, entry, current))
        return await undo.plan_row_change(session, rows[0])

    change = await services.planned(plan(), operation)
    if change is None:
        return
    row = rows[0]
    ref = journal_view.entry_ref(row.plan.entry)
    prompt = ChangePrompt.of(change, undo_body(row), title=f"Undo journal entry {ref}?")
    change = await services.confirmed(change, prompt, operation)
    if change is None:
        return
    with screen.sending("Undoing"):
        applied = await undo.apply_row(session, pages, row, change)
    where = f"journal #{applied.journal_id}" if applied.journal_id is not None else "NOT journaled"
    screen.notify(
        clean(f"{row.plan.what} is {row.plan.restored} again ({where}, undoes {ref})"),
        title="Undone",
        markup=False,
    )
    # The ops layer taught the inventory: every screen reads it again.
    services.inventory_changed()


def undo_body(row: undo.RowUndo) -> Content:
    """The confirmation: which entry, what, before -> after, and what changed since."""
    plan = row.plan
    entry = plan.entry
    before = journal_view.value_text(plan.current) if plan.current is not None else "not known"
    lines: list[Content] = []
    warning = row.warning()
    if warning:
        lines.append(
            join(
                Content.styled(clean(warning[0]), "bold"),
                "\n",
                safe("\n".join(warning[1:]), keep_newlines=True),
            )
        )
    lines += [
        join(
            f"Journal entry {journal_view.entry_ref(entry)}, {journal_view.when(entry)}, by ",
            safe(entry.operator),
        ),
        join("Rate limiter " if plan.kind == "limiter" else "Dimension ", safe_id(plan.target_id)),
        join("Project ", safe_id(plan.project), ", account ", safe_id(plan.account)),
        join(
            "Now: ",
            safe(before),
            "\nAfter the undo: ",
            Content.styled(clean(plan.restored), "bold reverse"),
        ),
        Content(
            "A new request sets the value back"
            + (
                f"; the journal records it as the undo of #{plan.undoes}."
                if plan.undoes is not None
                else " (a teammate's change: journaled as a change of its own)."
            )
        ),
    ]
    return Content("\n").join(lines)
