"""A timed change from a fresh inventory: the operator states the value to revert to (#24).

``--revert-to on|off`` (``--revert-to-block``/``--revert-to-challenge`` for a
dimension) on the loopback sandbox, ``run-due --now`` moving time; and the ops
function the TUI's dialog calls, :func:`bottui.ops.revert.with_revert_to`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from msgspec.structs import replace

from bottui.ops import mutations, planning, revert
from bottui.ops.revert import RevertToRefused, limiter_value, thresholds_value, with_revert_to
from bottui.ops.session import Session
from bottui.ops.timed.schedule import list_timed
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_records import EntryId
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope
from tests.timed.conftest import ACC, PROJ, MovingClock, limiter_puts


def _at(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).isoformat()


def _journal(limit: int = 10) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = cli("journal", "--json", "--limit", str(limit)).json()[
        "entries"
    ]
    return entries


def test_fresh_inventory_revert_to_off_schedules_and_restores_off(env: SandboxServer) -> None:
    done = cli("limiter", "enable", "rl-login", "--for", "30m", "--revert-to", "off", *scope())
    assert done.code == 0, done.err
    assert "timed: reverts to OFF (stated) in 30m (timed change 1" in done.err
    [row] = cli("timed", "--json", *scope()).json()["timed"]
    assert (row["state"], row["revertTo"], row["revertToStated"]) == ("scheduled", "OFF", True)
    assert "-> OFF (stated)" in cli("timed", *scope()).out
    [entry] = _journal()
    assert entry["previous"] == {"isActive": False, "stated": True}

    early = cli("run-due", "--now", _at(timedelta(minutes=29)), *scope())
    assert (early.code, early.out.strip()) == (0, "nothing due")
    due = cli("run-due", "--now", _at(timedelta(minutes=31)), "--json", *scope())
    assert due.code == 0, due.err
    [report] = due.json()["reports"]
    assert (report["action"], report["message"]) == ("reverted", "back to OFF")
    assert limiter_puts(env, "rl-login") == [{"isActive": True}, {"isActive": False}]
    assert env.state.rate_limiter(ACC, PROJ, "rl-login").is_active is False  # type: ignore[union-attr]


def test_without_revert_to_still_refused_and_says_how(env: SandboxServer) -> None:
    refused = cli("limiter", "disable", "rl-login", "--for", "30m", *scope())
    assert refused.code == 2 and "--revert-to" in refused.err
    assert limiter_puts(env, "rl-login") == []


def test_a_known_value_that_disagrees_is_refused_naming_both(env: SandboxServer) -> None:
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0  # the inventory learns ON
    refused = cli("limiter", "disable", "rl-login", "--for", "30m", "--revert-to", "off", *scope())
    assert refused.code == 2
    assert "the inventory knows ON" in refused.err and "not OFF as stated" in refused.err
    assert limiter_puts(env, "rl-login") == [{"isActive": True}]
    # One that agrees is the known value: journaled as known, not stated.
    agreed = cli("limiter", "disable", "rl-login", "--for", "30m", "--revert-to", "on", *scope())
    assert agreed.code == 0, agreed.err
    assert "reverts to ON in 30m" in agreed.err and "(stated)" not in agreed.err
    assert _journal()[0]["previous"] == {"isActive": True}


def test_refused_before_sending(env: SandboxServer) -> None:
    same = cli("limiter", "disable", "rl-login", "--for", "30m", "--revert-to", "off", *scope())
    assert same.code == 2 and "is what this change sets" in same.err
    alone = cli("limiter", "disable", "rl-login", "--revert-to", "on", *scope())
    assert alone.code == 2 and "needs --for" in alone.err
    half = cli(
        "thresholds", "set", "bot-score", "--name", "Bot score", "--block", "0.9",
        "--challenge", "0.6", "--for", "30m", "--revert-to-block", "0.8", *scope(),
    )  # fmt: skip
    assert half.code == 2 and "go together" in half.err
    assert env.state.recorder.log == []


def test_dry_run_shows_the_stated_revert(env: SandboxServer) -> None:
    argv = ("limiter", "disable", "rl-login", "--for", "30m", "--revert-to", "on", *scope())
    dry = cli(*argv, "--dry-run", "--json")
    assert dry.code == 0, dry.err
    assert dry.json()["revert"] == {"afterSeconds": 1800, "to": "ON", "stated": True}
    assert "timed: would revert to ON (stated) after 30m" in dry.err
    assert env.state.recorder.log == []


def test_thresholds_revert_to_stated_values(env: SandboxServer) -> None:
    done = cli(
        "thresholds", "set", "bot-score", "--name", "Bot score", "--block", "0.9",
        "--challenge", "0.6", "--for", "30m", "--revert-to-block", "0.85",
        "--revert-to-challenge", "0.45", *scope(),
    )  # fmt: skip
    assert done.code == 0, done.err
    assert "reverts to Bot score: block 0.85, challenge 0.45 (stated) in 30m" in done.err
    assert _journal()[0]["previous"] == {
        "name": "Bot score",
        "blockThreshold": 0.85,
        "challengeThreshold": 0.45,
        "stated": True,
    }
    due = cli("run-due", "--now", _at(timedelta(minutes=31)), *scope())
    assert due.code == 0 and "reverted" in due.out, due.out + due.err
    bot = env.state.dimension(ACC, PROJ, "bot-score")
    assert bot is not None and (bot.block_threshold, bot.challenge_threshold) == (0.85, 0.45)


async def test_the_ops_function_for_the_dialog(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    plan = await planning.plan_limiter(session, ACC, PROJ, "rl-nowhere", True)
    assert plan.previous is None
    assert revert.choices(plan) == ({"isActive": False},)
    stated = with_revert_to(plan, limiter_value(False))
    assert stated.previous is not None and stated.previous.stated
    assert stated.previous_json == {"isActive": False, "stated": True}
    assert "the operator states OFF" in stated.lines[-1]
    timed_plan = stated.with_revert_after(timedelta(minutes=30))
    assert timed_plan.revert_after == timedelta(minutes=30)
    assert with_revert_to(plan, None) is plan
    with pytest.raises(RevertToRefused, match="what this change sets") as caught:
        with_revert_to(plan, limiter_value(True))
    assert caught.value.exit_code == 2
    with pytest.raises(RevertToRefused, match="not a value of this rate limiter"):
        with_revert_to(plan, thresholds_value("Bot score", "0.8", "0.5"))
    revoke = await planning.plan_revocation(session, ACC, PROJ, visitor_id="v-1")
    with pytest.raises(RevertToRefused, match="revocation"):
        with_revert_to(revoke, limiter_value(True))
    # Applied: the schedule records that the value was stated.
    known = await planning.plan_limiter(session, ACC, PROJ, "rl-login", False)
    assert known.previous is not None and revert.choices(known) == ()
    sandbox_plan = replace_previous(known)
    applied = await mutations.apply(
        session,
        with_revert_to(sandbox_plan, limiter_value(True)).with_revert_after(timedelta(minutes=5)),
    )
    [change] = await list_timed(session)
    assert (change.revert_to, change.revert_to_stated) == ("ON", True)
    assert applied.journal_id is not None
    entry = await session.journal_store.entry(EntryId(applied.journal_id))
    assert entry is not None and entry.previous == {"isActive": True, "stated": True}


def replace_previous(plan: planning.PlannedChange[Any]) -> planning.PlannedChange[Any]:
    """``plan`` as if the inventory did not know its value before."""
    return replace(plan, previous=None)
