"""What screens and dialogs use of the running app: one typed service object.

The app creates one :class:`TuiServices` and hands it to every screen and
dialog (:func:`services_of`), so none of them imports or reaches into the
app class: the session, the current project, reporting an error (through
the one renderer, :mod:`bottui.tui.error_report`; :func:`worker_failed`, the one
handler of every worker's failure), confirming a change, the working indicator,
the inventory-changed notification and the session's warnings all live here. The app keeps only
what needs the screens themselves (delivering a message to every screen,
redrawing every context bar) and passes those two in as callables. The two
messages the services broadcast to every main screen are defined here
(:class:`ProjectChosen`, :class:`InventoryChanged`; nothing in them holds a
token), and :data:`START_DEMO`, what the app returns to the CLI when the
operator chose the demo on the first-run welcome.

Screens reach the stores through ``services.session``'s async facades
(``journal_store``, ``inventory_store``, ``config_store``), awaited in
workers through :mod:`bottui.ops` (changes, inventory and profile edits):
never a store call on the event loop. Project names, which every context bar shows,
are read into a cache by one worker (:meth:`TuiServices.inventory_changed`)
so :meth:`TuiServices.project_name` needs no I/O.

Team mode: the push runs on a thread of its own
(:class:`~bottui.ops.team_push.SharingThread`); the Journal screen reads
the shared journal on the app's loop with a connection of its own
(:meth:`TuiServices.journal_pages`). The store counts as down for the Journal
screen when the push's last attempt failed, or a read of the shared journal
failed: a push with nothing to send does not reach the store, so only a push
that gets through (or a later read) clears a failed read, and reads try the
store again at most every :data:`READ_RETRY` seconds.

A change action reads top to bottom in one ``@work`` method of its screen:
``plan = await services.planned(plan_limiter(...))`` (planned once: the dialog,
the dry run and the request sent are this plan's), ``plan = await
services.confirmed(plan, prompt)`` (the dialog awaited with :meth:`TuiServices.ask`,
``push_screen_wait``), then it sends the plan and posts a message with the answer.
A worker waiting for a dialog is in :attr:`TuiServices.asking`.

Timed changes (#15): a confirmation's answer is a
:class:`~bottui.tui.change_prompt.Decided` (the reason, and the duration
typed, if any); :meth:`TuiServices.decided_plan` turns it into the plan to
send (:meth:`~bottui.ops.planning.PlannedChange.with_revert_after`, whose
refusals are reported like any other). Before the dialog,
:meth:`TuiServices.timed_prompt` asks the journal (through its async facade,
in the planning worker) whether any executor is known, so the confirmation
can warn that nothing would perform the revert. The header's countdown is
:attr:`TuiServices.timed_text`, kept by the app's
:class:`~bottui.tui.timed_changes.TimedRunner`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, Final, TypeVar

from msgspec.structs import replace
from textual.app import ScreenStackError
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from bottui.api.errors import BottuiError, CredentialsError, RefusedError
from bottui.api.requests import request_lines, to_curl
from bottui.ops.confirmation import ConfirmKind, reason_refusal_text, required
from bottui.ops.inventory_reads import inventory_version, read_all_projects
from bottui.ops.session import Session
from bottui.plaintext import clean
from bottui.store.executor import run_blocking
from bottui.store.store_errors import StoreError
from bottui.store.utc import system_clock
from bottui.tui import lazy
from bottui.tui.change_prompt import READ_ONLY_REASON, Decided
from bottui.tui.error_report import (
    EXPECTED_ERRORS,
    Attempt,
    ErrorLog,
    attempt_of,
    error_toast,
    tag,
    token_hint,
)

if TYPE_CHECKING:
    from textual.app import App
    from textual.message_pump import MessagePump

    from bottui.api.requests import PreparedRequest
    from bottui.ops.planning import PlannedChange
    from bottui.ops.shared_journal import SharedJournal
    from bottui.ops.team_push import SharingThread, SyncState
    from bottui.store.journal.journal_records import JournalReader
    from bottui.store.journal.journal_store import SqliteJournalStore
    from bottui.store.team.pg_store import TeamStore
    from bottui.store.team.read_rows import Unreadable
    from bottui.tui.bulk_runs import BulkRuns
    from bottui.tui.change_prompt import ChangePrompt
    from bottui.tui.screens.change_form import ConfirmDialog, TypedConfirmDialog
    from bottui.tui.screens.dialogs import DryRunDialog, ErrorLogScreen
    from bottui.tui.timed_changes import TimedRunner

#: Seconds after a failed read of the shared journal before a read tries it again.
READ_RETRY: Final = 15.0

#: What :func:`bottui.tui.launch.run_app` returns when the operator chose "Start the demo" on
#: the first-run welcome: the CLI then runs ``bottui demo`` (the tui layer may not
#: import :mod:`bottui.demo`). Never a process exit code.
START_DEMO: Final = -1


# -- the messages the services broadcast to the screens ----------------------------------
# Workers only call bottui.ops and post one of these; handlers update widgets.


class ProjectChosen(Message):
    """The operator chose the current project (None: no project)."""

    # A plain __init__, not a dataclass: defined before the first frame,
    # where a dataclass costs ~0.3 ms.
    def __init__(self, account: str | None, project: str | None) -> None:
        super().__init__()
        self.account = account
        self.project = project


class InventoryChanged(Message):
    """The inventory changed: screens that show it refresh."""


T = TypeVar("T")
C = TypeVar("C")


class TuiServices:
    """The app's services, typed, for screens and dialogs.

    Args:
        host: The running app (toasts and dialogs are shown on it).
        session: Settings, stores and client for this run.
        current: The project to start on, ``(account, project)``.
        demo: True under ``bottui demo``.
        broadcast: Posts a fresh message to each main screen.
        show_work: Redraws the working indicator of every context bar.
    """

    def __init__(
        self,
        host: App[Any],
        session: Session,
        *,
        current: tuple[str, str] | None,
        demo: bool,
        broadcast: Callable[[Callable[[], Message]], None],
        show_work: Callable[[], None],
    ) -> None:
        #: The running app (toasts, dialogs, workers).
        self.host = host
        self.session = session
        self._current = current
        self.demo = demo
        #: Dry run: changes show their request(s) and curl instead of sending.
        self.dry_run = False
        self._broadcast = broadcast
        #: Redraws every context bar's flags (working indicator, team store state).
        self.redraw_bars = show_work
        self._work: list[str] = []
        #: The last error reported (shown whole from the error log).
        self.last_error: BaseException | None = None
        #: This session's errors, newest first (``e`` lists them).
        self.errors = ErrorLog()
        #: Names the inventory knows for projects (filled by :meth:`load_names`).
        self._names: dict[tuple[str, str], str] = {}
        #: The inventory's marker when the names were read (see ``load_names``).
        self._names_version: Hashable | None = None
        #: The session's bulk run (made when first asked for: not on the first frame).
        self._bulk: BulkRuns | None = None
        #: What waits for the first frames (None once they are out: see after_start).
        self._after_start: list[Callable[[], object]] | None = []
        #: The header's countdown ("" when no timed change is pending).
        self.timed_text = ""
        #: The app's executor and countdown (set once it starts: after the first frame).
        self.timed_runner: TimedRunner | None = None
        #: The workers waiting for the operator's answer to a dialog, and that answer.
        self.asking: dict[Worker[Any], asyncio.Future[Any]] = {}
        self._reset_team()

    def after_start(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once start-up's first frames are out (soon, if they are).

        For work no key has asked for yet (a screen's hidden filter line): a
        screen's own ``call_after_refresh`` may run before the first frame,
        whose paint start-up holds back, and so would delay it.
        """
        if self._after_start is None:
            self.host.call_later(callback)
        else:
            self._after_start.append(callback)

    def started(self) -> None:
        """The first frames are out: what waited for them runs now (the app calls this)."""
        waiting, self._after_start = self._after_start or [], None
        for callback in waiting:
            self.host.call_later(callback)

    @property
    def bulk(self) -> BulkRuns:
        """The session's bulk run: owned here, so it goes on whatever screen is shown."""
        if self._bulk is None:
            bulk_runs: type[BulkRuns] = lazy.load("BulkRuns")
            self._bulk = bulk_runs(self)
        return self._bulk

    @property
    def bulk_text(self) -> str:
        """What the header says of the bulk run ("" when there is none to tell of)."""
        return "" if self._bulk is None else self._bulk.header_text()

    # -- the current project -------------------------------------------------------

    @property
    def current(self) -> tuple[str, str] | None:
        """The current project, ``(account, project)``, or None."""
        return self._current

    @property
    def read_only(self) -> bool:
        """True when the profile refuses every change."""
        return self.session.settings.read_only

    def choose_project(self, account: str | None, project: str | None) -> None:
        """Make a project current for every screen."""
        self._current = (account, project) if account and project else None
        self._broadcast(partial(ProjectChosen, account, project))

    def forget_profile_state(self) -> None:
        """The session now works under another profile: its defaults become current.

        The cached project names were the old profile's inventory's; the
        last error was the old profile's too. Nothing is broadcast here: the
        caller (:mod:`bottui.tui.quit_or_switch`) does once all is in place.
        """
        settings = self.session.settings
        self._current = (
            (settings.account, settings.project) if settings.account and settings.project else None
        )
        self._names = {}
        self._names_version = None
        self.last_error = None

    def project_name(self, account: str, project: str) -> str | None:
        """The display name the inventory knows for a project (from the cache: no I/O)."""
        return self._names.get((account, project))

    async def load_names(self) -> None:
        """Read every project's name from the inventory into the cache.

        A damaged or locked inventory leaves the cache as it was: the
        Projects screen says what is wrong. Not read again while the
        inventory's marker is the one of the last read (thousands of projects).
        """
        try:
            version = await inventory_version(self.session)
            if version is not None and version == self._names_version:
                return
            entries = await read_all_projects(self.session)
        except EXPECTED_ERRORS:
            return
        self._names = {(e.account, e.project): e.name for e in entries if e.name}
        self._names_version = version

    def inventory_changed(self) -> None:
        """Read the project names again, then tell every screen that the inventory changed."""

        async def reload() -> None:
            try:
                await self.load_names()
            finally:
                self._broadcast(InventoryChanged)
                self._tell_shown_screen()  # the Timed screen over them, say
                self.timed_changed()  # a change may have scheduled a revert: the header

        self.host.run_worker(
            reload(), name="project names", group="project-names", exit_on_error=False
        )

    def _tell_shown_screen(self) -> None:
        # The broadcast reaches each mode's base screen; a screen shown over them
        # that reads the stores too (the Timed screen) hears of the change as well.
        try:
            screen = self.host.screen
        except ScreenStackError:
            return
        if len(self.host.screen_stack) > 1:
            screen.post_message(InventoryChanged())

    # -- working indicator -----------------------------------------------------------

    @contextmanager
    def working(self, label: str) -> Iterator[None]:
        """The indicator says ``label`` while the block runs."""
        self.begin_work(label)
        try:
            yield
        finally:
            self.end_work(label)

    def begin_work(self, label: str) -> None:
        """A call started: show it in every context bar."""
        self._work.append(label)
        self.redraw_bars()

    def end_work(self, label: str) -> None:
        """A call ended."""
        if label in self._work:
            self._work.remove(label)
        self.redraw_bars()

    @property
    def work_text(self) -> str:
        """What the working indicator says: the latest call under way, "" when none."""
        if not self._work:
            return ""
        more = len(self._work) - 1
        return self._work[-1] + (f" (+{more})" if more else "")

    # -- errors and warnings ---------------------------------------------------------

    def report(
        self, error: BaseException, *, attempt: Attempt | None = None, operation: str = ""
    ) -> None:
        """The one place a failure becomes a toast and an entry of the error log (``e``).

        ``attempt`` says what was being done (else the one the error was
        tagged with, :func:`~bottui.tui.error_report.tag`); ``operation`` names
        it when nothing else does (a worker's label, the change refused).
        A refusal with no attempt is logged against the current project.
        """
        self.last_error = error
        attempt = attempt or attempt_of(error)
        target = ""
        if attempt is None and isinstance(error, RefusedError) and self.current is not None:
            target = "{} / {}".format(*self.current)
        now = (self.session.clock or system_clock)()
        self.errors.add(error, now, attempt, operation, target)
        toast = error_toast(error)
        fix = token_hint(error, attempt, short=True)  # the whole hint is in the log and panel
        message = f"{toast.message}\n{fix}" if fix else toast.message
        self.host.notify(message, title=toast.title, severity="error", timeout=8, markup=False)
        self._refresh_open_log()
        if isinstance(error, RefusedError | CredentialsError):
            # A change refused before its dialog opened ("Cannot undo", read-only, no
            # token): what the operator typed for that dialog must not act on the
            # screen ("shop-prod" opened the error log with its "e"), #24.
            guard = getattr(self.host, "typeahead", None)  # bottui's app: ui_rules.TypeaheadGuard
            if guard is not None:
                guard.arm()

    def _refresh_open_log(self) -> None:
        # An error log open on screen lists the new error at once.
        error_log_screen: type[ErrorLogScreen] = lazy.load("ErrorLogScreen")

        try:
            screen = self.host.screen
        except ScreenStackError:
            return
        if isinstance(screen, error_log_screen):
            screen.refresh_rows()

    def show_error_log(self) -> None:
        """Open the error log (newest first); Enter there shows one error whole."""
        error_log_screen: type[ErrorLogScreen] = lazy.load("ErrorLogScreen")

        if not isinstance(self.host.screen, error_log_screen):
            self.host.push_screen(error_log_screen(self.errors))

    def say(
        self, message: str, title: str = "", *, keep_newlines: bool = False, **how: Any
    ) -> None:
        """A toast of plain text: ``message`` cleaned (its line breaks kept with
        ``keep_newlines``), never read as markup; ``how``: ``notify``'s severity, timeout."""
        self.host.notify(
            clean(message, keep_newlines=keep_newlines), title=title, markup=False, **how
        )

    def flush_warnings(self) -> None:
        """Toast the session's warnings (journal or inventory not written, ...)."""
        for warning in self.session.take_warnings():
            self.say(warning, "Warning", keep_newlines=True, severity="warning")

    # -- confirmation, dry run ---------------------------------------------------------

    def refuse_if_read_only(self, operation: str = "") -> bool:
        """Under a read-only profile, say so and return True: the change action stops here.

        ``operation`` names the change refused, for the error log ("Set thresholds").

        Called first by every change action, before any choice, form or
        planning, so nothing is asked of the operator for a change that
        will be refused anyway. A dry run is not refused: it sends nothing,
        and shows the request the profile would refuse.
        """
        if not self.read_only or self.dry_run:
            return False
        self.report(RefusedError("Read-only profile", READ_ONLY_REASON), operation=operation)
        return True

    async def ask(self, dialog: Screen[T]) -> T:
        """The operator's answer to ``dialog``, awaited in a worker (``push_screen_wait``).

        Meanwhile :attr:`asking` holds the worker and the answer to come: until it
        comes, the worker waits on the operator, not on work (the tests' ``settle``
        waits for every worker but those).
        """
        answer = self.host.push_screen(dialog, wait_for_dismiss=True)
        worker = get_current_worker()
        self.asking[worker] = answer
        try:
            # Shielded as push_screen_wait does: a worker cancelled meanwhile (the app
            # closing) leaves the answer for the dialog to give.
            return await asyncio.shield(answer)
        finally:
            del self.asking[worker]

    async def planned(
        self, planning: Awaitable[PlannedChange[C]], operation: str = ""
    ) -> PlannedChange[C] | None:
        """The change ``planning`` plans, once, its tokens checked; None when that failed.

        ``planning`` awaits a planner of :mod:`bottui.ops.planning` (it may read the
        stores: never on the event loop's own turn). Its errors are reported, under
        ``operation`` when they name nothing; nothing is sent. The dialog, the dry run
        and the request sent are then this plan's.
        """
        try:
            plan = await planning
            if not self.dry_run:  # a dry run sends nothing: it needs no token
                await self._check_tokens(plan)
        except Exception as exc:  # reported like any failure; nothing is sent
            self.flush_warnings()
            self.report(exc, operation=operation)
            return None
        self.flush_warnings()
        return plan

    async def confirmed(
        self, plan: PlannedChange[C], prompt: ChangePrompt, operation: str = ""
    ) -> PlannedChange[C] | None:
        """``plan`` as the operator confirmed it (reason, duration), to hand to
        :func:`bottui.ops.mutations.apply`; None: nothing to send (cancelled, refused)."""
        decided = await self.decided(prompt, [plan], operation)
        return None if decided is None else self.decided_plan(plan, decided)

    async def decided(
        self, prompt: ChangePrompt, plans: Sequence[PlannedChange[Any]] = (), operation: str = ""
    ) -> Decided | None:
        """What the operator decided on ``prompt`` (in a worker); None: nothing to send.

        Asked as the change needs (:meth:`_decision`): refused (reported), the dry
        run's box, at once, or a dialog. Before the dialog, the prompt says who else
        changed ``plans``' targets lately, whether a duration's revert has an
        executor, and which pending timed reverts they supersede. Under
        ``require_reason`` the dialog refuses to confirm without a reason;
        :func:`bottui.ops.mutations.apply` checks it again.
        """
        # 40 ms of the team feed's modules: not on the first frame.
        from bottui.ops import collisions

        recent: list[str] = []
        try:
            for plan in plans:  # never raises for the team store: it says it could not check
                found = await collisions.check(self.session, plan)
                if found is not None and found.warns:
                    recent += found.lines()
        except Exception as exc:  # reported like any failure; nothing is sent
            self.flush_warnings()
            self.report(exc, operation=operation)
            return None
        self.flush_warnings()
        prompt = await self.timed_prompt(prompt)  # is an executor known?
        if recent:
            prompt = replace(prompt, recent=tuple(recent))
        prompt = await self.supersedes_prompt(prompt, plans)  # a pending timed revert?
        asked = self._decision(prompt)
        if asked is None or isinstance(asked, Decided):
            return asked
        if not await self.ask(asked):
            return None  # cancelled
        return Decided(asked.reason, asked.revert_after, asked.revert_to)

    def _decision(
        self, prompt: ChangePrompt
    ) -> Decided | ConfirmDialog | TypedConfirmDialog | None:
        """What ``prompt`` needs, said at once: decided already, the dialog that asks, or
        None (refused and reported, a plan that failed, or the dry run's box shown)."""
        try:
            requests = prompt.plan()
        except BottuiError as exc:
            self.report(exc)
            return None
        if self.dry_run:
            self.show_dry_run(requests, prompt.supersedes)
            return None
        needs = prompt.needs or required(self.session.settings, prompt.project_id)
        if needs.refused:
            what = prompt.decision or prompt.title.rstrip("?")
            # The profile's refusal in the TUI's words; another (a playbook's) in its own.
            reason = READ_ONLY_REASON if needs.title == "Read-only" else needs.reason or ""
            self.report(RefusedError("Read-only profile", reason), operation=what)
            return None
        if needs.kind is ConfirmKind.NONE:
            return Decided(None, None)
        return self._confirmation(prompt, typed=needs.kind is ConfirmKind.TYPED)

    def _confirmation(
        self, prompt: ChangePrompt, *, typed: bool
    ) -> ConfirmDialog | TypedConfirmDialog:
        """The dialog asking for ``prompt``: the project id typed too when ``typed``."""
        warned = prompt.warning_lines()  # teammates' changes, superseded timed reverts
        options: dict[str, Any] = {
            "reason": lazy.load("ReasonAsked")(required=self.session.settings.require_reason),
            "warning": Content("\n".join(warned)) if warned else None,
            "listing": prompt.listing,
            "timing": prompt.timing,
            "decision": prompt.decision,
        }
        if typed:
            typed_dialog: type[TypedConfirmDialog] = lazy.load("TypedConfirmDialog")
            return typed_dialog(
                prompt.title, prompt.body, prompt.project_id, prompt.confirm_label, **options
            )
        confirm_dialog: type[ConfirmDialog] = lazy.load("ConfirmDialog")
        return confirm_dialog(prompt.title, prompt.body, prompt.confirm_label, **options)

    def show_dry_run(self, requests: Sequence[PreparedRequest], notes: Sequence[str] = ()) -> None:
        """The dry run's box: the request(s) a change would send, and their curl; nothing sent.

        ``notes``: what sending it would also do (a timed revert it supersedes), cleaned.
        """
        dry_run_dialog: type[DryRunDialog] = lazy.load("DryRunDialog")
        lines = dry_run_lines(requests)
        refused = reason_refusal_text(self.session.settings, None)
        if refused is not None:
            lines += [f"Without a reason this would be refused: {refused}"]
        lines += list(notes)
        self.host.push_screen(dry_run_dialog(lines, [to_curl(r) for r in requests]))

    async def _check_tokens(self, plan: PlannedChange[Any]) -> None:
        """Refuse before the confirmation when a token the plan needs is missing.

        Asking to confirm a change that cannot be sent wastes the operator's
        time in an incident: the CredentialsError names the token and its fix.
        A read-only profile's refusal comes first (the confirmation says it).
        """
        if plan.confirmation.kind.value == "refused":
            return
        for request in plan.requests:
            try:
                if request.token_kind == "project":
                    await self.session.project_token(plan.account, plan.project)
                else:
                    await self.session.access_token(plan.account)
            except BaseException as exc:
                tag(exc, Attempt.of_plan(plan, plan.title or "Change", "checking tokens"))
                raise

    def toggle_dry_run(self) -> None:
        """Dry run on/off: changes show their request and curl instead of sending."""
        self.dry_run = not self.dry_run
        self.redraw_bars()  # the header's DRY RUN badge, on every screen
        state = "ON: changes are shown, not sent" if self.dry_run else "OFF"
        self.say(f"Dry run {state}")

    # -- team store: the push thread, the shared journal's reads, their states ------------

    def _reset_team(self) -> None:
        #: Why teammates' changes cannot be followed (None: they can, or no team store).
        self.live_down: str | None = None
        #: True once teammates' changes are being followed (LISTEN holds).
        self.team_listening = False
        #: The header's team journal state ("" without a store, or all shared).
        self.team_text = ""
        #: The push found the team store down (its last attempt failed).
        self._push_down = False
        #: When a read of the shared journal last failed (None: the last one worked).
        self._read_failed_at: float | None = None
        self._sharing: SharingThread | None = None
        self._team_reader: SharedJournal | None = None
        #: The reader's own connection to the store (closed by :meth:`stop_team`).
        self._reader_store: TeamStore | None = None

    async def start_sharing(self) -> None:
        """With a team store: push at start, after each change and every 30 s (own thread)."""
        session = self.session
        if session.settings.store_url is None:
            return  # solo: none of team mode's modules (they cost the first frame ~15 ms)
        team = await session.team()
        if team is None:
            return
        from bottui.ops.shared_journal import SharedJournal
        from bottui.ops.team_push import TUI_INTERVAL, SharingThread, open_team_store_url

        with contextlib.suppress(StoreError):
            await team.register()  # before this run's first change
        loop = asyncio.get_running_loop()

        def on_state(state: SyncState) -> None:  # on the push thread
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._team_state, state)

        self._sharing = SharingThread(team, interval=TUI_INTERVAL, on_state=on_state)
        self._sharing.start()
        session.hand_over_team()
        session.on_shared = self.share_soon  # inventory facts queued: push them now
        # The Journal screen reads with a connection of its own, on this loop.
        with contextlib.suppress(StoreError):
            reader = await open_team_store_url(
                session.settings.store_url, os.environ, session.tokens
            )
            reader.skips.on_skip = self._reader_skipped
            self._reader_store = reader
            self._team_reader = SharedJournal(
                session.journal_store,
                team,
                store=reader,
                on_down=self._read_down,
                on_up=self._read_up,
            )

    @property
    def team_down(self) -> bool:
        """The store is down: the Journal screen reads (and says it shows) the local journal."""
        return self._push_down or self._read_failed_at is not None

    def _team_state(self, state: SyncState) -> None:
        was_down, self._push_down = self._push_down, state.down is not None
        if state.header != self.team_text:
            self.team_text = state.header
            self.redraw_bars()
        if was_down and not self._push_down:
            # The push reached the store again: the shared journal is worth a read.
            self._read_failed_at = None
            self._broadcast(InventoryChanged)

    def _read_down(self, _reason: str) -> None:
        # A read failed while the push, with nothing waiting, may not have tried the
        # store: reads stay local (and say so) until the push or a later read gets
        # through. Never cleared by a push that had nothing to send: that would read,
        # fail and push again in a loop while the store is down.
        self._read_failed_at = time.monotonic()
        self.share_soon()

    def _reader_skipped(self, row: Unreadable) -> None:
        # On the app's loop (the reader reads there): a warning, toasted now.
        self.session.warn(row.line)
        self.flush_warnings()

    def _read_up(self) -> None:
        self._read_failed_at = None

    def share_soon(self) -> None:
        """A change was journaled: push it now (nothing without a team store)."""
        if self._sharing is not None:
            self._sharing.kick()

    def stop_sharing(self, budget: float = 2.0) -> None:
        """Push once more and stop (at quit; what is left waits for the next run)."""
        if self._sharing is not None:
            sharing, self._sharing = self._sharing, None
            sharing.stop(budget)

    async def stop_team(self) -> None:
        """Stop pushing to and reading the team store, its state cleared (a profile switch).

        The push thread's last push is awaited on the store executor, never on the loop.
        """
        sharing, self._sharing = self._sharing, None
        if sharing is not None:
            await run_blocking(partial(sharing.stop, 2.0))
        reader = self._reader_store
        self._reset_team()
        if reader is not None:
            with contextlib.suppress(StoreError):
                await reader.close()
        self.redraw_bars()

    def journal_pages(self) -> JournalReader | SqliteJournalStore:
        """What the Journal screen reads: the shared journal, or the local one when
        there is no team store or it is down."""
        if self._team_reader is None or self._push_down:
            return self.session.journal_store
        failed = self._read_failed_at
        if failed is not None and time.monotonic() - failed < READ_RETRY:
            return self.session.journal_store
        return self._team_reader

    # -- timed changes: the confirmation's duration, the header's countdown ---------------

    async def timed_prompt(self, prompt: ChangePrompt) -> ChangePrompt:
        """``prompt`` with the no-executor warning when a duration is offered and none is known.

        This TUI counts as one only while its executor runs (a TUI quitting
        before the revert is due leaves it to the next one to run).
        """
        timing = prompt.timing
        if timing is None or not timing.offered or timing.unavailable:
            return prompt
        from bottui.ops.timed.schedule import NO_EXECUTOR_WARNING, executor_known

        runner = self.timed_runner
        if runner is not None and runner.running:
            return prompt
        try:
            known = await executor_known(self.session)
        except Exception:  # a journal that cannot be read: warn rather than reassure
            known = None
        if known:
            return prompt
        note = NO_EXECUTOR_WARNING
        return replace(prompt, timing=replace(timing, notes=(*timing.notes, note)))

    async def supersedes_prompt(
        self, prompt: ChangePrompt, plans: Sequence[PlannedChange[Any]]
    ) -> ChangePrompt:
        """``prompt`` saying which timed changes' reverts these changes supersede (#27).

        Read in the planning worker, through the journal's async facade.
        """
        from bottui.ops.timed.schedule import warning_lines

        found: list[str] = []
        for plan in plans:
            for line in await warning_lines(self.session, plan):
                if line not in found:
                    found.append(line)
        return replace(prompt, supersedes=tuple(found)) if found else prompt

    def decided_plan(self, plan: PlannedChange[Any], decided: Decided) -> PlannedChange[Any] | None:
        """The plan to send as confirmed; None (reported) when its duration is refused."""
        try:
            confirmed = plan.with_reason(decided.reason)
            if decided.revert_after is not None:
                from bottui.ops.revert import with_revert_to

                confirmed = with_revert_to(confirmed, decided.revert_to)
                confirmed = confirmed.with_revert_after(decided.revert_after)
        except (BottuiError, ValueError) as exc:  # the core's refusal, said whole
            self.report(exc)
            return None
        return confirmed

    def start_timed(self) -> None:
        """Start this TUI's executor and countdown (after the first frame; again after a switch)."""
        if self.timed_runner is None:
            runner: type[TimedRunner] = lazy.load("TimedRunner")
            self.timed_runner = runner(self)
        self.timed_runner.start()

    async def stop_timed(self) -> None:
        """Stop it once a round under way ended (a profile switch, quitting)."""
        if self.timed_runner is not None:
            await self.timed_runner.stop_and_wait()
        self.timed_text = ""

    @property
    def timed_busy(self) -> bool:
        """True while a round of the executor runs (a revert may be in flight)."""
        return self.timed_runner is not None and self.timed_runner.busy

    def timed_changed(self) -> None:
        """A change may have scheduled or ended a revert: the countdown reads again soon."""
        runner = self.timed_runner
        if runner is not None:
            runner.poke()


