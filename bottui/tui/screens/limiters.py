"""Rate limiters: the current project's limiters, switched on and off on purpose.

Rows come from the inventory (the API cannot list limiters): the team's
inventory file, projects the service returned, and ids added here with
``a``. A change is planned once (:func:`bottui.ops.planning.plan_limiter`), that
plan goes through the one confirmation (focus on Cancel, dry run, read-only,
protected), and the worker sends exactly it; the answer's project
is shown in a panel and the inventory, which the ops layer has taught, is
read again. The confirmation's body (:func:`limiter_body`) says what, where,
and what is known now; the change of every marked limiter at once is in
:mod:`bottui.tui.screens.limiter_dialogs`.

The screen's latest attempts (:class:`LimiterAttempts`): the panel
(:class:`~bottui.tui.widgets.result_panels.ReturnedProjectPanel`) shows the
current project's latest switch: the project the service returned, or the
failure (failed, or unknown when the request may have arrived). A limiter whose
last attempt did not succeed is marked on its row ("last try FAILED (e)") until
a switch of it succeeds. Kept per project, in memory. Shown against the rows
the table shows: a panel whose answer says otherwise than the table now (an
undo, a timed revert, another bottui's change) says it is history and what each
is now (#27). The messages of an attempt's end (:class:`LimiterSet`,
:class:`LimiterFailed`, :class:`MarkedSwitched` for a change of many) live here too.

The dialogs and the mutations are imported where they are used: this is the
screen ``bottui demo`` opens on, and its first frame needs neither
(``tests/tui/test_startup_machinery.py``).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from bottui.api.errors import RefusedError
from bottui.ops.inventory_reads import first_limiters, inventory_version, read_all_limiters
from bottui.plaintext import clean
from bottui.store.paging import Cursor, Page
from bottui.store.utc import stamp, system_clock
from bottui.tui.change_prompt import READ_ONLY_REASON
from bottui.tui.error_report import EXPECTED_ERRORS
from bottui.tui.screens.base import NO_PROJECT, FilterableScreen, on_answer, project_words, say
from bottui.tui.ui_rules import show_widget
from bottui.tui.widgets.limiter_table import (
    SOURCE_LEGEND,
    SOURCE_PHRASES,
    LimiterTable,
    flagged_source,
    short_time,
    state_word,
    taught_words,
)
from bottui.tui.widgets.untrusted_text import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.api.models import LimiterChange
    from bottui.ops.mutations import Applied
    from bottui.ops.planning import PlannedChange
    from bottui.store.inventory.inventory_records import LimiterEntry
    from bottui.tui.error_report import Failure
    from bottui.tui.screens.limiter_dialogs import LimiterResult
    from bottui.tui.widgets.result_panels import ReturnedProjectPanel


Project = tuple[str, str]


class LimiterSet(Message):
    """A rate limiter change was answered."""

    # A plain __init__, not a dataclass: this module is on the way to the
    # demo's first frame, and a dataclass costs ~0.3 ms to define there.
    def __init__(
        self,
        account: str,
        project: str,
        applied: Applied[LimiterChange],
        known_before: frozenset[str],
    ) -> None:
        super().__init__()
        self.account = account
        self.project = project
        self.applied = applied
        self.known_before = known_before


class MarkedSwitched(Message):
    """Every marked limiter's change was sent (or not): the results, in order."""

    def __init__(self, verb: str, results: list[LimiterResult]) -> None:
        super().__init__()
        self.verb = verb
        self.results = results


class LimiterFailed(Message):
    """A rate limiter change failed, or its outcome is unknown (the error log has it whole)."""

    def __init__(
        self,
        account: str,
        project: str,
        limiter_id: str,
        failure: Failure,
        where: str,
        at: str,
        stamped: str | None = None,
    ) -> None:
        super().__init__()
        self.account = account
        self.project = project
        self.limiter_id = limiter_id
        self.failure = failure
        self.where = where
        self.at = at
        #: When it failed, as the inventory stamps what it learns (None: not known).
        self.stamped = stamped


