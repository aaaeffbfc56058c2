"""The TUI's part of timed changes (#15): the confirmation's duration, the header's countdown.

Mixed into :class:`~bottui.tui.services.TuiServices`. A confirmation's
answer is a :class:`Decided` (the reason, and the duration typed, if any);
:meth:`TimedServices.decided_plan` turns it into the plan to send
(:meth:`~bottui.ops.plan.PlannedChange.with_revert_after`, whose refusals
are reported like any other). Before the dialog,
:meth:`TimedServices.timed_prompt` asks the journal (through its async
facade, in the planning worker) whether any executor is known, so the
confirmation can warn that nothing would perform the revert. The header's
countdown is :attr:`TimedServices.timed_text`, kept by the app's
:class:`~bottui.tui.timed_runner.TimedRunner`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bottui.tui import lazy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.app import App

    from bottui.ops.plan import PlannedChange
    from bottui.ops.session import Session
    from bottui.tui.change_prompt import ChangePrompt
    from bottui.tui.timed_runner import TimedRunner


@dataclass(frozen=True)
class Decided:
    """What a confirmation was confirmed with: the reason, and a duration (None: untimed)."""

    reason: str | None
    revert_after: timedelta | None
    #: The value to revert to as the operator stated it (None: the inventory's).
    revert_to: dict[str, Any] | None = None


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
    from bottui.ops.durations import duration_text

    seconds = int(left.total_seconds())
    if seconds < 600:
        return duration_text(timedelta(seconds=max(seconds, 1)))
    minutes = -(-seconds // 60)
    return duration_text(timedelta(minutes=minutes))


class TimedServices:
    """Timed changes, for the TUI's services."""

    session: Session
    _host: App[Any]

    def _init_timed(self) -> None:
        #: The header's countdown ("" when no timed change is pending).
        self.timed_text = ""
        #: The app's executor and countdown (set once it starts: after the first frame).
        self.timed_runner: TimedRunner | None = None

    if TYPE_CHECKING:  # TuiServices' own

        def report(self, error: BaseException) -> None: ...

    async def timed_prompt(self, prompt: ChangePrompt) -> ChangePrompt:
        """``prompt`` with the no-executor warning when a duration is offered and none is known.

        This TUI counts as one only while its executor runs (a TUI quitting
        before the revert is due leaves it to the next one to run).
        """
        timing = prompt.timing
        if timing is None or not timing.offered or timing.unavailable:
            return prompt
        from bottui.ops import timed

        runner = self.timed_runner
        if runner is not None and runner.running:
            return prompt
        try:
            known = await timed.executor_known(self.session)
        except Exception:  # a journal that cannot be read: warn rather than reassure
            known = None
        if known:
            return prompt
        note = timed.NO_EXECUTOR_WARNING
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
        from bottui.api.errors import BottuiError

        try:
            confirmed = plan.with_reason(decided.reason)
            if decided.revert_after is not None:
                from bottui.ops.revert_to import with_revert_to

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
            self.timed_runner = runner(self)  # type: ignore[arg-type]
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


__all__ = ["Decided", "TimedServices", "countdown_text", "short_wait"]
