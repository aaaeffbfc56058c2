"""A change is planned once (``bottui.ops.planning``) and ``mutations.apply`` sends exactly the
plan.

The read-only and protected rules are tested here, at the level every face
shares, for each of the three operations: a refused plan says why and
``apply`` sends nothing (the loopback sandbox receives no request) and
journals nothing; a protected profile wants ``confirmed``. What the sandbox
receives is compared byte for byte with the plan.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from bottui.api.client import build_thresholds
from bottui.api.errors import BottuiError, RefusedError, ValidationError
from bottui.api.requests import request_json, request_lines
from bottui.demo import prepare
from bottui.ops import mutations, planning, undo
from bottui.ops.confirmation import ConfirmKind
from bottui.ops.planning import (
    DRY_RUN_NOTE,
    LimiterTarget,
    PlannedChange,
    ThresholdsTarget,
    TimedRefused,
    plan_limiter,
    plan_revocation,
    plan_thresholds,
)
from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.inventory.inventory_records import InventorySnapshot, LimiterEntry, Source
from bottui.store.journal.journal_records import JournalEntry
from tests.fixtures.stores import inventory_of, journal_of

ACC, PROJ = DEMO_ACCOUNT, "shop-prod"

Planner = Callable[[Session], Awaitable[PlannedChange[Any]]]

PLANNERS: dict[str, Planner] = {
    "limiter": lambda s: plan_limiter(s, ACC, PROJ, "rl-api", True),
    "revoke": lambda s: plan_revocation(s, ACC, PROJ, visitor_id="visitor-1042"),
    "thresholds": lambda s: plan_thresholds(
        s, ACC, PROJ, "bot-score", build_thresholds("Bot score", "0.9", "0.6")
    ),
}


def _entries(session: Session) -> list[JournalEntry]:
    with journal_of(session) as journal:
        return list(journal.entries())


_OPEN: list[Session] = []


def _session(tmp_path: Path, sandbox: SandboxServer, **settings: Any) -> Session:
    session = prepare(tmp_path / "demo", sandbox.base_url)
    if settings:
        session.update_settings(replace(session.settings, **settings))
    _OPEN.append(session)
    return session


@pytest.fixture(autouse=True)
async def _close_sessions() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


@pytest.mark.parametrize("operation", sorted(PLANNERS))
async def test_read_only_plans_a_refusal_and_apply_sends_nothing(
    operation: str, tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox, read_only=True)
    plan = await PLANNERS[operation](session)
    assert plan.confirmation.kind is ConfirmKind.REFUSED
    assert plan.confirmation.title == "Read-only"
    assert "read-only" in (plan.confirmation.reason or "")
    assert len(plan.requests) == 1  # a dry run still shows what would be sent
    with pytest.raises(RefusedError, match="Read-only"):
        await mutations.apply(session, plan, confirmed=True)
    assert sandbox.state.recorder.log == []
    assert _entries(session) == []


@pytest.mark.parametrize("operation", sorted(PLANNERS))
async def test_a_plan_made_writable_is_refused_when_the_profile_became_read_only(
    operation: str, tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    plan = await PLANNERS[operation](session)
    assert plan.confirmation.kind is ConfirmKind.CLICK
    session.update_settings(replace(session.settings, read_only=True))
    with pytest.raises(RefusedError, match="Read-only"):
        await mutations.apply(session, plan)
    assert sandbox.state.recorder.log == []
    assert _entries(session) == []


@pytest.mark.parametrize("operation", sorted(PLANNERS))
async def test_protected_wants_the_project_id_typed_and_confirmed(
    operation: str, tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox, protected=True)
    plan = await PLANNERS[operation](session)
    assert plan.confirmation.kind is ConfirmKind.TYPED
    assert plan.confirmation.typed == PROJ
    with pytest.raises(RefusedError, match="Protected profile"):
        await mutations.apply(session, plan)
    assert sandbox.state.recorder.log == []
    assert _entries(session) == []
    await mutations.apply(session, plan, confirmed=True)
    assert len(sandbox.state.recorder.log) == 1
    assert len(_entries(session)) == 1


@pytest.mark.parametrize("operation", sorted(PLANNERS))
async def test_apply_sends_the_planned_request_byte_for_byte(
    operation: str, tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    plan = await PLANNERS[operation](session)
    applied = await mutations.apply(session, plan)
    [received] = sandbox.state.recorder.log
    request = plan.request
    assert received.method == request.method
    assert sandbox.base_url + received.raw_path == request.url
    assert received.body == request.body
    assert applied.request is request
    [entry] = _entries(session)
    assert entry.id == applied.journal_id
    assert entry.request_body == request.body_json()
    assert entry.undo_of is None


async def test_apply_does_not_prepare_the_request_again(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    # The same request with other (valid) bytes: a second prepare would send the usual ones.
    session = _session(tmp_path, sandbox)
    plan = await plan_limiter(session, ACC, PROJ, "rl-api", True)
    compact = replace(plan.request, body=b'{"isActive":true}')
    assert compact.body != plan.request.body
    await mutations.apply(session, replace(plan, requests=(compact,)))
    assert sandbox.state.recorder.last().body == b'{"isActive":true}'


async def test_a_plan_for_another_base_url_is_refused(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    plan = await plan_limiter(session, ACC, PROJ, "rl-api", True)
    session.update_settings(replace(session.settings, base_url="http://127.0.0.1:9"))
    with pytest.raises(RefusedError, match="Out-of-date plan"):
        await mutations.apply(session, plan)
    assert sandbox.state.recorder.log == []
    assert _entries(session) == []


async def test_invalid_input_fails_at_planning(tmp_path: Path, sandbox: SandboxServer) -> None:
    session = _session(tmp_path, sandbox)
    with pytest.raises(ValidationError):
        await plan_limiter(session, ACC, PROJ, "", True)
    with pytest.raises(ValidationError):
        await plan_revocation(session, ACC, PROJ)


async def test_the_previous_value_comes_from_the_inventory(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    inventory = inventory_of(session)
    assert inventory is not None
    known = inventory.limiter(ACC, PROJ, "rl-api")
    assert known is not None and known.is_active is not None
    plan = await plan_limiter(session, ACC, PROJ, "rl-api", not known.is_active)
    assert plan.previous is not None
    assert plan.previous.value == {"isActive": known.is_active}
    assert (plan.previous.known_at, plan.previous.source) == (known.known_at, known.source)
    assert plan.last_known.startswith(f"Last known: {'ON' if known.is_active else 'OFF'} since ")
    assert plan.lines[-1] == plan.last_known
    applied = await mutations.apply(session, plan)
    [entry] = _entries(session)
    assert entry.id == applied.journal_id
    assert entry.previous == {"isActive": known.is_active}

    dimension = inventory.dimension(ACC, PROJ, "bot-score")
    assert dimension is not None
    plan_t = await PLANNERS["thresholds"](session)
    assert plan_t.previous is not None
    assert plan_t.previous.value == dimension.previous()

    unknown = await plan_limiter(session, ACC, PROJ, "rl-never-seen", True)
    assert unknown.previous is None
    assert unknown.last_known == "Its value now is not known."


async def test_a_limiter_known_without_its_state_has_no_previous_value(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    # The inventory knows the limiter (by name) but not whether it is on: not a previous value.
    session = _session(tmp_path, sandbox)
    with inventory_of(session) as inventory:
        inventory.import_snapshot(
            InventorySnapshot(
                limiters=(
                    LimiterEntry(
                        ACC,
                        PROJ,
                        "rl-name-only",
                        "Name only",
                        None,
                        "2026-01-01T00:00:00Z",
                        Source.IMPORT,
                    ),
                )
            )
        )
        named = inventory.limiter(ACC, PROJ, "rl-name-only")
    assert named is not None and named.is_active is None
    plan = await plan_limiter(session, ACC, PROJ, "rl-name-only", True)
    assert plan.previous is None
    assert plan.last_known == "Its value now is not known."
    with pytest.raises(TimedRefused, match="not known"):
        plan.with_revert_after(timedelta(minutes=5))


async def test_a_timed_change_needs_a_duration_above_zero(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    plan = await plan_limiter(session, ACC, PROJ, "rl-api", False)
    assert plan.previous is not None
    for duration in (timedelta(0), timedelta(seconds=-1)):
        with pytest.raises(TimedRefused, match="above zero"):
            plan.with_revert_after(duration)
    shortest = timedelta(microseconds=1)
    assert plan.with_revert_after(shortest).revert_after == shortest


async def test_a_timed_dry_run_says_when_and_to_what_it_reverts(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    plan = await plan_limiter(session, ACC, PROJ, "rl-api", False)
    assert plan.previous is not None
    timed = plan.with_revert_after(timedelta(minutes=30))
    assert timed.dry_run_json()["revert"] == {
        "afterSeconds": 1800,
        "to": plan.previous.text,
        "stated": False,
    }
    assert "revert" not in plan.dry_run_json()


async def test_the_journaled_duration_is_the_time_the_call_took(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    # Bounded by the test's own clock around each call: no wall-clock limit.
    session = _session(tmp_path, sandbox)
    ok = await plan_limiter(session, ACC, PROJ, "rl-api", False)
    failing = await plan_limiter(session, ACC, PROJ, "rl-nowhere", False)
    started = time.perf_counter()
    applied = await mutations.apply(session, ok)
    took_ok = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    with pytest.raises(BottuiError):
        await mutations.apply(session, failing)
    took_failed = (time.perf_counter() - started) * 1000
    assert 0 <= applied.duration_ms <= took_ok
    [failed] = [e for e in _entries(session) if e.id != applied.journal_id]
    [done] = [e for e in _entries(session) if e.id == applied.journal_id]
    assert done.duration_ms == applied.duration_ms
    assert failed.duration_ms is not None and 0 <= failed.duration_ms <= took_failed


async def test_the_decision_line_says_what_changes_from_what_to_what(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    limiter = await plan_limiter(session, ACC, PROJ, "rl-api", False)
    assert limiter.previous is not None
    assert limiter.decision == f"rate limiter rl-api: {limiter.previous.text} -> OFF"
    unknown = await plan_limiter(session, ACC, PROJ, "rl-never-seen", True)
    assert unknown.decision == "rate limiter rl-never-seen: ? -> ON"
    assert replace(unknown, undo_of=7).decision == "undo #7: rate limiter rl-never-seen: ? -> ON"
    visitor = await plan_revocation(session, ACC, PROJ, visitor_id="v-1")
    assert visitor.decision == "revoke the grant of visitor v-1"
    both = await plan_revocation(session, ACC, PROJ, visitor_id="v-1", user_account_id="u-2")
    assert both.decision == "revoke the grant of visitor v-1 and user account u-2"
    user = await plan_revocation(session, ACC, PROJ, user_account_id="u-2")
    assert user.decision == "revoke the grant of user account u-2"


async def test_a_thresholds_decision_names_the_dimension_only_when_it_must(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    plan = await PLANNERS["thresholds"](session)
    assert plan.previous is not None
    after = "block 0.9, challenge 0.6"
    known = {"name": "Bot score", "blockThreshold": "0.8", "challengeThreshold": "0.5"}
    was = replace(plan, previous=replace(plan.previous, value=known))
    assert was.decision == f"dimension bot-score: block 0.8, challenge 0.5 -> {after}"
    # A name with ": " in it: the whole text, so the name cannot pass for the thresholds.
    odd = {**known, "name": "Bot: score"}
    named = replace(plan, previous=replace(plan.previous, value=odd))
    assert named.decision == f"dimension bot-score: Bot: score: block 0.8, challenge 0.5 -> {after}"
    assert replace(plan, previous=None).decision == f"dimension bot-score: ? -> {after}"


async def test_the_journaled_reason_adds_the_acknowledged_collision(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    plan = await plan_limiter(session, ACC, PROJ, "rl-api", False)
    seen = "changed by bob 2 min ago"
    assert replace(plan, reason=None, acknowledged=None).journal_reason is None
    assert replace(plan, reason="INC-1", acknowledged=None).journal_reason == "INC-1"
    assert replace(plan, reason=None, acknowledged=seen).journal_reason == seen
    assert replace(plan, reason="INC-1", acknowledged=seen).journal_reason == f"INC-1 · {seen}"


async def test_texts_for_the_confirmation(tmp_path: Path, sandbox: SandboxServer) -> None:
    session = _session(tmp_path, sandbox)
    plan = await plan_limiter(session, ACC, PROJ, "rl-api", False)
    assert (plan.title, plan.confirm_label) == ("Disable rate limiter?", "Disable")
    assert plan.lines[:3] == (
        "Rate limiter rl-api",
        f"Project {PROJ}, account {ACC}",
        "New state: OFF",
    )
    revocation = await PLANNERS["revoke"](session)
    assert revocation.title == "Revoke challenge grant?"
    assert "  visitor id visitor-1042" in revocation.lines


async def test_dry_run_is_the_plans_requests(tmp_path: Path, sandbox: SandboxServer) -> None:
    session = _session(tmp_path, sandbox, read_only=True)
    plan = await PLANNERS["thresholds"](session)
    assert plan.dry_run_lines() == request_lines(plan.request)
    assert plan.dry_run_json() == {"dryRun": True, "requests": [request_json(plan.request)]}
    assert DRY_RUN_NOTE == "dry run: nothing was sent"
    # The request builder alone builds the very same request.
    assert (
        planning.thresholds_request(
            session, ACC, PROJ, "bot-score", build_thresholds("Bot score", "0.9", "0.6")
        )
        == plan.request
    )


async def test_the_undo_plan_restores_what_undo_computes(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    done = await mutations.set_limiter(session, ACC, PROJ, "rl-login", False)
    found = await undo.find(session)
    change = await undo.plan_change(session, found)
    assert change.undo_of == done.journal_id == found.entry.id
    assert change.target == LimiterTarget("rl-login", found.restore_active())
    assert change.request == planning.limiter_request(
        session, ACC, PROJ, "rl-login", found.restore_active()
    )
    assert change.title == "Undo the last rate limiter change?"
    assert f"Restore: {found.restored}" in change.lines
    assert change.previous is not None and change.previous.value == {"isActive": False}
    applied = await undo.apply(session, found, change=change)
    assert sandbox.state.recorder.last().body == change.request.body
    [entry] = [e for e in _entries(session) if e.id == applied.journal_id]
    assert entry.undo_of == found.entry.id


async def test_an_undo_plan_of_thresholds(tmp_path: Path, sandbox: SandboxServer) -> None:
    session = _session(tmp_path, sandbox)
    await mutations.set_thresholds(
        session, ACC, PROJ, "bot-score", build_thresholds("Bot score", "0.9", "0.6")
    )
    found = await undo.find(session)
    change = await undo.plan_change(session, found)
    assert change.target == ThresholdsTarget("bot-score", found.restore_thresholds())
    other = replace(change, undo_of=(change.undo_of or 0) + 1)
    with pytest.raises(ValueError, match="does not undo"):
        await undo.apply(session, found, change=other)
    assert len(sandbox.state.recorder.log) == 1  # only the change itself


async def test_undo_of_a_read_only_profile_is_refused_by_the_plan(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = _session(tmp_path, sandbox)
    await mutations.set_limiter(session, ACC, PROJ, "rl-login", False)
    session.update_settings(replace(session.settings, read_only=True))
    change = await undo.plan_change(session, await undo.find(session))
    assert change.confirmation.kind is ConfirmKind.REFUSED
    with pytest.raises(RefusedError, match="Read-only"):
        await mutations.apply(session, change, confirmed=True)
    assert len(sandbox.state.recorder.log) == 1
