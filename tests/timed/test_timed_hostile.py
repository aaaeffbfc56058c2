"""Timed changes against rows bottui did not write, and claims whose executor is gone (#26).

Against a real PostgreSQL, a second role with only INSERT writes timed events
that are not JSON or not schedules, and a claim of a real revert ("stolen":
no executor will ever record its result). Every executor and list goes on,
says what it skipped, reports the claim in doubt (never "nothing due"), and
a person resolves it. The killed executor is a real ``bottui run-due``
process, SIGKILLed while its revert request is held at the sandbox.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from bottui.api.errors import RefusedError
from bottui.ops.session import Session
from bottui.ops.timed.execute import run_due
from bottui.ops.timed.resolve import resolve
from bottui.ops.timed.schedule import list_timed
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.insert_only import Hostile
from tests.fixtures.sandbox import scope
from tests.fixtures.teammates import migrated
from tests.timed.conftest import MovingClock, active, limiter_puts
from tests.timed.test_timed_team import _timed_disable, alice_bob, team_url

__all__ = ["alice_bob", "team_url"]  # fixtures

BAD = "0badbad0-0000-4000-8000-000000000000"


def _plant_events(hostile: Hostile, key: str) -> None:
    """Timed events no executor can read, one of them an extend of the real change."""
    rows = [
        ("schedule", f"{BAD}:t1", "not json"),
        ("schedule", f"{BAD}:t2", "{}"),
        ("schedule", f"{BAD}:t3", '{"due_at": "infinity", "entries": [], "local": []}'),
        ("extend", key, '{"due_at": "someday"}'),
        ("schedule", f"{BAD}:t4", "[" * 5000),
    ]
    for local_id, (kind, key_of, detail) in enumerate(rows, start=1):
        hostile.insert(
            "timed_events",
            {
                "origin": BAD,
                "local_id": local_id,
                "at": "infinity" if local_id == 5 else "2026-11-24T03:00:00Z",
                "kind": kind,
                "timed": key_of,
                "detail": detail,
                "operator": "mallory",
            },
        )


async def test_a_stolen_claim_is_in_doubt_and_a_person_resends_it(
    alice_bob: tuple[Session, Session],
    sandbox: SandboxServer,
    clock: MovingClock,
    team_url: str,
    pg_database: str,
) -> None:
    alice, bob = alice_bob
    await _timed_disable(alice)
    [change] = await list_timed(bob)
    hostile = Hostile(team_url, f"mallory_{pg_database}")
    _plant_events(hostile, change.key)
    # Someone claims the revert and will never send it nor say how it ended.
    hostile.insert(
        "timed_claims", {"timed": change.key, "at": clock.now.isoformat(), "executor": "mallory"}
    )
    clock.move(minutes=31)
    for session in (alice, bob):
        session.take_warnings()
        [report] = await run_due(session)
        assert report.action == "in-doubt", report.line
        assert "mallory" in report.message and "timed resolve" in report.message
        warnings = "\n".join(session.take_warnings())
        for local_id in (1, 2, 3, 4, 5):
            assert f"{BAD}:e{local_id}" in warnings, warnings
        assert "mallory" in warnings
    assert len(limiter_puts(sandbox, "rl-login")) == 1  # nothing sent by the executors
    [shown] = await list_timed(alice)
    assert shown.in_doubt(clock.now) and shown.shown_state(clock.now) == "in doubt"
    assert shown.due_at == change.due_at  # the unreadable extend changed nothing
    checked = await resolve(alice, shown.id)
    assert any("mallory" in line for line in checked.lines)
    assert any("never sent" in line for line in checked.lines)
    assert len(limiter_puts(sandbox, "rl-login")) == 1  # a check sends nothing
    resent = await resolve(alice, shown.id, "resend")
    assert resent.report is not None and resent.report.action == "reverted", resent.report
    assert active(sandbox, "rl-login")
    assert len(limiter_puts(sandbox, "rl-login")) == 2
    for session in (alice, bob):
        assert await run_due(session) == []
        [done] = await list_timed(session, include_done=True)
        assert done.state == "reverted"
    with pytest.raises(RefusedError, match=r"not a claim in doubt"):
        await resolve(bob, (await list_timed(bob, include_done=True))[0].id, "resend")


async def test_a_claim_in_doubt_marked_done_sends_nothing(
    alice_bob: tuple[Session, Session],
    sandbox: SandboxServer,
    clock: MovingClock,
    team_url: str,
    pg_database: str,
) -> None:
    alice, bob = alice_bob
    await _timed_disable(alice)
    [change] = await list_timed(bob)
    hostile = Hostile(team_url, f"mallory_{pg_database}")
    hostile.insert("timed_claims", {"timed": change.key, "at": "infinity", "executor": "mallory"})
    # A claim whose time is not sane is in doubt at once: the time is data, nothing else.
    [shown] = await list_timed(bob)
    assert shown.in_doubt(clock.now)
    done = await resolve(bob, shown.id, "done")
    assert done.timed.state == "resolved"
    [seen] = await list_timed(alice, include_done=True)
    assert seen.state == "resolved" and "bob" in (seen.note or "")
    clock.move(minutes=31)
    assert await run_due(alice) == []
    assert len(limiter_puts(sandbox, "rl-login")) == 1


async def test_a_claim_not_yet_in_doubt_is_not_resolved(
    alice_bob: tuple[Session, Session], sandbox: SandboxServer, clock: MovingClock
) -> None:
    alice, _ = alice_bob
    await _timed_disable(alice)
    [change] = await list_timed(alice)
    await alice.timed_store.write(
        lambda j: j.claim(change.key, at=int(clock.now.timestamp() * 1e6), executor="busy")
    )
    with pytest.raises(RefusedError, match="Not in doubt yet"):
        await resolve(alice, change.id, "resend")


def _until(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.01)


def _at(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).isoformat()


def test_a_killed_executor_is_reported_and_resolved(
    env: SandboxServer, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    url = asyncio.run(migrated(pg_admin_url))
    monkeypatch.setenv("BOTTUI_STORE_URL", url)
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0
    assert cli("limiter", "disable", "rl-login", "--for", "30m", *scope()).code == 0
    due = _at(timedelta(minutes=31))
    env.faults.hold_requests()
    executor = subprocess.Popen(
        [sys.executable, "-m", "bottui", "run-due", "--now", due, *scope()],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    try:
        assert env.faults.wait_until_held(1, timeout=120), "the revert was never sent"
        executor.send_signal(signal.SIGKILL)
        assert executor.wait(timeout=60) == -signal.SIGKILL
    finally:
        if executor.poll() is None:
            executor.kill()
        env.faults.release()
    # The held request goes on at the sandbox without its client, as at a real server:
    # the revert arrived, but nobody recorded it.
    _until(lambda: len(limiter_puts(env, "rl-login")) == 3, "the held revert was applied")
    sent = 3
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.executor, r.state FROM bottui.timed_claims AS c"
            " LEFT JOIN bottui.timed_results AS r USING (timed)"
        ).fetchall()
    assert len(rows) == 1 and rows[0][1] is None  # claimed, no outcome: the kill
    later = _at(timedelta(minutes=45))
    again = cli("run-due", "--now", later, *scope())
    assert again.code == 2, (again.out, again.err)
    assert "nothing due" not in again.out
    assert "in-doubt" in again.out and "timed resolve 1" in again.out
    assert len(limiter_puts(env, "rl-login")) == sent  # not sent blindly
    listed = cli("timed", "--now", later, *scope())
    assert "in doubt" in listed.out and "timed resolve 1" in listed.err
    as_json = cli("timed", "--now", later, "--json", *scope()).json()
    assert as_json["timed"][0]["inDoubt"] is True
    check = cli("timed", "resolve", "1", "--now", later, *scope())
    assert check.code == 0, check.err
    assert "no outcome" in check.out  # the executor journaled its revert, then died
    assert len(limiter_puts(env, "rl-login")) == sent
    resent = cli("timed", "resolve", "1", "--resend", "--now", later, *scope())
    assert resent.code == 0, (resent.out, resent.err)
    # Sent again, deliberately: the killed executor's own attempt (journaled, no
    # outcome) does not supersede it.
    assert "reverted" in resent.out and "back to ON" in resent.out
    assert active(env, "rl-login") and len(limiter_puts(env, "rl-login")) == sent + 1
    assert cli("run-due", "--now", later, *scope()).out.strip() == "nothing due"
    settled = cli("timed", "--all", "--now", later, *scope()).out
    assert "reverted" in settled and "doubt" not in settled and "claimed" not in settled


def test_the_local_journal_skips_a_timed_event_it_cannot_read(env: SandboxServer) -> None:
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0
    assert cli("limiter", "disable", "rl-login", "--for", "30m", *scope()).code == 0
    journal = Path(os.environ["XDG_STATE_HOME"]) / "bottui" / "journal.sqlite3"
    with sqlite3.connect(journal) as conn:
        conn.execute(
            "INSERT INTO timed_events (id, at, kind, timed, detail, operator, host)"
            " VALUES (100, 'soon', 'schedule', 'x:t100', 'not json', 'mallory', NULL)"
        )
    listed = cli("timed", *scope())
    assert listed.code == 0, listed.err
    assert "rl-login" in listed.out
    assert "e100" in listed.err and "mallory" in listed.err
    due = cli("run-due", "--now", _at(timedelta(minutes=31)), *scope())
    assert due.code == 0, due.err
    assert "reverted" in due.out and "e100" in due.err


async def test_a_resend_is_still_superseded_by_a_teammates_change_since(
    alice_bob: tuple[Session, Session],
    sandbox: SandboxServer,
    clock: MovingClock,
    team_url: str,
    pg_database: str,
) -> None:
    from bottui.ops import mutations
    from tests.team.test_shared_inventory import share
    from tests.timed.conftest import ACC, PROJ

    alice, bob = alice_bob
    await _timed_disable(alice)
    [change] = await list_timed(bob)
    hostile = Hostile(team_url, f"mallory_{pg_database}")
    hostile.insert(
        "timed_claims", {"timed": change.key, "at": clock.now.isoformat(), "executor": "mallory"}
    )
    clock.move(minutes=5)
    await mutations.set_limiter(bob, ACC, PROJ, "rl-login", True)
    await share(bob)
    clock.move(minutes=30)
    [shown] = await list_timed(alice)
    resent = await resolve(alice, shown.id, "resend")
    assert resent.report is not None and resent.report.action == "superseded"
    assert "by bob" in resent.report.message
    assert len(limiter_puts(sandbox, "rl-login")) == 2  # the change and bob's: nothing more
