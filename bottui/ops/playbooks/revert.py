"""Revert a playbook run: its steps done, last first, each with the superseded rule.

The reverting itself is :func:`bottui.ops.revert.revert_entries` (the one
revert of timed changes and playbooks: reverse order, a step whose object
changed since is not sent but reported "superseded", the first error stops
it). This module finds a run's steps in the journal (``revert RUN_ID``) or
takes them from a run that just stopped (the offer after a failure), and
words the report for both faces.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from bottui.api.errors import EXIT_API, EXIT_NETWORK, EXIT_OK, EXIT_REFUSED, RefusedError
from bottui.ops.journal_view import target_id, value_text
from bottui.ops.revert import revert_entries
from bottui.store.journal.records import (
    EntryQuery,
    JournalEntry,
    Operation,
    Outcome,
    RunId,
    local_operator,
)

if TYPE_CHECKING:
    from bottui.ops.playbooks.run import RunSummary
    from bottui.ops.revert import RevertReport
    from bottui.ops.session import Session

#: Operations a playbook step makes (a bulk revocation's run is not a playbook's).
STEP_OPERATIONS: Final = frozenset(
    {Operation.SET_LIMITER_ACTIVE.value, Operation.SET_THRESHOLDS.value}
)
_EXIT: Final = {
    "reverted": EXIT_OK,
    "superseded": EXIT_REFUSED,
    "refused": EXIT_REFUSED,
    "failed": EXIT_API,
    "unknown": EXIT_NETWORK,
}


class NotAPlaybookRun(RefusedError):
    """The run id names no playbook run with a step done (exit 2)."""


@dataclass(frozen=True)
class RunSteps:
    """The steps of one run that were done (outcome ok), in the order they were sent."""

    run_id: int
    playbook: str
    entries: tuple[JournalEntry, ...]

    def lines(self) -> list[str]:
        """One line per step, as the journal knows it (not cleaned)."""
        rows = [f"playbook {self.playbook}, run #{self.run_id}: {len(self.entries)} step(s) done"]
        for entry in self.entries:
            rows.append(
                f"  #{entry.id} {entry.item_key or ''} {target_id(entry)}: "
                f"{value_text(entry.previous)} -> {value_text(entry.request_body)}"
            )
        return rows


@dataclass(frozen=True)
class PlaybookRevert:
    """How a run's revert ended: the report of :func:`~bottui.ops.revert.revert_entries`."""

    run_id: int | None
    report: RevertReport

    @property
    def exit_code(self) -> int:
        """0 when every step was put back; 2 superseded or refused; 1 failed; 4 unknown."""
        return _EXIT.get(self.report.state, EXIT_API)

    def lines(self) -> list[str]:
        """The report, one line per step, last step first (not cleaned)."""
        head = f"revert of run #{self.run_id}" if self.run_id is not None else "revert"
        rows = [f"{head}: {self.report.state}"]
        for step in self.report.steps:
            entry = f" (journal #{step.journal_id})" if step.journal_id is not None else ""
            message = f": {step.message}" if step.message else ""
            rows.append(f"  #{step.entry_id} {step.what}: {step.state}{entry}{message}")
        return rows

    def to_json(self) -> dict[str, Any]:
        """``revert --json`` (and a run's ``revert`` member)."""
        return {
            "runId": self.run_id,
            "state": self.report.state,
            "steps": [s.to_json() for s in self.report.steps],
        }


async def run_steps(session: Session, run_id: int) -> RunSteps:
    """The steps of playbook run ``run_id`` that were done, oldest first.

    Raises:
        NotAPlaybookRun: no such run, a bulk revocation's run, or nothing done.
    """
    journal = session.journal_store
    entries: list[JournalEntry] = []
    cursor = None
    while True:
        page = await journal.page(EntryQuery(run_id=RunId(run_id)), limit=200, cursor=cursor)
        entries.extend(page.entries)
        if page.next is None:
            break
        cursor = page.next
    if not entries:
        raise NotAPlaybookRun("No such run", f"the journal has no run #{run_id}; nothing was sent")
    if any(e.operation not in STEP_OPERATIONS for e in entries):
        raise NotAPlaybookRun(
            "Not a playbook run",
            f"run #{run_id} is a bulk revocation, which cannot be reverted; nothing was sent",
        )
    done = sorted((e for e in entries if e.outcome == Outcome.OK.value), key=lambda e: e.id)
    if not done:
        raise NotAPlaybookRun(
            "Nothing to revert", f"run #{run_id} has no step that was done; nothing was sent"
        )
    name = (done[0].item_key or "?").rpartition("#")[0] or "?"
    return RunSteps(run_id, name, tuple(done))


def check_may_revert(
    session: Session, steps: RunSteps, *, confirmed: bool, reason: str | None
) -> None:
    """Refuse before asking: read-only, or protected without confirmation."""
    session.check_may_change(confirmed=confirmed, reason=_reason(steps.run_id, reason))


async def revert_run(session: Session, steps: RunSteps, *, reason: str | None) -> PlaybookRevert:
    """Revert a run's steps, last first (``playbook revert RUN_ID``); the caller confirmed."""
    return await _revert(session, steps.run_id, steps.entries, reason)


async def revert_steps(
    session: Session, summary: RunSummary, *, reason: str | None
) -> PlaybookRevert:
    """Revert the steps a stopped run did, last first (the offer after a failure)."""
    return await _revert(session, summary.run_id, summary.done_entry_ids(), reason)


async def _revert(
    session: Session, run_id: int | None, entries: Sequence[int | JournalEntry], reason: str | None
) -> PlaybookRevert:
    report = await revert_entries(
        session,
        entries,
        executor=session.settings.operator or local_operator(),
        reason=_reason(run_id, reason),
        confirmed=True,
    )
    return PlaybookRevert(run_id, report)


def _reason(run_id: int | None, reason: str | None) -> str:
    run = f"run #{run_id}" if run_id is not None else "a run"
    return reason.strip() if reason and reason.strip() else f"revert of playbook {run}"