class LimiterAttempts:
    """Each project's latest attempt (for the panel) and each limiter's failed one (marks)."""

    def __init__(self) -> None:
        #: ``("set", change, known_before)`` or ``("failed", failure, where, at)``.
        self._latest: dict[Project, tuple[Any, ...]] = {}
        #: (account, project, limiter id) -> (FAILED/UNKNOWN, when, as the inventory stamps).
        self._marks: dict[tuple[str, str, str], tuple[str, str | None]] = {}

    def answered(
        self,
        project: Project,
        change: LimiterChange,
        known_before: Collection[str],
        at: str | None = None,
    ) -> None:
        """A switch was answered (at ``at``, UTC): the project's latest, its limiter's mark gone."""
        self._latest[project] = ("set", change, known_before, at)
        self._marks.pop((*project, change.limiter_id), None)

    def failed(self, message: LimiterFailed) -> None:
        """A switch failed or its outcome is unknown: the latest, and a mark on its row."""
        project = (message.account, message.project)
        self._latest[project] = ("failed", message.failure, message.where, message.at)
        mark = "UNKNOWN" if message.failure.unknown else "FAILED"
        self._marks[(*project, message.limiter_id)] = (mark, message.stamped)

    def forget(self, project: Project) -> None:
        """The panel was hidden: nothing to show for ``project`` until the next attempt."""
        self._latest.pop(project, None)

    def show(
        self,
        panel: ReturnedProjectPanel,
        project: Project | None,
        rows: Mapping[str, bool | None] | None = None,
    ) -> None:
        """``project``'s latest attempt on ``panel``, or the panel hidden.

        ``rows``: the states the table shows now (limiter id -> state); the
        panel says it is history where the answer says otherwise.
        """
        latest = self._latest.get(project) if project is not None else None
        if latest is None:
            panel.hide()
        elif latest[0] == "set":
            from bottui.tui.widgets.result_panels import since_changed

            change, known_before, at = latest[1:]
            since = since_changed(change, rows) if rows is not None else {}
            panel.show(change, known_before, at, since)
        else:
            failure, where, at = latest[1:]
            panel.show_failure(failure, safe(where), at)

    def marked(self, project: Project, entry: LimiterEntry) -> LimiterEntry:
        """The row, marked when its last attempt failed or its outcome is unknown.

        Not once a state was learnt after it (another bottui's switch, a
        teammate's): "last try FAILED" beside a state set since would be stale.
        """
        key = (*project, entry.id)
        found = self._marks.get(key)
        if found is None:
            return entry
        mark, stamped = found
        if stamped is not None and entry.is_active is not None and entry.known_at > stamped:
            del self._marks[key]
            return entry
        return entry._replace(source=flagged_source(mark, entry.source))


def phrase(source: str, known_at: str) -> str:
    """How a state is known, for the confirmation's sentence."""
    words = taught_words(source, known_at)
    if words is not None:
        return words
    return clean(SOURCE_PHRASES.get(source, source))


def limiter_body(
    plan: PlannedChange[Any],
    limiter_name: str | None,
    new_state: bool,
    project: Content,
    flying: bool | None,
) -> Content:
    """A limiter change's confirmation body, from the plan.

    ``limiter_name`` is the table's, ``project`` the plan's (:func:`project_words`), ``flying``
    the state of a switch of this limiter still in flight (None: none).
    """
    name = join(" (", safe(limiter_name), ")") if limiter_name else Content("")
    known = plan.previous
    if flying is not None:
        # The inventory learns the state only from the answer: until then it is stale.
        now = Content.styled(
            f"A switch to {'ON' if flying else 'OFF'} is in flight, not answered yet: "
            "its answer decides the state now.",
            "bold",
        )
    elif known is None or "isActive" not in known.value:
        now = Content("Its state now is not known.")
    else:
        now = join(
            "Last known: ",
            state_word(bool(known.value["isActive"])),
            f" since {short_time(known.known_at)} UTC",
            f" ({phrase(known.source, known.known_at)}).",
        )
    # Imported here: the plan's models are not on the way to the first frame.
    from bottui.ops.planning import LimiterTarget

    target = plan.target
    assert isinstance(target, LimiterTarget)
    return join(
        "Rate limiter ",
        safe_id(target.limiter_id),
        name,
        "\nProject ",
        project,
        "\nNew state: ",
        Content.styled("ON" if new_state else "OFF", "bold reverse"),
        "\n",
        now,
    )


READING = "Reading this project's rate limiters from the inventory…"
NO_LIMITER = (
    "No rate limiter id known for this project, and the API cannot list them. Press a to "
    "add an id, or import the team's inventory file (bottui inventory import FILE)."
)


