"""The bulk revocation run of the session, owned by the app, not by a screen.

A run goes on while the operator uses every other screen: it is driven by an
app worker (:meth:`BulkRuns.start`), its progress is in every header
(:meth:`BulkRuns.header_text`), and its screen
(:class:`~bottui.tui.screens.bulk_dialogs.BulkRunDialog`) is only a view of it,
closed and opened again at will (``B``, the palette, ``b`` on Grants).
Quitting (or anything else that must not leave a run behind) asks first
through :meth:`BulkRuns.stop_and_wait`: no new ids, the requests in flight
finish and are journaled, and only then does it return.

One run at a time: the engine itself refuses the same input twice, and two
runs in one console would share one header line.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Final, Protocol

import msgspec
from msgspec.structs import replace

from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.report import BulkProgress, BulkSummary, ItemStatus
from bottui.ops.bulk.results import ResultsSpool
from bottui.tui import lazy
from bottui.tui.screens.bulk_dialogs import BulkDraft, BulkOrder, bulk_prompt
from bottui.tui.widgets.bulk_words import plural, stopped, total_words, unknown_count, unsettled

if TYPE_CHECKING:
    from bottui.tui.screens.bulk_dialogs import BulkRunDialog
    from bottui.tui.services import TuiServices

#: Seconds between two progress reports of a background run (header and screen).
PROGRESS_INTERVAL: Final = 0.25


class RunView(Protocol):
    """What the run's screen offers the run (it may be closed at any time)."""

    def show_progress(self, progress: BulkProgress) -> None:
        """A new progress snapshot."""

    def show_end(self) -> None:
        """The run ended: its summary or failure is on :class:`BackgroundRun`."""


class BackgroundRun(msgspec.Struct, eq=False):
    """One bulk run: what was ordered, the engine, and what it reported so far."""

    order: BulkOrder
    engine: BulkRevocation
    spool: ResultsSpool
    progress: BulkProgress | None = None
    summary: BulkSummary | None = None
    failure: BaseException | None = None
    #: How many times the operator asked to stop (1: stop, 2: abandon in flight).
    stops: int = 0
    #: The operator has seen the end on the run's screen (the header then clears).
    seen: bool = False
    ended: asyncio.Event = msgspec.field(default_factory=asyncio.Event)

    @property
    def finished(self) -> bool:
        """True once the run ended (summary or failure)."""
        return self.ended.is_set()


def header_words(run: BackgroundRun) -> str:
    """The header's words: ``bulk 41,200/100,000 · 3 failed · 1 unknown``."""
    progress = run.progress
    if run.failure is not None:
        return "bulk failed · B"
    if progress is None:
        return "bulk starting"
    total = total_words(progress)
    failed, unknown = progress.counts.get(ItemStatus.FAILED, 0), unknown_count(progress)
    if run.summary is not None:
        summary = run.summary
        state = "stopped" if stopped(summary) else "done"
        head = f"bulk {state} {summary.total - summary.not_sent:,}/{summary.total:,}"
        failed, unknown = summary.failed, summary.unknown
    elif progress.stopping:
        head = f"bulk stopping {progress.done:,}/{total} · {progress.in_flight:,} in flight"
    elif progress.paused_for > 0:
        head = f"bulk {progress.done:,}/{total} · paused {progress.paused_for:.0f}s (429)"
    else:
        head = f"bulk {progress.done:,}/{total}"
    parts = [head]
    if failed:
        parts.append(f"{failed:,} failed")
    if unknown:
        parts.append(f"{unknown:,} unknown")
    if run.summary is not None:
        parts.append("B")
    return " · ".join(parts)