class LoopTask:
    """A task on the app's loop that runs as long as the app: the timed changes' executor,
    the live feeds. Not a Textual worker: one that never completes would hold up
    everything waiting for the workers to finish."""

    #: The task's name (for asyncio's debugging).
    TASK_NAME = ""
    _task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        """True while the task runs."""
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start the task on the app's loop (nothing if it runs already)."""
        if not self.running:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.TASK_NAME)

    def stop(self) -> None:
        """Stop at once (the app is closing)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    async def _run(self) -> None:
        raise NotImplementedError


def find_services(node: MessagePump) -> TuiServices | None:
    """The services of the app ``node`` runs in; None in an app that has none (a test's)."""
    services = getattr(node.app, "services", None)
    return services if isinstance(services, TuiServices) else None


def services_of(node: MessagePump) -> TuiServices:
    """The services of the app ``node`` runs in (an assertion, not a lookup that may fail)."""
    services = find_services(node)
    assert services is not None, "not running in bottui's app"
    return services


def worker_failed(node: MessagePump, event: Worker.StateChanged) -> None:
    """The one handler of every worker's failure (the app's, a screen's, a dialog's).

    Reported like any other (a toast and the error log), under the worker's name
    when the error names no operation. Each node that runs workers takes it as its
    ``on_worker_state_changed`` (the message does not bubble).
    """
    services = find_services(node)
    error = event.worker.error
    if services is not None and event.state is WorkerState.ERROR and error is not None:
        services.flush_warnings()
        services.report(error, operation=event.worker.name)


def dry_run_lines(requests: Sequence[PreparedRequest]) -> list[str]:
    """The lines a dry run shows: method, URL, headers, body, curl."""
    lines: list[str] = []
    for request in requests:
        lines += [*request_lines(request), ""]
    return lines
