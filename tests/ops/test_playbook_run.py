"""A playbook run against the sandbox over loopback: order, one run id, failure, revert."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from bottui.api.client import build_thresholds
from bottui.api.errors import RefusedError
from bottui.demo import prepare
from bottui.ops import mutations, revert
from bottui.ops.playbooks import library, playbook_plan, playbook_run
from bottui.ops.playbooks.library import PlaybookFileError
from bottui.ops.session import Session
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_records import EntryQuery, RunId
from tests.fixtures.sandbox import ACC, PROJ

PLAYBOOK = """\
description = "Scraping wave"
project = "shop-prod"

[[steps]]
limiter = "rl-search"
action = "enable"

[[steps]]
dimension = "bot-score"
block = 0.9
challenge = 0.6

[[steps]]
limiter = "rl-api"
action = "enable"
"""


def sent(sandbox: SandboxServer) -> list[tuple[str, Any]]:
    """The PUTs the sandbox received, in order: (target id, body)."""
    puts = [r for r in sandbox.state.recorder.log if r.method in ("PUT", "PATCH", "POST")]
    return [(_target(r.segments), r.json) for r in puts]


def _target(segments: tuple[str, ...]) -> str:
    # .../rate-limiters/ID or .../dimensions/ID/thresholds (whichever the client uses)
    words = [s for s in segments if s not in ("thresholds", "active", "state")]
    return words[-1]


@pytest.fixture
async def session(tmp_path: Path, sandbox: SandboxServer) -> AsyncIterator[Session]:
    session = prepare(tmp_path / "demo", sandbox.base_url)
    folder = library.directory(session.locations)
    folder.mkdir(parents=True)
    (folder / "scrape.toml").write_text(PLAYBOOK, encoding="utf-8")
    yield session
    await session.aclose()


async def planned(session: Session, name: str = "scrape") -> playbook_plan.PlaybookPlan:
    book = await library.load(session.locations, name)
    account, project = playbook_plan.scope(session, book, ACC, None)
    return (await playbook_plan.plan_playbook(session, book, account, project)).with_reason("INC-1")


ON = {"isActive": True}
OFF = {"isActive": False}
TIGHT = {"name": "Bot score", "blockThreshold": 0.9, "challengeThreshold": 0.6}
BEFORE = {"name": "Bot score", "blockThreshold": 0.8, "challengeThreshold": 0.5}


async def test_the_plan_shows_known_now_new_and_source(session: Session) -> None:
    plan = await planned(session)
    rows = [(s.number, s.target, s.known, s.new) for s in plan.steps]
    assert rows == [
        (1, "limiter rl-search", "OFF", "ON"),
        (
            2,
            "dimension bot-score",
            "Bot score: block 0.8, challenge 0.5",
            "Bot score: block 0.9, challenge 0.6",
        ),
        (3, "limiter rl-api", "OFF", "ON"),
    ]
    assert all(s.source for s in plan.steps)


async def test_a_run_sends_in_order_under_one_run_id(
    session: Session, sandbox: SandboxServer
) -> None:
    seen: list[tuple[int, str]] = []
    summary = await playbook_run.run_playbook(
        session,
        await planned(session),
        confirmed=False,
        progress=lambda r: seen.append((r.step.number, r.state)),
    )
    assert summary.complete and summary.run_id is not None
    assert sent(sandbox) == [("rl-search", ON), ("bot-score", TIGHT), ("rl-api", ON)]
    assert seen == [
        (1, "sending"),
        (1, "done"),
        (2, "sending"),
        (2, "done"),
        (3, "sending"),
        (3, "done"),
    ]
    page = await session.journal_store.page(EntryQuery(run_id=RunId(summary.run_id)))
    keys = sorted((e.item_key, e.outcome, e.reason) for e in page.entries)
    assert keys == [
        ("scrape#1", "ok", "INC-1"),
        ("scrape#2", "ok", "INC-1"),
        ("scrape#3", "ok", "INC-1"),
    ]


async def test_a_failure_stops_the_run_and_the_steps_done_are_reverted(
    session: Session, sandbox: SandboxServer
) -> None:
    def fail_step_2(result: playbook_run.StepResult) -> None:
        if result.step.number == 2 and result.state == "sending":
            sandbox.faults.configure(fail_next=10, error_status=503)
        if result.state != "sending":
            sandbox.faults.configure(fail_next=0)

    summary = await playbook_run.run_playbook(
        session, await planned(session), confirmed=False, progress=fail_step_2
    )
    states = [r.state for r in summary.results]
    assert states[0] == "done" and states[1] in ("failed", "unknown") and states[2] == "not sent"
    assert summary.stopped_at is summary.results[1]
    assert [p[0] for p in sent(sandbox)].count("rl-api") == 0  # step 3 never sent
    done = await revert.revert_steps(session, summary, reason=None)
    assert done.report.state == "reverted" and done.exit_code == 0
    assert sent(sandbox)[-1] == ("rl-search", OFF)  # step 1 back to its previous value
    assert sandbox.state.rate_limiter(ACC, PROJ, "rl-search").is_active is False


async def test_revert_run_goes_in_reverse_order(session: Session, sandbox: SandboxServer) -> None:
    summary = await playbook_run.run_playbook(session, await planned(session), confirmed=False)
    assert summary.run_id is not None
    steps = await revert.run_steps(session, summary.run_id)
    assert steps.playbook == "scrape" and len(steps.entries) == 3
    before = len(sent(sandbox))
    done = await revert.revert_run(session, steps, reason="all clear")
    assert done.report.state == "reverted"
    assert sent(sandbox)[before:] == [("rl-api", OFF), ("bot-score", BEFORE), ("rl-search", OFF)]


async def test_a_step_changed_since_is_superseded_not_sent(
    session: Session, sandbox: SandboxServer
) -> None:
    summary = await playbook_run.run_playbook(session, await planned(session), confirmed=False)
    assert summary.run_id is not None
    # Someone else tightens bot-score further after the run.
    later = build_thresholds("Bot score", "0.95", "0.7")
    await mutations.set_thresholds(session, ACC, PROJ, "bot-score", later)
    before = len(sent(sandbox))
    done = await revert.revert_run(
        session, await revert.run_steps(session, summary.run_id), reason=None
    )
    states = [(s.what, s.state) for s in done.report.steps]
    assert states[0] == ("rate limiter rl-api", "reverted")
    assert states[1] == ("dimension bot-score", "superseded")
    assert ("bot-score", BEFORE) not in sent(sandbox)[before:]
    assert sent(sandbox)[before:] == [("rl-api", OFF)]
    assert done.exit_code == 2


async def test_an_id_the_inventory_never_saw_is_refused_with_its_line(session: Session) -> None:
    folder = library.directory(session.locations)
    (folder / "typo.toml").write_text(PLAYBOOK.replace('"rl-api"', '"rl-apj"'), encoding="utf-8")
    with pytest.raises(PlaybookFileError) as caught:
        await planned(session, "typo")
    assert caught.value.line == 14 and "never seen limiter rl-apj" in caught.value.reason


async def test_read_only_refuses_the_whole_run_before_sending(
    session: Session, sandbox: SandboxServer
) -> None:
    plan = await planned(session)
    session.update_settings(replace(session.settings, read_only=True))
    with pytest.raises(RefusedError, match="read-only"):
        await playbook_run.run_playbook(session, plan, confirmed=True)
    assert sent(sandbox) == []


async def test_a_flag_naming_another_project_is_refused(session: Session) -> None:
    book = await library.load(session.locations, "scrape")
    with pytest.raises(PlaybookFileError, match="for project shop-prod"):
        playbook_plan.scope(session, book, ACC, "shop-staging")


async def test_for_schedules_the_revert_of_every_step(session: Session) -> None:
    now = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    summary = await playbook_run.run_playbook(
        session,
        await planned(session),
        confirmed=False,
        revert_after=timedelta(hours=2),
        now=lambda: now,
    )
    assert summary.revert_due == now + timedelta(hours=2)