class BulkRuns:
    """The session's bulk run, its draft input, and the screen showing it (if open).

    Args:
        services: The app's services (worker, toasts, header, error reports).
    """

    def __init__(self, services: TuiServices) -> None:
        self._services = services
        #: What the bulk dialog held when last closed (kept until a run settles every id).
        self.draft = BulkDraft()
        #: The latest run of the session (running or ended), or None.
        self.run: BackgroundRun | None = None
        #: The run's screen while it is open.
        self.view: RunView | None = None

    def __repr__(self) -> str:
        return f"BulkRuns(run={self.run!r})"

    @property
    def active(self) -> bool:
        """True while a run is under way (stopping included)."""
        return self.run is not None and not self.run.finished

    def header_text(self) -> str:
        """What every header says of the run; "" when none, or its end was seen."""
        run = self.run
        if run is None or (run.finished and run.seen):
            return ""
        return header_words(run)

    # -- running ------------------------------------------------------------------

    def start(self, order: BulkOrder) -> BackgroundRun | None:
        """Start a confirmed order in an app worker; None (and a word) while one runs."""
        services = self._services
        if self.active:
            services.say("A bulk revocation is under way: one at a time (B shows it).")
            return None
        if self.run is not None:
            self.run.spool.close()
        spool = ResultsSpool()
        engine = BulkRevocation(
            services.session,
            order.account,
            order.project,
            order.source,
            concurrency=order.concurrency,
            resume=order.resume,
            confirmed=True,  # the operator confirmed (typed the project id if protected)
            reason=order.reason,
            on_progress=self._progressed,
            on_result=spool.add,
            progress_interval=PROGRESS_INTERVAL,
        )
        run = BackgroundRun(order, engine, spool)
        self.run = run
        services.host.run_worker(
            self._drive(run), name="Bulk revocation", group="bulk-run", exit_on_error=False
        )
        services.redraw_bars()
        return run

    async def _drive(self, run: BackgroundRun) -> None:
        services = self._services
        try:
            run.summary = await run.engine.run()
        except asyncio.CancelledError:
            # The app is closing: the engine recorded what was in flight.
            run.ended.set()
            raise
        except Exception as exc:  # refused, no token, or a bug: the one renderer says why
            run.failure = exc
            services.report(exc)
        try:
            await run.spool.finish()
        finally:
            run.ended.set()
            services.share_soon()  # what it journaled goes to the team store now
            services.flush_warnings()
            self._ended(run)

    def _progressed(self, progress: BulkProgress) -> None:
        run = self.run
        if run is None or run.finished:
            return
        run.progress = progress
        if self.view is not None:
            self.view.show_progress(progress)
        self._services.redraw_bars()

    def _ended(self, run: BackgroundRun) -> None:
        if run.summary is not None and unsettled(run.summary) == 0:
            # Every id settled: the next bulk dialog opens empty, so these ids
            # are not sent again by mistake.
            self.draft = BulkDraft()
        if self.view is not None:
            self.view.show_end()
        elif run.summary is not None:
            summary = run.summary
            words = "stopped" if stopped(summary) else "done"
            self._services.say(
                f"Bulk revocation {words}: {plural(summary.withdrawn, 'grant')} withdrawn, "
                f"{summary.failed:,} failed, {summary.unknown:,} unknown. B shows the summary.",
                "Bulk revocation",
                severity="warning" if summary.failed or summary.unknown else "information",
            )
        self._services.redraw_bars()

    # -- stopping -----------------------------------------------------------------

    def stop(self) -> None:
        """First call: stop taking ids; second: abandon the requests in flight."""
        run = self.run
        if run is None or run.finished or run.stops >= 2:
            return
        run.stops += 1
        run.engine.cancel()
        self._progressed(run.engine.progress())

    async def stop_and_wait(self) -> None:
        """Stop the run (no new ids) and wait until the requests in flight are journaled."""
        run = self.run
        if run is None or run.finished:
            return
        if run.stops == 0:
            self.stop()
        await run.ended.wait()

    # -- the run's screen ---------------------------------------------------------

    def redraw(self) -> None:
        """Redraw every header (the run's state, or its end seen, changed)."""
        self._services.redraw_bars()

    def show(self) -> None:
        """Open the run's screen (progress, or the summary once it ended)."""
        run_dialog: type[BulkRunDialog] = lazy.load("BulkRunDialog")
        run = self.run
        host = self._services.host
        if run is None:
            self._services.say("No bulk revocation in this session (3, then b, starts one).")
            return
        if isinstance(host.screen, run_dialog):
            return
        dialog = run_dialog(self, run)
        # The run's view from now on, not from its mount: a run that ends in
        # between is shown by the dialog, not by a toast as well (a fast run
        # beat the mount on an idle machine and lost to it on a busy one).
        self.view = dialog
        host.push_screen(dialog, self._closed)

    def _closed(self, result: str | None) -> None:
        """The run's screen closed: its Resume confirms the run again, for the ids left."""
        run = self.run
        if result != "resume" or run is None or run.summary is None:
            return
        summary = run.summary
        settled = summary.withdrawn + summary.nothing_standing + summary.skipped
        again = replace(run.order, resume=True, settled=settled)
        self._services.host.run_worker(
            self._resume(again), name="Resuming", group="plan", exit_on_error=False
        )

    async def _resume(self, order: BulkOrder) -> None:
        """Ask before resuming ``order`` (with the reason typed in the confirmation)."""
        decided = await self._services.decided(bulk_prompt(self._services, order))
        if decided is not None:
            self.start_and_show(replace(order, reason=decided.reason))

    def start_and_show(self, order: BulkOrder) -> None:
        """Start a confirmed order and open its screen."""
        if self.start(order) is not None:
            self.show()
