"""The TUI's part of timed changes (#15): the executor and the header's countdown, and the
operator's revert now, extend and keep.

**The executor** (:class:`TimedRunner`). While the app runs on a profile, one
task does, at start and then every :data:`EXECUTE_EVERY` seconds: records
this TUI as an executor (:func:`bottui.ops.timed.schedule.executor_seen`, so a
confirmation knows a revert will be performed), performs what is due
(:func:`bottui.ops.timed.execute.run_due`, executor "TUI on HOST") and says how each
ended: a toast per revert; a failure, an unknown outcome or a refusal also
goes to the error log (``e``); every screen reads again, so the Journal
shows the reverts. Every :data:`REFRESH_EVERY` seconds it reads the pending
timed changes for the header ("2 timed changes · next in 14m",
:func:`countdown_text`). A revert later than the profile's lateness limit is
not sent blindly: the runner ASKS (once per timed change and session; the
Timed screen, ``T``, offers it again). Everything goes through the stores'
async facades and the clock of the session (``session.clock``: tests move
it, nothing waits). :meth:`TimedRunner.stop_and_wait` lets a round under way
end (a revert in flight is answered and journaled) before a profile switch
or quit; :meth:`TimedRunner.stop` cancels at once (the app is gone).

**The operator's actions**, each awaited in a worker (the Timed screen's, or
the app's for the executor's question) that asks first, then acts through
:mod:`bottui.ops.timed` (the stores' async facades; never on the event loop's
turn):

* :func:`revert`: "revert now", and the question the executor asks of a
  revert past the profile's lateness limit. The same rules as any change: a
  read-only profile refuses before asking, dry run sends nothing, a protected
  profile wants the project id typed unless the timed change was confirmed
  when it was made (its revert was confirmed then).
* :func:`extend`: how much later (:class:`~bottui.tui.screens.change_form.ExtendDialog`).
* :func:`keep`: keep the change; its revert will not happen.

Each result is a toast (a failure goes to the one handler of workers' failures,
and the error log), and the header's countdown and every screen read again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Final

from textual.content import Content
from textual.worker import get_current_worker

from bottui.api.errors import BottuiError
from bottui.ops.confirmation import Confirmation, ConfirmKind
from bottui.ops.durations import duration_text
from bottui.ops.timed import schedule
from bottui.ops.timed.execute import revert_now, run_due
from bottui.ops.timed.schedule import executor_name, list_timed
from bottui.ops.timed_record import now_of
from bottui.plaintext import clean
from bottui.tui import lazy
from bottui.tui.change_prompt import ChangePrompt
from bottui.tui.services import LoopTask, TuiServices
from bottui.tui.widgets.untrusted_text import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.ops.timed.execute import DueReport
    from bottui.ops.timed.schedule import TimedChange
    from bottui.tui.screens.change_form import ConfirmDialog, ExtendDialog


# -- the executor and the countdown ----------------------------------------------------

#: Seconds between two rounds of due reverts (and executor heartbeats).
EXECUTE_EVERY: Final = 15.0
#: Seconds between two reads of the pending timed changes for the header.
REFRESH_EVERY: Final = 5.0
#: How an executor of this kind is recorded (``executor_name("tui")``: "TUI on HOST").
KIND: Final = "tui"
#: Results that the error log keeps too (a revert that did not happen as planned).
LOGGED: Final = frozenset({"failed", "unknown", "refused", "in-doubt"})


def countdown_text(due: Sequence[datetime], now: datetime) -> str:
    """The header's words: ``2 timed changes · next in 14m``; "" when there is none."""
    if not due:
        return ""
    count = f"{len(due)} timed change{'s' if len(due) != 1 else ''}"
    left = min(due) - now
    if left.total_seconds() <= 0:
        return f"{count} · next due now"
    return f"{count} · next in {short_wait(left)}"


