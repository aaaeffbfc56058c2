"""Run a planned playbook: one run id, the steps in order, stop at the first failure.

The whole run is confirmed once (:func:`bottui.ops.confirmation.enforce`
with every step's rule, before anything is sent); then each step goes
through :func:`bottui.ops.mutations.apply` (the one path of every change),
journaled under the run's id with the item key ``NAME#N``, so
``bottui journal --run RUN_ID`` lists it. The first step that fails, or
whose outcome is unknown, stops the run: the steps after it are not sent,
and the caller offers to revert the ones done
(:func:`bottui.ops.revert.revert_steps`). A run with a duration
schedules the revert of all its steps at once, when every step was done.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

import msgspec

from bottui.api.errors import BottuiError
from bottui.ops import confirmation, mutations
from bottui.ops.mutations import error_outcome
from bottui.ops.playbooks.playbook_plan import PlannedStep, PlaybookPlan
from bottui.ops.session import Session
from bottui.ops.timed.schedule import schedule_revert
from bottui.store.journal.journal_records import Outcome
from bottui.store.store_errors import JournalUnavailable

#: The ``runs.operation`` of a playbook run (a bulk revocation's is ``revoke``).
RUN_OPERATION: Final = "playbook"

StepState = Literal["pending", "sending", "done", "failed", "unknown", "interrupted", "not sent"]


class StepResult(msgspec.Struct):
    """What became of one step; ``error`` is the failure as the client raised it."""

    step: PlannedStep
    state: StepState = "pending"
    journal_id: int | None = None
    error: BottuiError | None = None

    @property
    def detail(self) -> str:
        """The failure in one line (not cleaned), or ""."""
        if self.error is None:
            return ""
        return (
            f"{self.error.title}: {self.error.details}" if self.error.details else self.error.title
        )

    def to_json(self) -> dict[str, Any]:
        """One step's result (``--json``)."""
        return {
            **self.step.to_json(),
            "state": self.state,
            "journalId": self.journal_id,
            "error": self.detail or None,
        }


class RunSummary(msgspec.Struct):
    """A playbook run: its id (None: not journaled), each step, and its revert, if timed."""

    plan: PlaybookPlan
    run_id: int | None
    results: list[StepResult]
    revert_due: datetime | None = None
    warnings: list[str] = msgspec.field(default_factory=list)

    @property
    def done(self) -> list[StepResult]:
        """The steps sent and answered, in order."""
        return [r for r in self.results if r.state == "done"]

    @property
    def stopped_at(self) -> StepResult | None:
        """The step that stopped the run (failed, unknown, interrupted), if any."""
        return next(
            (r for r in self.results if r.state in ("failed", "unknown", "interrupted")), None
        )

    @property
    def complete(self) -> bool:
        """Every step was done."""
        return all(r.state == "done" for r in self.results)

    def done_entry_ids(self) -> list[int]:
        """The journal entries of the steps done, in the order they were sent."""
        return [r.journal_id for r in self.done if r.journal_id is not None]

    def text(self) -> str:
        """``3 of 3 steps done`` or ``1 of 3 steps done; step 2 failed`` (not cleaned)."""
        head = f"{len(self.done)} of {len(self.results)} steps done"
        stop = self.stopped_at
        if stop is not None:
            head += f"; step {stop.step.number} {stop.state}: {stop.detail}"
        return head

    def to_json(self) -> dict[str, Any]:
        """The run's ``--json`` document."""
        return {
            "playbook": self.plan.playbook.name,
            "runId": self.run_id,
            "account": self.plan.account,
            "project": self.plan.project,
            "complete": self.complete,
            "steps": [r.to_json() for r in self.results],
            "revertDue": self.revert_due.isoformat() if self.revert_due else None,
        }


Progress = Callable[[StepResult], None]


def check_may_run(session: Session, plan: PlaybookPlan, *, confirmed: bool) -> None:
    """Raise unless the whole run may be sent now (read-only, reason, protected).

    Raises:
        RefusedError: the strictest rule of all the steps refuses it; nothing sent.
    """
    confirmation.enforce(
        session.settings, *plan.confirmations, confirmed=confirmed, reason=plan.reason
    )


async def run_playbook(
    session: Session,
    plan: PlaybookPlan,
    *,
    confirmed: bool,
    revert_after: timedelta | None = None,
    progress: Progress | None = None,
    now: Callable[[], datetime] | None = None,
) -> RunSummary:
    """Send the steps of ``plan`` in order under one run id; stop at the first failure.

    ``revert_after`` schedules the revert of every step (reverse order, the
    superseded rule) that long after the last one was sent, when all were
    done. ``progress`` is called as each step starts and ends.

    Raises:
        RefusedError: the run may not be sent (before anything was sent).
    """
    check_may_run(session, plan, confirmed=confirmed)
    results = [StepResult(step) for step in plan.steps]
    summary = RunSummary(plan, await _open_run(session, plan), results)
    notify = progress or (lambda result: None)
    for result in results:
        result.state = "sending"
        notify(result)
        try:
            applied = await mutations.apply(
                session,
                result.step.change,
                confirmed=True,  # the run was confirmed as a whole above
                run_id=summary.run_id,
                item_key=f"{plan.playbook.name}#{result.step.number}",
            )
        except BottuiError as exc:
            result.error = exc
            result.state = "unknown" if error_outcome(exc) is Outcome.UNKNOWN else "failed"
        except (asyncio.CancelledError, KeyboardInterrupt):
            result.state = "interrupted"
            _not_sent(results)
            notify(result)
            raise
        else:
            result.state = "done"
            result.journal_id = applied.journal_id
        notify(result)
        if result.state != "done":
            _not_sent(results)
            break
    if summary.complete and revert_after is not None:
        summary.revert_due = await _schedule(session, summary, revert_after, now)
    summary.warnings = session.take_warnings()
    return summary


def _not_sent(results: list[StepResult]) -> None:
    for other in results:
        if other.state == "pending":
            other.state = "not sent"


async def _open_run(session: Session, plan: PlaybookPlan) -> int | None:
    """A new run id in the journal (None, with a warning, when it cannot be written)."""
    # A run row is keyed by its input's digest: a fresh one per run, so two
    # runs of one playbook are two runs (a bulk run's digest is its file's).
    digest = hashlib.sha256(f"playbook\0{plan.playbook.name}\0{uuid.uuid4()}".encode())
    try:
        run_id: int = await session.journal_store.run(
            profile=session.settings.inventory_scope,
            account=plan.account,
            project=plan.project,
            input_sha256=digest.hexdigest(),
            operation=RUN_OPERATION,
            resume=False,
        )
    except JournalUnavailable as exc:
        session.warn(f"this playbook run is NOT journaled: {exc.title}. {exc.details}")
        return None
    return run_id


async def _schedule(
    session: Session,
    summary: RunSummary,
    after: timedelta,
    now: Callable[[], datetime] | None,
) -> datetime | None:
    ids = summary.done_entry_ids()
    if summary.run_id is None or len(ids) != len(summary.results):
        session.warn("the revert is NOT scheduled: the run's steps are not all journaled")
        return None
    due = (now or (lambda: datetime.now(UTC)))() + after
    # The run was confirmed as a whole, its scheduled revert with it (protected profiles).
    await schedule_revert(session, ids, summary.run_id, due, confirmed=True)
    return due
