"""Timed changes in-process against the loopback sandbox, the clock moved by the test."""

from __future__ import annotations

from datetime import timedelta

import pytest
from msgspec.structs import replace

from bottui.api.errors import BottuiError, RefusedError
from bottui.api.models import DimensionThresholds
from bottui.ops import mutations, planning, timed_record
from bottui.ops.planning import TimedRefused
from bottui.ops.session import Session
from bottui.ops.timed import execute
from bottui.ops.timed.execute import revert_now, run_due
from bottui.ops.timed.resolve import resolve
from bottui.ops.timed.schedule import (
    cancel,
    executor_known,
    executor_seen,
    extend,
    list_timed,
    schedule_revert,
)
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_records import EntryId
from bottui.store.journal.journal_rows import micros
from tests.timed.conftest import ACC, PROJ, MovingClock, active, limiter_puts


async def timed_disable(session: Session, minutes: int = 30, **kw: object) -> int:
    plan = await planning.plan_limiter(session, ACC, PROJ, "rl-login", False)
    applied = await mutations.apply(
        session,
        plan.with_revert_after(timedelta(minutes=minutes)),
        **kw,  # type: ignore[arg-type]
    )
    assert applied.journal_id is not None
    return applied.journal_id


async def test_a_timed_change_reverts_when_due_and_not_before(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    entry_id = await timed_disable(session)
    assert not active(sandbox)
    [change] = await list_timed(session)
    assert (change.state, change.what, change.revert_to) == (
        "scheduled",
        "rate limiter rl-login",
        "ON",
    )
    assert change.entry_ids == (entry_id,)
    assert change.due_at == clock.now + timedelta(minutes=30)
    assert change.when_text(clock.now) == "in 30m"

    clock.move(minutes=29)
    assert await run_due(session) == []
    assert len(limiter_puts(sandbox, "rl-login")) == 1

    clock.move(minutes=1)
    [report] = await run_due(session, executor="timer on test")
    assert (report.action, report.late, report.sent) == ("reverted", None, True)
    assert active(sandbox)
    assert limiter_puts(sandbox, "rl-login") == [{"isActive": False}, {"isActive": True}]
    [revert_id] = report.revert.reverts if report.revert else ()
    entry = await session.journal_store.entry(EntryId(revert_id))
    assert entry is not None and entry.undo_of == entry_id
    assert entry.reason is not None and "timer on test" in entry.reason
    assert await list_timed(session) == []
    [done] = await list_timed(session, include_done=True)
    assert (done.state, done.executor, done.reverts) == ("reverted", "timer on test", (revert_id,))
    # Run again: nothing is sent twice.
    clock.move(hours=1)
    assert await run_due(session) == []
    assert len(limiter_puts(sandbox, "rl-login")) == 2


async def test_superseded_when_the_object_changed_since(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    await timed_disable(session)
    clock.move(minutes=5)
    other = await mutations.set_limiter(session, ACC, PROJ, "rl-login", True)
    clock.move(minutes=30)
    [report] = await run_due(session)
    assert report.action == "superseded"
    assert f"superseded by #{other.journal_id}" in report.message
    assert len(limiter_puts(sandbox, "rl-login")) == 2  # the change and the hand-made one
    [done] = await list_timed(session, include_done=True)
    assert (done.state, done.superseded_by) == ("superseded", f"#{other.journal_id}")


async def test_superseded_per_the_inventory(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    await timed_disable(session)
    clock.move(minutes=10)
    # Somebody switched it back in the console, and told the inventory so.
    await session.inventory_store.set_limiter_state(ACC, PROJ, "rl-login", True, source="user")
    clock.move(minutes=30)
    [report] = await run_due(session)
    assert (report.action, report.revert and report.revert.superseded_by) == (
        "superseded",
        "the inventory",
    )
    assert len(limiter_puts(sandbox, "rl-login")) == 1


async def test_late_within_the_limit_is_reverted_and_says_how_late(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    await timed_disable(session)
    clock.move(minutes=45)
    [report] = await run_due(session)
    assert (report.action, report.late) == ("reverted", timedelta(minutes=15))
    assert "late by 15m" in report.line
    assert active(sandbox)


async def test_past_the_lateness_limit_is_skipped_unless_late_ok(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    await timed_disable(session)
    clock.move(hours=2)
    [report] = await run_due(session)
    assert (report.action, report.late) == ("late-skipped", timedelta(minutes=90))
    assert not active(sandbox)
    [still] = await list_timed(session)
    assert still.state == "scheduled"
    [report] = await run_due(session, late_ok=True)
    assert report.action == "reverted"
    assert active(sandbox)


async def test_extend_and_cancel_are_new_events(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    await timed_disable(session)
    [change] = await list_timed(session)
    longer = await extend(session, change.id, timedelta(hours=1))
    assert longer.due_at == change.due_at + timedelta(hours=1)
    clock.move(minutes=31)
    assert await run_due(session) == []
    kept = await cancel(session, change.id)
    assert kept.state == "cancelled"
    clock.move(hours=3)
    assert await run_due(session) == []
    assert not active(sandbox)
    with pytest.raises(RefusedError, match="cancelled"):
        await extend(session, change.id, timedelta(minutes=5))
    events = await session.timed_store.read(lambda j: j.events(include_done=True))
    assert [e.kind for e in events] == ["schedule", "extend", "cancel"]


async def test_read_only_profile_sends_no_revert(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    await timed_disable(session)
    session.update_settings(replace(session.settings, read_only=True))
    clock.move(minutes=30)
    [report] = await run_due(session)
    assert report.action == "refused" and "read-only" in report.message
    assert not active(sandbox)
    [still] = await list_timed(session)
    assert still.state == "scheduled"


async def test_protected_profile_revert_confirmed_by_the_timed_change(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    session.update_settings(replace(session.settings, protected=True))
    await timed_disable(session, confirmed=True)
    clock.move(minutes=30)
    [report] = await run_due(session)
    assert report.action == "reverted"
    assert active(sandbox)


async def test_protected_later_needs_a_person(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    await timed_disable(session)
    session.update_settings(replace(session.settings, protected=True))
    clock.move(minutes=30)
    [report] = await run_due(session)
    assert report.action == "refused" and "protected" in report.message
    assert not active(sandbox)
    [change] = await list_timed(session)
    with pytest.raises(RefusedError, match="protected"):
        await revert_now(session, change.id)
    done = await revert_now(session, change.id, confirmed=True)
    assert done.action == "reverted"
    assert active(sandbox)


async def test_a_profile_made_read_only_while_claiming_refuses_saying_why(
    session: Session, sandbox: SandboxServer, clock: MovingClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The profile passed the check, then became read-only before the revert was sent.
    await timed_disable(session)
    claim = timed_record.claim

    async def claim_then_read_only(*args: object, **kw: object) -> bool:
        won = await claim(*args, **kw)  # type: ignore[arg-type]
        session.update_settings(replace(session.settings, read_only=True))
        return won

    monkeypatch.setattr(timed_record, "claim", claim_then_read_only)
    clock.move(minutes=30)
    [report] = await run_due(session)
    assert report.action == "refused"
    assert "read-only" in report.message and "nothing was sent" in report.message
    assert not active(sandbox)
    [failed] = await list_timed(session, include_done=True)
    assert failed.state == "failed" and failed.note == report.message


async def test_timing_refused_for_a_revocation_and_an_unknown_value(session: Session) -> None:
    revoke = await planning.plan_revocation(session, ACC, PROJ, visitor_id="v-1")
    with pytest.raises(TimedRefused, match="cannot be timed"):
        revoke.with_revert_after(timedelta(hours=1))
    unknown = await planning.plan_limiter(session, ACC, PROJ, "rl-nowhere", True)
    assert unknown.previous is None
    with pytest.raises(TimedRefused, match="not known") as caught:
        unknown.with_revert_after(timedelta(hours=1))
    assert caught.value.exit_code == 2


async def test_a_run_reverts_in_reverse_order(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    dims = DimensionThresholds.from_record(
        {"name": "Bot score", "blockThreshold": "0.9", "challengeThreshold": "0.6"}
    )
    first = await mutations.set_limiter(session, ACC, PROJ, "rl-login", False)
    second = await mutations.set_thresholds(session, ACC, PROJ, "bot-score", dims)
    third = await mutations.set_limiter(session, ACC, PROJ, "rl-login", True)
    ids = [a.journal_id for a in (first, second, third)]
    assert None not in ids
    change = await schedule_revert(
        session, [i for i in ids if i is not None], 7, clock.now + timedelta(minutes=5)
    )
    assert change.what.startswith("run 7: 3 changes")
    clock.move(minutes=5)
    [report] = await run_due(session)
    assert report.action == "reverted", report.message
    assert report.revert is not None
    assert [s.entry_id for s in report.revert.steps] == list(reversed(ids))
    # third back to OFF, then first back to ON: ON in the end.
    assert limiter_puts(sandbox, "rl-login")[-2:] == [{"isActive": False}, {"isActive": True}]
    assert active(sandbox)
    bot = sandbox.state.dimension(ACC, PROJ, "bot-score")
    assert bot is not None and (bot.block_threshold, bot.challenge_threshold) == (0.8, 0.5)


async def test_a_claim_without_a_result_is_never_sent_again_and_is_reported_in_doubt(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    await timed_disable(session)
    [change] = await list_timed(session)
    # An executor claimed it and died before sending.
    await session.timed_store.write(
        lambda j: j.claim(change.key, at=micros(clock.now), executor="timer on gone")
    )
    clock.move(minutes=30)
    # Not sent again, but never silent either (#26): every run reports it in doubt.
    [report] = await run_due(session)
    assert report.action == "in-doubt" and not report.sent
    assert "timer on gone" in report.message and "timed resolve" in report.message
    [shown] = await list_timed(session)
    assert (shown.state, shown.executor) == ("claimed", "timer on gone")
    assert shown.in_doubt(clock.now)
    assert len(limiter_puts(sandbox, "rl-login")) == 1


async def test_a_resend_whose_entries_cannot_be_gathered_is_refused_saying_why(
    session: Session, sandbox: SandboxServer, clock: MovingClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    await timed_disable(session)
    [change] = await list_timed(session)
    await session.timed_store.write(
        lambda j: j.claim(change.key, at=micros(clock.now), executor="timer on gone")
    )
    clock.move(minutes=45)
    why = "journal entry 1 is not in the team store yet: nothing was sent"

    async def not_shared(*_args: object) -> list[object]:
        raise RefusedError("Entry not shared yet", why)

    monkeypatch.setattr(execute, "timed_entries", not_shared)
    resent = await resolve(session, change.id, "resend")
    assert resent.report is not None
    assert (resent.report.action, resent.report.message) == ("refused", why)
    assert len(limiter_puts(sandbox, "rl-login")) == 1


async def test_an_executor_is_known_when_seen_recently(
    session: Session, clock: MovingClock
) -> None:
    assert await executor_known(session) is None
    await executor_seen(session, "tui")
    assert (await executor_known(session) or "").startswith("TUI on ")
    clock.move(minutes=6)
    assert await executor_known(session) is None
    await run_due(session)
    clock.move(hours=23)
    assert (await executor_known(session) or "").startswith("timer on ")
    clock.move(hours=2)
    assert await executor_known(session) is None


async def test_a_failed_change_unschedules_and_an_unknown_one_is_in_doubt(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    # An error answer changed nothing: its revert is cancelled at once.
    plan = await planning.plan_limiter(session, ACC, PROJ, "rl-nowhere", False)
    known = await planning.plan_limiter(session, ACC, PROJ, "rl-login", False)
    timed_plan = replace(plan, previous=known.previous).with_revert_after(timedelta(minutes=5))
    with pytest.raises(BottuiError):
        await mutations.apply(session, timed_plan)
    [gone] = await list_timed(session, include_done=True)
    assert gone.state == "cancelled" and "the change ended as" in (gone.note or "")
    # A change without an outcome (cut off): reported in doubt, never sent by run-due.
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
    await schedule_revert(session, [int(started)], None, clock.now)
    [report] = await run_due(session)
    assert report.action == "in-doubt" and "not known" in report.message
    [still] = await list_timed(session)
    assert still.state == "scheduled"
    assert limiter_puts(sandbox, "rl-login") == []  # rl-nowhere got the one request


async def test_a_journal_that_cannot_be_read_at_revert_time_refuses_saying_why(
    session: Session, sandbox: SandboxServer, clock: MovingClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bottui.store.store_errors import JournalUnavailable

    await timed_disable(session)
    clock.move(minutes=30)

    async def unreadable(entry_id: EntryId) -> None:
        raise JournalUnavailable("The journal is locked", "journal.db is held by another process")

    monkeypatch.setattr(session.journal_store, "entry", unreadable)
    [report] = await run_due(session)
    assert report.action == "refused"
    assert report.message == "journal.db is held by another process"  # the details, not the title
    assert not active(sandbox)  # nothing was sent
