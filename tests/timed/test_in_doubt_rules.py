"""The in-doubt rules of timed changes (#28's mutation survivors): a change whose send was
cut off or whose outcome is unknown is never reverted by ``run-due``; a person who asks
for the revert (``timed revert``) is not stopped by that gate.

Each test fails when its rule is removed from ``bottui/ops/timed/execute.py``
(``_in_doubt``'s two halves, ``and not person``).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from bottui.api.errors import BottuiError
from bottui.ops import mutations, planning
from bottui.ops.session import Session
from bottui.ops.timed.execute import LATE_AFTER, revert_now, run_due
from bottui.ops.timed.schedule import list_timed, schedule_revert
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_records import Outcome
from tests.timed.conftest import ACC, PROJ, MovingClock, limiter_puts


async def disable_with_unknown_outcome(session: Session, sandbox: SandboxServer) -> int:
    """rl-login disabled with a revert in 30 min; every answer cut mid-body (applied first):
    the client cannot tell whether it arrived, so the journal says ``unknown``."""
    sandbox.faults.configure(drop_next=100, drop_mode="after")
    plan = await planning.plan_limiter(session, ACC, PROJ, "rl-login", False)
    with pytest.raises(BottuiError) as caught:
        await mutations.apply(session, plan.with_revert_after(timedelta(minutes=30)))
    assert caught.value.ambiguous
    sandbox.faults.configure(drop_next=0)
    [entry] = (await session.journal_store.page()).entries
    assert entry.outcome == Outcome.UNKNOWN  # not network-error: it may have arrived
    return int(entry.id)


async def started_only(session: Session, clock: MovingClock) -> int:
    """A change cut off between its started record and its outcome (a kill mid-send)."""
    started = await session.journal_store.start(
        profile=session.settings.inventory_scope,
        base_url=session.base_url,
        operation="limiter.set-active",
        account=ACC,
        project=PROJ,
        target={"rate_limiter_id": "rl-login"},
        request_body={"isActive": False},
        previous={"isActive": True},
        undo_of=None,
        operator=None,
        reason=None,
    )
    await schedule_revert(session, [int(started)], None, clock.now + timedelta(minutes=30))
    return int(started)


async def test_an_unknown_outcome_is_in_doubt_and_not_reverted_by_run_due(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    entry_id = await disable_with_unknown_outcome(session, sandbox)
    sent = len(limiter_puts(sandbox, "rl-login"))
    [scheduled] = await list_timed(session)
    assert scheduled.state == "scheduled"  # an unknown outcome is not a failure
    clock.move(minutes=31)
    [report] = await run_due(session)
    assert (report.action, report.sent) == ("in-doubt", False), report.line
    assert f"#{entry_id}" in report.message and "unknown" in report.message
    assert len(limiter_puts(sandbox, "rl-login")) == sent  # nothing sent
    [still] = await list_timed(session)
    assert still.state == "scheduled"


async def test_an_interrupted_send_is_in_doubt_and_not_reverted_by_run_due(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    entry_id = await started_only(session, clock)
    clock.move(minutes=31)
    [report] = await run_due(session)
    assert (report.action, report.sent) == ("in-doubt", False), report.line
    assert f"#{entry_id}" in report.message and "no outcome" in report.message
    assert limiter_puts(sandbox, "rl-login") == []


@pytest.mark.parametrize(
    "doubt, words",
    [("unknown", "ended as unknown"), ("interrupted", "has no outcome")],
)
async def test_a_person_is_not_stopped_by_the_timer_s_doubt(
    session: Session, sandbox: SandboxServer, clock: MovingClock, doubt: str, words: str
) -> None:
    """``timed revert ID`` is a person deciding: the timer's in-doubt gate does not stop
    it; the revert is claimed and tried, and undo's own rule answers (the entry's effect
    is not known, so nothing is sent) - the timed change ends, it is not left to every
    later ``run-due``."""
    if doubt == "unknown":
        await disable_with_unknown_outcome(session, sandbox)
    else:
        await started_only(session, clock)
    before = len(limiter_puts(sandbox, "rl-login"))
    [change] = await list_timed(session)
    clock.move(minutes=31)
    report = await revert_now(session, str(change.id))
    assert report.action != "in-doubt", report.line
    assert (report.action, report.sent) == ("failed", False), report.line
    assert words in report.message and "not known" in report.message
    assert len(limiter_puts(sandbox, "rl-login")) == before
    assert await list_timed(session) == []  # decided: no longer scheduled
    clock.move(hours=1)
    assert await run_due(session) == []


# -- the lateness boundaries (off-by-one mutations survived them) -------------------------


async def disable_for_30_minutes(session: Session) -> None:
    plan = await planning.plan_limiter(session, ACC, PROJ, "rl-login", False)
    await mutations.apply(session, plan.with_revert_after(timedelta(minutes=30)))


@pytest.mark.parametrize(
    "after_due, late",
    [
        (timedelta(minutes=2), None),  # LATE_AFTER exactly: on time
        (timedelta(minutes=2, seconds=1), timedelta(minutes=2, seconds=1)),
    ],
)
async def test_late_is_strictly_after_two_minutes(
    session: Session, sandbox: SandboxServer, clock: MovingClock, after_due: timedelta, late: object
) -> None:
    assert timedelta(minutes=2) == LATE_AFTER
    await disable_for_30_minutes(session)
    clock.move(minutes=30, seconds=after_due.total_seconds())
    [report] = await run_due(session)
    assert (report.action, report.late) == ("reverted", late), report.line


@pytest.mark.parametrize(
    "after_due, action",
    [(timedelta(hours=1), "reverted"), (timedelta(hours=1, seconds=1), "late-skipped")],
)
async def test_the_lateness_limit_is_inclusive(
    session: Session, sandbox: SandboxServer, clock: MovingClock, after_due: timedelta, action: str
) -> None:
    """Exactly the profile's limit (1 h by default) late is still sent; a second more is not."""
    await disable_for_30_minutes(session)
    clock.move(minutes=30, seconds=after_due.total_seconds())
    [report] = await run_due(session)
    assert (report.action, report.late) == (action, after_due), report.line
