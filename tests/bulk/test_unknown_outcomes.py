"""#10.11: a request that may have arrived unanswered is *unknown*, never *failed*.

Against the loopback sandbox with its faults: a latency longer than the
client's read timeout, and a connection dropped after (or before) the
request was applied. The sandbox's own state says what really happened.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bottui.api.client import BotProtectionClient
from bottui.api.errors import UNKNOWN_NOTE
from bottui.api.sending import RetryPolicy
from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.input import BulkSource
from bottui.ops.bulk.report import ItemResult, ItemStatus, summary_lines
from bottui.ops.session import Session, Settings
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from bottui.store.keyring_tokens import TokenStore
from tests.cli.helpers import cli
from tests.fixtures.sandbox import ACC, PROJ, scope

STANDING = "vis_7Hq2kP9xLm"  # a demo grant on shop-prod
#: Short: the latency fault (1 s) outlasts every attempt's read timeout.
QUICK = RetryPolicy(max_attempts=2, base_delay=0.05, read_timeout=0.3, deadline=5)
ONE_ATTEMPT = RetryPolicy(max_attempts=1, read_timeout=5, deadline=10)


def make_session(base_url: str, policy: RetryPolicy) -> Session:
    return Session(
        Locations.default(),
        Settings(profile_name=None, base_url=base_url),
        TokenStore(),
        client_factory=lambda u: BotProtectionClient(u, policy=policy),
    )


@pytest.fixture
async def quick(env: SandboxServer) -> AsyncIterator[Session]:
    s = make_session(env.base_url, QUICK)
    yield s
    await s.aclose()


def standing(env: SandboxServer, visitor: str = STANDING) -> bool:
    return env.state.grant(ACC, PROJ, "visitorId", visitor) is not None


def wait_withdrawn(env: SandboxServer, visitor: str = STANDING, timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while standing(env, visitor):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def outcomes(session: Session, run_id: int | None) -> dict[str, str | None]:
    """The latest outcome of each visitor id of a run."""
    with Journal(session.locations.journal_file) as journal:
        entries = journal.entries(run_id=run_id)  # newest first: the newest wins
        return {e.target.get("visitorId"): e.outcome for e in reversed(entries)}


async def run_engine(session: Session, text: str, **options: Any) -> tuple[Any, list[ItemResult]]:
    results: list[ItemResult] = []
    run = BulkRevocation(
        session, ACC, PROJ, BulkSource.from_text(text), on_result=results.append, **options
    )
    return await run.run(), results


async def test_timeouts_are_unknown_and_resume_reports_unknown_retried(
    quick: Session, env: SandboxServer
) -> None:
    env.faults.configure(latency=1.0)
    summary, results = await run_engine(quick, f"{STANDING}\nvis_none\n")
    assert (summary.unknown, summary.failed) == (2, 0)
    assert {r.status for r in results} == {ItemStatus.UNKNOWN}
    assert all(r.error and UNKNOWN_NOTE in r.error for r in results)
    assert summary.exit_code == 4  # network, per CONVENTIONS
    assert summary.to_json()["unknown"] == 2 and summary.to_json()["failed"] == 0
    lines = [line.split() for line in summary_lines(summary, "ids")]
    assert ["unknown:", "2"] in lines and ["failed:", "0"] in lines
    assert any("--resume" in words for words in lines)
    assert outcomes(quick, summary.run_id) == {STANDING: "unknown", "vis_none": "unknown"}
    # bottui said "unknown": the service did withdraw the grant.
    assert wait_withdrawn(env)

    env.faults.configure(latency=0)
    resumed, results = await run_engine(quick, f"{STANDING}\nvis_none\n", resume=True)
    assert {r.status for r in results} == {ItemStatus.UNKNOWN_RETRIED}
    assert resumed.unknown == 2 and resumed.exit_code == 0
    assert outcomes(quick, summary.run_id) == {
        STANDING: "unknown-retried",
        "vis_none": "unknown-retried",
    }


@pytest.mark.parametrize("mode", ["after", "before"])
async def test_dropped_connection_is_unknown(env: SandboxServer, mode: str) -> None:
    session = make_session(env.base_url, ONE_ATTEMPT)
    try:
        env.faults.configure(drop_next=1, drop_mode=mode)
        summary, results = await run_engine(session, f"{STANDING}\n")
    finally:
        await session.aclose()
    assert [r.status for r in results] == [ItemStatus.UNKNOWN]
    assert (summary.unknown, summary.failed, summary.exit_code) == (1, 0, 4)
    assert outcomes(session, summary.run_id) == {STANDING: "unknown"}
    # Unknown both ways: the service did (after) or did not (before) withdraw it.
    assert standing(env) is (mode == "before")


async def test_nothing_sent_is_still_failed(env: SandboxServer) -> None:
    with SandboxServer() as gone:
        url = gone.base_url
    session = make_session(url, QUICK)
    try:
        summary, results = await run_engine(session, "vis_a\n")
    finally:
        await session.aclose()
    assert [r.status for r in results] == [ItemStatus.FAILED]
    assert (summary.failed, summary.unknown, summary.exit_code) == (1, 0, 4)
    assert outcomes(session, summary.run_id) == {"vis_a": "network-error"}


@pytest.mark.parametrize("name", ["results.csv", "results.jsonl"])
def test_cli_bulk_output_and_counts_say_unknown(
    env: SandboxServer, tmp_path: Path, ids_file: Callable[..., Path], name: str
) -> None:
    env.faults.configure(drop_next=10, drop_mode="after")  # every attempt
    target = tmp_path / name
    path = ids_file([STANDING])
    r = cli("revoke", "--from-file", str(path), *scope(), "--output", str(target), "--json")
    assert r.code == 4, r.err
    doc = r.json()
    assert (doc["unknown"], doc["failed"]) == (1, 0)
    if name.endswith(".csv"):
        rows = list(csv.DictReader(target.open(encoding="utf-8")))
    else:
        rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert [row["outcome"] for row in rows] == ["unknown"]
    assert UNKNOWN_NOTE in rows[0]["error"]
    assert not standing(env)


@pytest.mark.parametrize(
    "argv",
    [
        ["revoke", "--visitor-id", STANDING],
        ["limiter", "disable", "rl-login"],
        ["thresholds", "set", "bot-score", "--name", "Bot score", "--block", "0.9",
         "--challenge", "0.5"],
    ],
    ids=["revoke", "limiter", "thresholds"],
)  # fmt: skip
def test_single_change_says_it_may_have_been_applied(env: SandboxServer, argv: list[str]) -> None:
    env.faults.configure(drop_next=10, drop_mode="after")  # every attempt
    r = cli(*argv, *scope())
    assert r.code == 4, r.err
    assert UNKNOWN_NOTE in r.err
    assert "Traceback" not in r.err
    with Journal(Locations.default().journal_file) as journal:
        assert [e.outcome for e in journal.entries()] == ["unknown"]


def test_single_change_connect_failure_is_not_unknown(
    env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with SandboxServer() as gone:
        url = gone.base_url
    monkeypatch.setenv("BOTTUI_BASE_URL", url)
    r = cli("revoke", "--visitor-id", "vis_a", *scope())
    assert r.code == 4
    assert UNKNOWN_NOTE not in r.err
    with Journal(Locations.default().journal_file) as journal:
        assert [e.outcome for e in journal.entries()] == ["network-error"]


@pytest.mark.parametrize(
    ("faults", "words"),
    [
        # A gateway's 502 may have forwarded the request: every attempt was one.
        ({"fail_next": 10, "error_status": 502}, "(502)"),
        # The first attempt was dropped after the change was applied; the
        # retry got a plain 500: the first may still have done it.
        ({"drop_next": 1, "drop_mode": "after"}, None),
    ],
    ids=["final-502", "500-after-a-dropped-attempt"],
)
def test_an_api_error_after_an_attempt_that_may_have_arrived_is_unknown(
    env: SandboxServer, faults: dict[str, Any], words: str | None
) -> None:
    env.faults.configure(**faults)
    if words is None:
        # The retry of the dropped attempt is answered 500 (not retried).
        env.faults.configure(fail_next=1, error_status=500)
    r = cli("revoke", "--visitor-id", STANDING, *scope())
    assert r.code == 1, r.err  # the API answered an error
    assert UNKNOWN_NOTE in r.err
    if words:
        assert words in r.err
    with Journal(Locations.default().journal_file) as journal:
        assert [e.outcome for e in journal.entries()] == ["unknown"]