def short_wait(left: timedelta) -> str:
    """``40s``, ``1m25s``, ``14m``, ``2h5m``: seconds under 10 minutes, then whole minutes
    (rounded up: never sooner than it is)."""

    seconds = int(left.total_seconds())
    if seconds < 600:
        return duration_text(timedelta(seconds=max(seconds, 1)))
    minutes = -(-seconds // 60)
    return duration_text(timedelta(minutes=minutes))


class TimedRunner(LoopTask):
    """Performs due reverts while the TUI runs, and keeps the header's countdown."""

    TASK_NAME = "timed changes"

    def __init__(
        self,
        services: TuiServices,
        *,
        execute_every: float = EXECUTE_EVERY,
        refresh_every: float = REFRESH_EVERY,
    ) -> None:
        self._services = services
        self._execute_every = execute_every
        self._refresh_every = refresh_every
        self._wake = asyncio.Event()
        #: Claims in doubt already told (every round reports them: said once per run).
        self._told_doubts: set[str] = set()
        self._round = asyncio.Lock()
        #: Pending timed changes as last read (the Timed screen shows them too).
        self.pending: list[TimedChange] = []
        #: Late ones already asked about this session (keys): asked once.
        self._asked: set[str] = set()
        #: The last round failed (reported once, until a round works again).
        self._failing = False

    @property
    def busy(self) -> bool:
        """True while a round runs (a revert may be in flight)."""
        return self._round.locked()

    async def stop_and_wait(self) -> None:
        """Stop once the round under way (a revert in flight) has ended and been journaled."""
        async with self._round:
            self.stop()

    async def wait_idle(self) -> None:
        """Return once no round runs (a revert in flight has been journaled)."""
        async with self._round:
            pass

    def poke(self) -> None:
        """Read the pending timed changes now (a change was just made or ended)."""
        self._wake.set()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_run = loop.time()
        while True:
            execute = loop.time() >= next_run
            if execute:
                next_run = loop.time() + self._execute_every
            await self.tick(execute=execute)
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._refresh_every)

    async def tick(self, *, execute: bool = True) -> list[DueReport]:
        """One round: heartbeat and due reverts (``execute``), then the header's countdown.

        Never raises: a journal that cannot be read is reported once, like any failure.
        """

        services = self._services
        session = services.session
        reports: list[DueReport] = []
        async with self._round:
            try:
                if execute:
                    reports = await run_due(session, executor=executor_name(KIND), kind=KIND)
                self.pending = await list_timed(session)
            except Exception as exc:  # a store gone bad: said once, tried again next round
                if not self._failing:
                    services.report(exc, operation="Timed changes")
                self._failing = True
                return reports
            self._failing = False
        services.flush_warnings()  # a timed event skipped (unreadable): said once a session
        self.show_countdown()
        fresh = [r for r in reports if not self._told(r)]
        if fresh:
            self.tell(fresh)
        return reports

    def _told(self, report: DueReport) -> bool:
        """A claim in doubt told already this run (the Timed screen keeps showing it)."""
        if report.action != "in-doubt" or report.timed.state != "claimed":
            return False
        if report.timed.key in self._told_doubts:
            return True
        self._told_doubts.add(report.timed.key)
        return False

    def show_countdown(self) -> None:
        """The header's words from the pending timed changes and the session's clock."""

        services = self._services
        due = [t.due_at for t in self.pending if t.state == "scheduled"]
        text = countdown_text(due, now_of(services.session))
        if text != services.timed_text:
            services.timed_text = text
            services.redraw_bars()

    def tell(self, reports: Sequence[DueReport]) -> None:
        """A toast per revert; failures to the error log; late ones asked about."""

        services = self._services
        changed = False
        for report in reports:
            changed = changed or report.sent or report.action == "superseded"
            if report.action == "late-skipped":
                self._ask_late(report)
                continue
            if report.action in LOGGED:
                error = BottuiError(f"Timed revert {report.action}", report.line)
                error.ambiguous = report.action == "unknown"
                services.report(error, operation=f"Timed revert {report.timed.id}")
                continue
            if report.action == "claimed-elsewhere":
                continue  # another executor performs it (team mode): its toast, not ours
            services.say(report.line, "Timed change", timeout=10)
        if changed:
            services.inventory_changed()  # every screen reads again: the Journal too

    def _ask_late(self, report: DueReport) -> None:
        """Ask once whether a revert past the lateness limit is still wanted."""
        timed = report.timed
        if timed.key in self._asked:
            return
        self._asked.add(timed.key)
        asking = revert(self._services, timed, late=report.late)
        self._services.host.run_worker(
            asking, name="timed change", group="timed", exit_on_error=False
        )


