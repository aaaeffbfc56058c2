"""The running TUI as an executor of timed changes, and the header's countdown (#15).

While the app runs on a profile, one task (:class:`TimedRunner`) does, at
start and then every :data:`EXECUTE_EVERY` seconds: records this TUI as an
executor (:func:`bottui.ops.timed.executor_seen`, so a confirmation knows
a revert will be performed), performs what is due
(:func:`bottui.ops.timed.run_due`, executor "TUI on HOST") and says how each
ended: a toast per revert; a failure, an unknown outcome or a refusal also
goes to the error log (``e``); every screen reads again, so the Journal
shows the reverts. Every :data:`REFRESH_EVERY` seconds it reads the pending
timed changes for the header ("2 timed changes · next in 14m").

A revert later than the profile's lateness limit is not sent blindly: the
runner ASKS (once per timed change and session; the Timed screen, ``T``,
offers it again). Everything goes through the stores' async facades and the
clock of the session (``session.clock``: tests move it, nothing waits).

Stopping: :meth:`TimedRunner.stop_and_wait` lets a round under way end (a
revert in flight is answered and journaled) before a profile switch or
quit; :meth:`TimedRunner.stop` cancels at once (the app is gone).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from bottui.plaintext import clean

if TYPE_CHECKING:
    from bottui.ops.timed import DueReport, TimedChange
    from bottui.tui.services import TuiServices

#: Seconds between two rounds of due reverts (and executor heartbeats).
EXECUTE_EVERY: Final = 15.0
#: Seconds between two reads of the pending timed changes for the header.
REFRESH_EVERY: Final = 5.0
#: How an executor of this kind is recorded (``executor_name("tui")``: "TUI on HOST").
KIND: Final = "tui"
#: Results that the error log keeps too (a revert that did not happen as planned).
LOGGED: Final = frozenset({"failed", "unknown", "refused", "in-doubt"})


class TimedRunner:
    """Performs due reverts while the TUI runs, and keeps the header's countdown."""

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
        self._task: asyncio.Task[None] | None = None
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
    def running(self) -> bool:
        """True while the executor's task runs."""
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start the task on the app's loop (a task, not a worker: it runs as long as the app)."""
        if self.running:
            return
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="timed changes")

    def stop(self) -> None:
        """Stop at once (the app is closing)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

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

    async def _loop(self) -> None:
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
        from bottui.ops import timed

        services = self._services
        session = services.session
        reports: list[DueReport] = []
        async with self._round:
            try:
                if execute:
                    reports = await timed.run_due(
                        session, executor=timed.executor_name(KIND), kind=KIND
                    )
                self.pending = await timed.list_timed(session)
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
        from bottui.ops.timed.schedule import now_of
        from bottui.tui.services_timed import countdown_text

        services = self._services
        due = [t.due_at for t in self.pending if t.state == "scheduled"]
        text = countdown_text(due, now_of(services.session))
        if text != services.timed_text:
            services.timed_text = text
            services.redraw_bars()

    def tell(self, reports: Sequence[DueReport]) -> None:
        """A toast per revert; failures to the error log; late ones asked about."""
        from bottui.api.errors import BottuiError

        services = self._services
        host = services.host
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
            host.notify(clean(report.line), title="Timed change", timeout=10, markup=False)
        if changed:
            services.inventory_changed()  # every screen reads again: the Journal too

    def _ask_late(self, report: DueReport) -> None:
        """Ask once whether a revert past the lateness limit is still wanted."""
        timed = report.timed
        if timed.key in self._asked:
            return
        self._asked.add(timed.key)
        from bottui.tui.timed_actions import ask_revert

        ask_revert(self._services, timed, late=report.late)


__all__ = ["EXECUTE_EVERY", "KIND", "REFRESH_EVERY", "TimedRunner"]
