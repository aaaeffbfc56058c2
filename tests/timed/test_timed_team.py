"""Team mode: two executors on two machines, one real PostgreSQL, one due revert.

Alice makes a timed change on her machine; her journal and its schedule are
pushed to the team store. Alice's and Bob's executors (each its own home,
journal and connection) then run at once: the claim, one INSERT unique per
revert in PostgreSQL, lets exactly one of them send it, counted at the sandbox.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest

from bottui.ops import mutations, planning
from bottui.ops.session import Session
from bottui.ops.timed import execute
from bottui.ops.timed.execute import run_due
from bottui.ops.timed.schedule import extend, list_timed
from bottui.sandbox.server import SandboxServer
from tests.fixtures.teammates import migrated
from tests.team.test_shared_inventory import operator_session, share
from tests.timed.conftest import ACC, PROJ, MovingClock, limiter_puts


@pytest.fixture
async def team_url(pg_admin_url: str) -> str:
    return await migrated(pg_admin_url)


@pytest.fixture
async def alice_bob(
    tmp_path: Path, sandbox: SandboxServer, team_url: str, clock: MovingClock
) -> AsyncIterator[tuple[Session, Session]]:
    alice = operator_session(
        tmp_path, sandbox.base_url, team_url, "alice", seeded=True, clock=clock
    )
    bob = operator_session(tmp_path, sandbox.base_url, team_url, "bob", clock=clock)
    for session in (alice, bob):
        # As a command or the TUI does at its start: what is journaled from now on is shared.
        team = await session.team()
        assert team is not None
        await team.register()
    try:
        yield alice, bob
    finally:
        await alice.aclose()
        await bob.aclose()


async def _timed_disable(alice: Session) -> None:
    plan = await planning.plan_limiter(alice, ACC, PROJ, "rl-login", False)
    await mutations.apply(alice, plan.with_revert_after(timedelta(minutes=30)))
    await share(alice)


async def test_two_executors_race_and_exactly_one_revert_is_sent(
    alice_bob: tuple[Session, Session], sandbox: SandboxServer, clock: MovingClock, team_url: str
) -> None:
    alice, bob = alice_bob
    await _timed_disable(alice)
    [seen_by_bob] = await list_timed(bob)
    assert (seen_by_bob.state, seen_by_bob.what) == ("scheduled", "rate limiter rl-login")
    assert seen_by_bob.entry_ids == (None,)  # Alice's ids are not Bob's
    clock.move(minutes=31)
    # Both have read the schedule as due before either claims: the worst interleaving.
    [for_alice] = await list_timed(alice)
    both = await asyncio.gather(
        execute._perform(
            alice, for_alice, clock.now, "timer on alice-box", late_ok=False, person=False
        ),
        execute._perform(
            bob, seen_by_bob, clock.now, "timer on bob-box", late_ok=False, person=False
        ),
    )
    reports = [[r] for r in both]
    actions = sorted(r.action for rs in reports for r in rs)
    assert actions.count("reverted") == 1, actions
    assert actions == ["claimed-elsewhere", "reverted"], [r.line for rs in reports for r in rs]
    assert limiter_puts(sandbox, "rl-login") == [{"isActive": False}, {"isActive": True}]
    with psycopg.connect(team_url) as conn:
        rows = conn.execute(
            "SELECT c.executor, r.state FROM bottui.timed_claims AS c"
            " JOIN bottui.timed_results AS r USING (timed)"
        ).fetchall()
    assert len(rows) == 1 and rows[0][1] == "reverted"
    winner = rows[0][0]
    # Both machines show who did it.
    for session in (alice, bob):
        [done] = await list_timed(session, include_done=True)
        assert (done.state, done.executor) == ("reverted", winner)
    # Later runs on either machine, at once, send nothing again.
    clock.move(hours=1)
    again = await asyncio.gather(run_due(alice), run_due(bob))
    assert again == [[], []]
    assert await run_due(alice) == [] and await run_due(bob) == []
    assert len(limiter_puts(sandbox, "rl-login")) == 2


async def test_a_teammates_change_since_supersedes_the_revert(
    alice_bob: tuple[Session, Session], sandbox: SandboxServer, clock: MovingClock
) -> None:
    alice, bob = alice_bob
    await _timed_disable(alice)
    clock.move(minutes=5)
    await mutations.set_limiter(bob, ACC, PROJ, "rl-login", True)
    await share(bob)
    clock.move(minutes=30)
    [report] = await run_due(alice)
    assert report.action == "superseded", report.message
    assert "by bob" in report.message
    assert len(limiter_puts(sandbox, "rl-login")) == 2


async def test_extend_on_one_machine_holds_on_the_other(
    alice_bob: tuple[Session, Session], sandbox: SandboxServer, clock: MovingClock
) -> None:
    alice, bob = alice_bob
    await _timed_disable(alice)
    [change] = await list_timed(bob)
    await extend(bob, change.id, timedelta(hours=1))
    clock.move(minutes=31)
    assert await run_due(alice) == []
    [again] = await list_timed(alice)
    assert again.due_at == change.due_at + timedelta(hours=1)