# -- the operator's actions: revert now, extend, keep ----------------------------------


def _describe(timed: TimedChange) -> Content:
    return join(
        safe(timed.what),
        " of project ",
        safe_id(timed.project),
        ", account ",
        safe_id(timed.account),
        "\nReverts to: ",
        Content.styled(clean(timed.revert_to), "bold"),
    )


@contextmanager
def _doing(services: TuiServices, label: str) -> Iterator[None]:
    """Around the action, once asked: "working", a failure logged under ``label``, then
    the countdown and every screen that shows timed changes read again."""
    get_current_worker().name = label
    try:
        with services.working(label):
            yield
    finally:
        services.timed_changed()


async def revert(
    services: TuiServices, timed: TimedChange, *, late: timedelta | None = None
) -> None:
    """Revert ``timed`` now, once confirmed (``late``: the executor asks past the limit)."""
    if services.refuse_if_read_only(f"Revert timed change {timed.id} now"):
        return
    if services.dry_run:
        services.say(
            f"Dry run: nothing sent. Timed change {timed.id} would revert to {timed.revert_to}.",
            "Dry run",
        )
        return
    # Confirmed when it was made: a click; else as the profile wants (None).
    needs = Confirmation(ConfirmKind.CLICK) if timed.confirmed else None
    if late is not None:
        title = f"Revert timed change {timed.id}, late by {duration_text(late)}?"
        intro = Content(
            "Its revert came due while no executor ran, and it is past the profile's "
            "lateness limit: it is not sent without you. Keep the change instead: "
            "k on the Timed screen (T).\n\n"
        )
    else:
        title = f"Revert timed change {timed.id} now?"
        intro = Content("Sent now instead of at its due time.\n\n")
    prompt = ChangePrompt(
        title=title,
        body=join(intro, _describe(timed)),
        confirm_label="Revert now",
        project_id=timed.project,
        plan=list,
        needs=needs,
        decision=f"revert timed change {timed.id}: {timed.what} back to {timed.revert_to}",
    )
    if await services.decided(prompt) is None:
        return
    with _doing(services, f"Reverting timed change {timed.id}"):
        report = await revert_now(
            services.session,
            timed.key,
            executor=executor_name(KIND),
            confirmed=True,
        )
        runner = services.timed_runner
        if runner is not None:
            runner.tell([report])
        else:
            services.say(report.line, "Timed change")


async def extend(services: TuiServices, timed: TimedChange, due_words: str) -> None:
    """Ask how much later ``timed`` reverts, then journal the extension."""
    if services.refuse_if_read_only(f"Extend timed change {timed.id}"):
        return
    extend_dialog: type[ExtendDialog] = lazy.load("ExtendDialog")
    after = await services.ask(extend_dialog(timed, due_words))
    if after is None:
        return
    session = services.session
    with _doing(services, f"Extending timed change {timed.id}"):
        moved = await schedule.extend(session, timed.key, after)
        services.say(
            f"Timed change {moved.id} now reverts {moved.when_text(now_of(session))} "
            f"({moved.due_at.strftime('%H:%M')} UTC).",
            "Timed change extended",
        )


async def keep(services: TuiServices, timed: TimedChange) -> None:
    """Keep the change: after a confirmation, its revert is cancelled (a journal event)."""
    if services.refuse_if_read_only(f"Keep timed change {timed.id}"):
        return
    body = join("The change stays as it is; its revert will not happen.\n\n", _describe(timed))
    confirm_dialog: type[ConfirmDialog] = lazy.load("ConfirmDialog")
    title = f"Keep the change of timed change {timed.id}?"
    if not await services.ask(confirm_dialog(title, body, "Keep it")):
        return
    with _doing(services, f"Cancelling timed change {timed.id}"):
        kept = await schedule.cancel(services.session, timed.key)
        services.say(
            f"Timed change {kept.id} cancelled: {kept.what} stays as it is.", "Timed change"
        )