def _how_known(entry: LimiterEntry) -> LimiterEntry:
    """The row as shown: a teammate-taught source in words ("from bob's change 03:12")."""
    words = taught_words(entry.source, entry.known_at)
    return entry if words is None else entry._replace(source=words)


class LimitersScreen(FilterableScreen):
    """The current project's rate limiters: state, how it is known, and the switch."""

    SCREEN_TITLE: ClassVar[str] = "Rate limiters"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "mark", "Mark", id="limiters.mark"),
        Binding("t", "toggle_limiter", "Toggle", id="limiters.toggle"),
        Binding("o", "enable", "Enable", id="limiters.enable"),
        Binding("f", "disable", "Disable", id="limiters.disable"),
        Binding("asterisk", "mark_all", "Mark all shown", show=False, id="limiters.mark_all"),
        Binding("a", "add", "Add id", id="limiters.add"),
        Binding("x", "forget", "Forget id", id="limiters.forget"),
        Binding(
            "escape",
            "hide_panel",
            "Clear filter / hide returned project",
            show=False,
            id="limiters.hide",
        ),
    ]
    #: Row actions: the palette asks which limiter (see bottui.tui.key_registry).
    TARGETS: ClassVar[dict[str, type]] = dict.fromkeys(
        ("toggle_limiter", "enable", "disable", "forget"), LimiterTable
    )

    def __init__(self) -> None:
        super().__init__()
        #: The project whose returned copy the panel shows.
        self._panel_for: tuple[str, str] | None = None
        #: The project and inventory marker of the rows shown (all of them):
        #: the same again, the screen shows them without reading them again.
        self._shown: tuple[tuple[str, str], Hashable] | None = None
        #: The project whose rows the table holds (read again whole, not a page first).
        self._rows_of: tuple[str, str] | None = None
        #: Each project's latest attempt (the panel) and failed limiters (row marks).
        self._attempts = LimiterAttempts()
        #: The states the table shows (limiter id -> state) for the panel's comparison.
        self._states: dict[str, bool | None] = {}
        #: (account, project, limiter id) -> the state a switch in flight asks for.
        self._in_flight: dict[tuple[str, str, str], bool] = {}

    def compose_body(self) -> ComposeResult:
        yield Static(Content(self.SCREEN_TITLE), id="limiters-title", classes="screen-title")
        yield Static(Content(NO_PROJECT), id="limiters-empty", classes="hint")
        yield LimiterTable(id="limiters-table")
        yield Static(Content(SOURCE_LEGEND), id="limiters-legend", classes="hint")
        yield Static("", id="limiters-marks", classes="hint")
        # The returned project panel is mounted with the first answer: most
        # sessions never need it, and the first frame is faster without it.

    # -- reading ------------------------------------------------------------------

    def refresh_data(self) -> None:
        table = self.query_one(LimiterTable)
        empty = self.query_one("#limiters-empty", Static)
        legend = self.query_one("#limiters-legend", Static)
        current = self.services.current
        self.query_one("#limiters-title", Static).update(self.project_title())
        if current != self._panel_for:
            self._show_latest(current)
        if current != self._rows_of:
            table.set_marks(list(table.marked), False)  # marks belong to one project
        if current is None:
            say(empty, Content(NO_PROJECT))
            legend.display = False
            show_widget(table, False)
            table.show([])
            self._shown = self._rows_of = None
            return
        table.display = legend.display = True
        account, project = current
        if self._rows_of != current:
            # Until its rows are read: not the "no project" words it was composed with.
            say(empty, Content(READING))

        def show_first(found: tuple[Hashable | None, Page[LimiterEntry] | None]) -> None:
            version, page = found
            if page is None or self.services.current != current:
                return  # unchanged since shown, or another project chosen meanwhile
            show(list(page.items))
            if page.next is None:
                self._shown = (current, version)
                return
            # The rest after the first frame (the table adds it below the first page).
            first, after = list(page.items), page.next

            async def rest() -> list[LimiterEntry]:
                return first + await self._read(account, project, after)

            def show_all(entries: list[LimiterEntry]) -> None:
                if self.services.current == current and len(entries) > len(first):
                    show(entries)
                    self._shown = (current, version)

            # Once the first page is drawn: the read's thread would compete with it for the GIL.
            self.load_after_refresh(rest, show_all, group="limiters", after=table.call_after_drawn)

        def show(entries: list[LimiterEntry]) -> None:
            table.show([self._attempts.marked(current, _how_known(entry)) for entry in entries])
            self._rows_of = current
            self._states = {entry.id: entry.is_active for entry in entries}
            self._show_latest(current)  # the panel against the rows now: history if changed
            self._show_marks()
            say(empty, None if entries else Content(NO_LIMITER))

        # The project's rows already shown are read again whole, and updated in
        # place: a first page alone would replace them (and lose the cursor).
        whole = self._rows_of == current
        self.load(partial(self._read_first, current, whole), show_first, group="limiters")

    async def _read_first(
        self, current: tuple[str, str], whole: bool
    ) -> tuple[Hashable | None, Page[LimiterEntry] | None]:
        """The inventory's marker and the first page, or every row if ``whole``.

        No page when nothing changed since the rows shown were read.
        """
        services = self.services
        try:
            version = await inventory_version(services.session)
            if version is not None and self._shown == (current, version):
                return version, None
            if whole:
                rows = await read_all_limiters(services.session, *current)
                return version, Page(tuple(rows), None)
            return version, await first_limiters(services.session, *current)
        except EXPECTED_ERRORS as exc:
            services.report(exc)
            return None, Page((), None)

    async def _read(
        self, account: str, project: str, after: Cursor | None = None
    ) -> list[LimiterEntry]:
        services = self.services
        try:
            return await read_all_limiters(services.session, account, project, after=after)
        except EXPECTED_ERRORS as exc:
            services.report(exc)
            return []

    def _selected(self) -> tuple[str, str, LimiterEntry] | None:
        """The current project and the limiter under the cursor, or a toast saying why not."""
        current = self.current_or_say()
        if current is None:
            return None
        entry = self.query_one(LimiterTable).selected
        if entry is None:
            self.notify("No rate limiter selected. Press a to add an id.", markup=False)
            return None
        return current[0], current[1], entry

    def leave_profile(self) -> list[str]:
        """Marks name the old profile's limiters: unmarked, and said how many."""
        dropped = super().leave_profile()
        table = self.query_one(LimiterTable)
        if table.marked:
            count = len(table.marked)
            table.set_marks(list(table.marked), False)
            self._show_marks()
            dropped.append(f"{count} marked rate limiter{'s' if count != 1 else ''} unmarked")
        return dropped

    # -- switching ------------------------------------------------------------------

    def action_toggle_limiter(self) -> None:
        """Switch the selected limiter to the other state; ask when its state is unknown."""
        row = self.query_one(LimiterTable).selected
        what = f"Switch rate limiter {row.id}" if row is not None else "Switch a rate limiter"
        if self.services.refuse_if_read_only(what):  # before the choice
            return
        selected = self._selected()
        if selected is not None:
            entry = selected[2]
            self._switch_one(*selected, None if entry.is_active is None else not entry.is_active)

    def action_enable(self) -> None:
        """Switch the marked limiters, or else the selected one, ON (after confirmation)."""
        self._switch(True)

    def action_disable(self) -> None:
        """Switch the marked limiters, or else the selected one, OFF (after confirmation)."""
        self._switch(False)

    def _switch(self, new_state: bool) -> None:
        services = self.services
        if services.refuse_if_read_only(f"Switch rate limiters {'ON' if new_state else 'OFF'}"):
            return
        table = self.query_one(LimiterTable)
        # The palette's picked limiter wins over the marks: it named one.
        if table.marked and not table.picking and services.current is not None:
            if services.read_only:  # a dry run too: refused before anything is planned
                services.report(RefusedError("Read-only profile", READ_ONLY_REASON))
            else:
                self._switch_marked(*services.current, new_state)
            return
        selected = self._selected()
        if selected is not None:
            self._switch_one(*selected, new_state)

    # -- marks --------------------------------------------------------------------

    def action_mark(self) -> None:
        """Mark or unmark the highlighted limiter, then go to the next row."""
        table = self.query_one(LimiterTable)
        if self._selected() is None:
            return
        entry = table.selected
        assert entry is not None
        table.set_marks([entry.id], entry.id not in table.marked)
        table.action_cursor_down()
        self._show_marks()

    def action_mark_all(self) -> None:
        """Mark every limiter shown; when all are marked already, unmark them."""
        table = self.query_one(LimiterTable)
        shown = [entry.id for entry in table.entries]
        if not shown:
            self._selected()  # says why nothing is there
            return
        table.set_marks(shown, not table.marked.issuperset(shown))
        self._show_marks()

    def _show_marks(self) -> None:
        """The line saying how many limiters are marked, and what o and f do with them."""
        hint = self.query_one("#limiters-marks", Static)
        table = self.query_one(LimiterTable)
        hint.display = bool(table.marked)
        if table.marked:
            from bottui.tui.screens.limiter_dialogs import marks_line

            hint.update(marks_line(len(table.marked), len(table.hidden_marks)))

    @work(group="change", exit_on_error=False)
    async def _switch_one(
        self, account: str, project: str, entry: LimiterEntry, new_state: bool | None
    ) -> None:
        """Plan the switch once, confirm that plan, send exactly it; its answer or its
        failure goes to the panel.

        ``new_state`` None: its state is unknown, and the operator says which to send
        (bottui does not guess the opposite of a state it does not know).
        """
        from bottui.ops.mutations import apply
        from bottui.ops.planning import plan_limiter
        from bottui.tui.change_prompt import ChangePrompt
        from bottui.tui.error_report import Attempt, Failure

        services = self.services
        session = services.session
        if new_state is None:
            from bottui.tui.screens.limiter_dialogs import ChooseStateDialog

            new_state = await services.ask(ChooseStateDialog(entry.id, entry.name, project))
            if new_state is None:
                return
        known_before = frozenset(e.id for e in self.query_one(LimiterTable).all_entries)
        operation = f"Switch rate limiter {entry.id} {'ON' if new_state else 'OFF'}"
        planning = plan_limiter(session, account, project, entry.id, new_state)
        plan = await services.planned(planning, operation)
        if plan is not None:
            prompt = ChangePrompt.of(plan, self._body(plan, entry.name, new_state))
            plan = await services.confirmed(plan, prompt, operation)
        if plan is None:
            return
        where = f"rate limiter {entry.id} → {'ON' if new_state else 'OFF'}"
        attempt = Attempt.of_plan(plan, "Switch rate limiter", where)
        key = (account, project, entry.id)
        self._in_flight[key] = new_state
        try:
            with self.sending("Switching rate limiter", attempt):
                applied = await apply(session, plan, confirmed=True)
        except BaseException as exc:
            moment = (session.clock or system_clock)()
            failure = Failure.of(exc, attempt)
            at = moment.strftime("%H:%M:%S")
            self.post_message(
                LimiterFailed(account, project, entry.id, failure, where, at, stamp(moment))
            )
            raise
        finally:
            self._in_flight.pop(key, None)
        self.post_message(LimiterSet(account, project, applied, known_before))

    @work(group="change", exit_on_error=False)
    async def _switch_marked(self, account: str, project: str, new_state: bool) -> None:
        """Plan every marked limiter's change, confirm them once, send them one by one,
        then list how each ended."""
        from bottui.tui.screens.limiter_dialogs import confirmed_marked, send_all
        from bottui.tui.widgets.bulk_words import plural

        table = self.query_one(LimiterTable)
        entries = table.marked_entries
        plans = await confirmed_marked(
            self, account, project, entries, table.hidden_marks, new_state
        )
        if not plans:
            return
        verb = "Enable" if new_state else "Disable"
        names = {entry.id: entry.name for entry in entries}
        with self.sending(f"{verb} {plural(len(plans), 'rate limiter')}"):
            results = await send_all(self, plans, names)
        self.post_message(MarkedSwitched(verb, results))

    def _body(self, plan: PlannedChange[Any], limiter_name: str | None, new_state: bool) -> Content:
        """The confirmation's body, from the plan (the limiter's name is the table's)."""
        target = plan.target
        flying = self._in_flight.get(
            (plan.account, plan.project, getattr(target, "limiter_id", ""))
        )
        project = project_words(self.services, plan.account, plan.project)
        return limiter_body(plan, limiter_name, new_state, project, flying)

    def _panel(self) -> ReturnedProjectPanel | None:
        """The result panel, once the first attempt's end mounted it."""
        found = self.query("#returned-project")
        return found.first() if found else None  # type: ignore[return-value]

    async def _mounted_panel(self) -> ReturnedProjectPanel:
        """The panel, mounted with the first attempt's end."""
        panel = self._panel()
        if panel is None:
            from bottui.tui.widgets import result_panels

            panel = result_panels.ReturnedProjectPanel(id="returned-project", classes="panel")
            await self.mount(panel, after=self.query_one("#limiters-legend"))
        return panel

    def _show_latest(self, current: tuple[str, str] | None) -> None:
        """The panel shows ``current``'s latest attempt, or nothing."""
        panel = self._panel()
        self._panel_for = current
        if panel is not None:
            rows = self._states if current is not None and self._rows_of == current else None
            self._attempts.show(panel, current, rows)

    @on_answer(LimiterSet)
    async def _limiter_set(self, message: LimiterSet) -> None:
        key = (message.account, message.project)
        await self._mounted_panel()
        at = (self.services.session.clock or system_clock)().strftime("%H:%M:%S")
        change = message.applied.value
        self._attempts.answered(key, change, message.known_before, at)
        if self._rows_of == key:  # what the answer taught the inventory, until read again
            self._states.update({lim.id: lim.is_active for lim in change.project.rate_limiters})
            self._states[change.limiter_id] = change.is_active
        self._show_latest(self.services.current)
        # The ops layer taught the inventory: every screen reads it again.
        # No toast: the panel's first line says what happened.
        self.services.inventory_changed()

    @on_answer(LimiterFailed)
    async def _limiter_failed(self, message: LimiterFailed) -> None:
        await self._mounted_panel()
        self._attempts.failed(message)
        self._show_latest(self.services.current)
        self._shown = None  # the same inventory, shown again with the mark
        self.refresh_data()

    @on(LimiterTable.Filtered)
    def _marks_after_filter(self) -> None:
        self._show_marks()  # how many marks the filter hides

    @on_answer(MarkedSwitched)
    def _marked_switched(self, message: MarkedSwitched) -> None:
        from bottui.tui.screens.limiter_dialogs import OK, MarkedResultsDialog

        table = self.query_one(LimiterTable)
        # Those not ok stay marked, so o or f tries them again.
        table.set_marks([r.limiter_id for r in message.results if r.outcome == OK], False)
        self._show_marks()
        self.app.push_screen(MarkedResultsDialog(message.verb, message.results))
        self.services.inventory_changed()

    def action_hide_panel(self) -> None:
        """Clear the filter if one is kept, or else hide the returned project panel."""
        if self.clear_filter():
            return
        panel = self._panel()
        if panel is not None:
            current = self.services.current
            if current is not None:
                self._attempts.forget(current)
            panel.hide()

    # -- the inventory ---------------------------------------------------------------

    def action_add(self) -> None:
        """Add a rate limiter id to the inventory (nothing is sent)."""
        current = self.current_or_say()
        if current is not None:
            self._add_limiter(*current)

    @work(name="limiters-edit", group="limiters-edit", exit_on_error=False)
    async def _add_limiter(self, account: str, project: str) -> None:
        """Ask for the id, add it to the inventory, then show the rows with it selected."""
        from bottui.ops.inventory_edits import add_limiter
        from bottui.tui.screens.limiter_dialogs import AddLimiterDialog

        added = await self.services.ask(AddLimiterDialog(project))
        if added is None:
            return
        limiter_id, name = added
        await add_limiter(self.services.session, account, project, limiter_id, name)
        entries = await self._read(account, project)
        self.services.flush_warnings()
        self.services.inventory_changed()
        self.query_one(LimiterTable).show(entries, select=limiter_id)

    def action_forget(self) -> None:
        """Remove the selected limiter from the inventory (the service keeps it)."""
        selected = self._selected()
        if selected is not None:
            self._forget_limiter(*selected)

    @work(name="limiters-edit", group="limiters-edit", exit_on_error=False)
    async def _forget_limiter(self, account: str, project: str, entry: LimiterEntry) -> None:
        """Remove the id from the inventory once the operator said so."""
        from bottui.ops.inventory_edits import forget_limiter
        from bottui.tui.screens.change_form import ConfirmDialog

        body = join(
            "Remove rate limiter ",
            safe_id(entry.id),
            " of project ",
            safe_id(project),
            " from this profile's inventory.\n"
            "Nothing is sent: the service keeps the limiter, and a later answer "
            "that lists it brings it back.",
        )
        dialog = ConfirmDialog("Forget rate limiter?", body, "Forget", danger=False)
        if await self.services.ask(dialog):
            await forget_limiter(self.services.session, account, project, entry.id)
            self.services.flush_warnings()
            self.services.inventory_changed()
