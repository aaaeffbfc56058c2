"""The bulk engine against the loopback sandbox: bound, pause, stop, journal, resume."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest

from bottui.api.client import BotProtectionClient
from bottui.api.errors import CredentialsError, RefusedError
from bottui.api.sending import RetryPolicy, Timing
from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.input import BulkSource, subject_key
from bottui.ops.bulk.report import BulkProgress, ItemResult, ItemStatus
from bottui.ops.session import Session, Settings
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import RequestRecord
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import StartRecord
from bottui.store.keyring_tokens import TokenStore
from tests.bulk.conftest import logged, visitor_ids
from tests.fixtures.sandbox import ACC, PROJ

STANDING = "vis_7Hq2kP9xLm"  # a demo grant on shop-prod


def ids(count: int, prefix: str = "vis_e") -> str:
    return "".join(f"{prefix}{n:05d}\n" for n in range(count))


@pytest.fixture
async def session(env: SandboxServer) -> AsyncIterator[Session]:
    settings = Settings(profile_name=None, base_url=env.base_url)
    s = Session(Locations.default(), settings, TokenStore())
    yield s
    await s.aclose()


def engine(session: Session, text: str, **options: Any) -> BulkRevocation:
    return BulkRevocation(session, ACC, PROJ, BulkSource.from_text(text), **options)


def journal_entries(session: Session, run_id: int | None) -> list[Any]:
    with Journal(session.locations.journal_file) as journal:
        return journal.entries(run_id=run_id)


@pytest.mark.parametrize("concurrency", [3, 8])
async def test_concurrency_bound_reached_never_passed(
    session: Session, env: SandboxServer, concurrency: int
) -> None:
    env.faults.configure(latency=0.05)
    summary = await engine(session, ids(80), concurrency=concurrency).run()
    assert summary.exit_code == 0
    assert summary.nothing_standing == 80
    assert env.stats.requests == 80
    assert env.stats.peak_in_flight == concurrency


async def test_outcomes_summary_and_journal(session: Session, env: SandboxServer) -> None:
    text = f"visitorId,userAccountId\n{STANDING},\nvis_none,\n,user-1042\nbad\x07,\n{STANDING},\n"
    results: list[ItemResult] = []
    run = engine(session, text, on_result=results.append)
    summary = await run.run()
    assert (summary.total, summary.withdrawn, summary.nothing_standing) == (3, 2, 1)
    assert (summary.duplicates, summary.invalid_count, summary.failed) == (1, 1, 0)
    assert summary.invalid[0].line == 5 and "U+0007" in summary.invalid[0].reason
    assert summary.exit_code == 2  # some lines were invalid; every valid one was sent
    assert {r.status for r in results} == {ItemStatus.WITHDRAWN, ItemStatus.NOTHING_STANDING}
    assert all(r.report_id for r in results)
    entries = journal_entries(session, summary.run_id)
    assert len(entries) == 3
    assert {e.operation for e in entries} == {"grant.revoke"}
    assert sorted(e.outcome for e in entries) == ["nothing-standing", "withdrawn", "withdrawn"]
    assert {e.item_key for e in entries} == {
        subject_key(STANDING, None).hex(),
        subject_key("vis_none", None).hex(),
        subject_key(None, "user-1042").hex(),
    }
    assert all(e.request_body == {"subject": e.target} for e in entries)
    # the body the journal recorded is the body that was sent
    sent = {r.body for r in logged(env)}
    assert {
        f'{{"subject": {{"visitorId": "{STANDING}"}}}}'.encode(),
        b'{"subject": {"userAccountId": "user-1042"}}',
    } <= sent


async def test_retry_after_pauses_every_request(
    session: Session, env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = env.state.recorder
    arrivals: list[float] = []
    answered: list[tuple[float, RequestRecord]] = []
    begin, end = recorder.begin, recorder.end

    def on_begin() -> None:
        arrivals.append(time.monotonic())
        begin()

    def on_end(record: RequestRecord) -> None:
        answered.append((time.monotonic(), record))
        end(record)

    monkeypatch.setattr(recorder, "begin", on_begin)
    monkeypatch.setattr(recorder, "end", on_end)
    env.faults.configure(latency=0.02)
    run = engine(session, ids(150), concurrency=8)

    async def rate_limit_mid_run() -> None:
        while env.stats.requests < 40:
            await asyncio.sleep(0.005)
        env.faults.configure(rate_limit_next=1, retry_after="1")

    limiter = asyncio.create_task(rate_limit_mid_run())
    summary = await run.run()
    await limiter
    assert summary.exit_code == 0 and summary.nothing_standing == 150
    assert summary.pauses == 1
    limited = [t for t, r in answered if r.status == 429]
    assert len(limited) == 1
    t429 = limited[0]
    # In flight when the 429 went out: at most 7 others (one per other worker), which a
    # busy machine may deliver late. Nothing more for the second the service asked for:
    # a worker that did not pause would send dozens (ordering, not speed: a pause only
    # ever starts after the 429 went out, so a slow machine cannot make it look short).
    quiet = [t for t in arrivals if t429 < t < t429 + 0.95]
    assert len(quiet) <= 7, len(quiet)
    assert any(t >= t429 + 0.95 for t in arrivals)  # and then the run went on
    assert len(arrivals) == 151


async def test_retry_after_seen_by_the_injected_sleep(env: SandboxServer) -> None:
    # With the client's time injected, the pause shows as sleeps of the
    # workers that waited, each until the same moment.
    sleeps: list[float] = []
    clock = [0.0]

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock[0] += seconds
        await asyncio.sleep(0)

    timing = Timing(sleep=sleep, clock=lambda: clock[0], wall=lambda: datetime.now(UTC))
    settings = Settings(profile_name=None, base_url=env.base_url)
    s = Session(
        Locations.default(),
        settings,
        TokenStore(),
        client_factory=lambda url: BotProtectionClient(url, timing=timing),
    )
    env.faults.configure(rate_limit_next=1, retry_after="7")
    try:
        summary = await engine(s, ids(20), concurrency=4).run()
    finally:
        await s.aclose()
    assert summary.exit_code == 0 and summary.pauses == 1
    assert sleeps and sum(sleeps) >= 7.0
    assert max(sleeps) <= 7.0
    assert env.stats.requests == 21


async def test_5xx_retried_within_the_run(session: Session, env: SandboxServer) -> None:
    env.faults.configure(fail_next=3, error_status=503)
    summary = await engine(session, ids(10), concurrency=2).run()
    assert summary.exit_code == 0 and summary.nothing_standing == 10
    assert env.stats.requests == 13


async def test_api_errors_fail_the_id_exit_1(session: Session, env: SandboxServer) -> None:
    env.faults.configure(fail_next=2, error_status=500)  # 500 is not retried
    results: list[ItemResult] = []
    summary = await engine(session, ids(10), concurrency=1, on_result=results.append).run()
    assert (summary.failed, summary.nothing_standing, summary.exit_code) == (2, 8, 1)
    failed = [r for r in results if r.status is ItemStatus.FAILED]
    assert [r.http_status for r in failed] == [500, 500]
    assert summary.errors and summary.errors[0][1] == 2
    entries = journal_entries(session, summary.run_id)
    assert sorted(e.outcome for e in entries).count("api-error") == 2


async def test_an_answer_every_id_would_get_stops_the_run(
    session: Session, env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", "pat_wrong")
    summary = await engine(session, ids(500), concurrency=4).run()
    assert summary.failed <= 4 + 4  # those in flight when the first 401 came back
    assert env.stats.requests == summary.failed
    assert summary.not_sent + summary.failed == summary.total
    assert summary.stopped_by and "401" in summary.stopped_by
    assert summary.exit_code == 1 and not summary.interrupted


async def test_service_down_stops_after_a_series_of_failures(env: SandboxServer) -> None:
    with SandboxServer() as gone:
        url = gone.base_url

    async def no_wait(seconds: float) -> None:
        await asyncio.sleep(0)

    timing = Timing(sleep=no_wait, rng=random.Random(1))
    s = Session(
        Locations.default(),
        Settings(profile_name=None, base_url=url),
        TokenStore(),
        client_factory=lambda u: BotProtectionClient(u, timing=timing, policy=RetryPolicy()),
    )
    try:
        summary = await engine(s, ids(3000), concurrency=4).run()
    finally:
        await s.aclose()
    assert summary.exit_code == 4
    assert (
        16 <= summary.failed < summary.total < 3000
    )  # stopped reading the input too (chunks of 256)
    assert summary.not_sent == summary.total - summary.failed
    assert summary.stopped_by and "in a row" in summary.stopped_by


async def test_cancel_lets_requests_in_flight_finish(session: Session, env: SandboxServer) -> None:
    env.faults.configure(latency=0.1)
    results: list[ItemResult] = []
    run = engine(session, ids(200), concurrency=4)

    def on_result(result: ItemResult) -> None:
        results.append(result)
        if len(results) == 10:
            run.cancel()

    run.on_result = on_result
    summary = await run.run()
    assert summary.interrupted and summary.exit_code == 130
    sent = summary.nothing_standing
    assert 10 <= sent <= 10 + 4  # what was in flight at the cancel finished
    assert summary.not_sent == summary.total - sent
    assert env.stats.requests == sent
    # every id read is in the journal: sent ones with their answer, the rest "not-sent"
    entries = journal_entries(session, summary.run_id)
    outcomes = [e.outcome for e in entries]
    assert outcomes.count("nothing-standing") == sent
    assert set(outcomes) <= {"nothing-standing", "not-sent"}
    assert None not in outcomes


async def test_cancel_twice_abandons_requests_in_flight(
    session: Session, env: SandboxServer
) -> None:
    env.faults.hold_requests()
    run = engine(session, ids(50), concurrency=3)
    task = asyncio.create_task(run.run())
    assert await env.faults.wait_until_held_async(3)
    run.cancel()
    run.cancel()
    summary = await asyncio.wait_for(task, 120)  # a hang guard: held requests abandoned
    env.faults.release()
    assert summary.interrupted and summary.exit_code == 130
    assert summary.unknown == 3  # abandoned in flight: may or may not have been applied
    assert summary.not_sent == summary.total - 3
    outcomes = [e.outcome for e in journal_entries(session, summary.run_id)]
    assert outcomes.count("interrupted") == 3


async def test_cancel_twice_stops_an_input_task_waiting_for_room_in_the_queue(
    session: Session, env: SandboxServer
) -> None:
    # The input read ahead until the queue is full; the workers abandoned will never
    # take from it again, so the input task must be stopped too or the run never ends.
    env.faults.hold_requests()
    run = engine(session, ids(1000), concurrency=3)
    task = asyncio.create_task(run.run())
    assert await env.faults.wait_until_held_async(3)
    while not run._queue.full():  # a condition, not a delay: yield until it holds
        await asyncio.sleep(0)
    run.cancel()
    run.cancel()
    summary = await asyncio.wait_for(task, 120)  # a hang guard
    env.faults.release()
    assert summary.interrupted and summary.unknown == 3


async def test_resume_skips_settled_and_resends_the_rest(
    session: Session, env: SandboxServer
) -> None:
    text = ids(60)
    env.faults.configure(latency=0.02)
    first = engine(session, text, concurrency=4)
    done: list[ItemResult] = []

    def stop_after_20(result: ItemResult) -> None:
        done.append(result)
        if len(done) == 20:
            first.cancel()

    first.on_result = stop_after_20
    summary1 = await first.run()
    assert summary1.interrupted and summary1.not_sent > 0
    summary2 = await engine(session, text, concurrency=4, resume=True).run()
    assert summary2.exit_code == 0
    assert summary2.skipped == summary1.nothing_standing
    assert summary2.nothing_standing == 60 - summary1.nothing_standing
    assert summary2.run_id == summary1.run_id
    assert not [w for w in session.warnings if "nothing to resume" in w]
    counts: dict[str, int] = {}
    for visitor in visitor_ids(logged(env)):
        counts[visitor] = counts.get(visitor, 0) + 1
    assert len(counts) == 60 and set(counts.values()) == {1}


async def test_resume_after_a_lost_outcome_reports_unknown_retried(
    session: Session, env: SandboxServer
) -> None:
    text = f"{STANDING}\nvis_lost\nvis_done\n"
    source = BulkSource.from_text(text)
    with Journal(Locations.default().journal_file) as journal:
        run_id = journal.run(
            profile="default",
            account=ACC,
            project=PROJ,
            input_sha256=source.sha256,
            operation="grant.revoke",
        )

        def record(visitor: str) -> StartRecord:
            return StartRecord(
                profile="default",
                base_url=env.base_url,
                operation="grant.revoke",
                account=ACC,
                project=PROJ,
                target={"visitorId": visitor},
                request_body={"subject": {"visitorId": visitor}},
                run_id=run_id,
                item_key=subject_key(visitor, None).hex(),
            )

        with journal.batch(interval=0) as writer:
            _lost, settled = writer.start_many([record("vis_lost"), record("vis_done")])
            writer.finish(settled, outcome="nothing-standing", status=200)
    # vis_lost: sent before a crash, outcome lost; vis_done: settled.
    results: dict[str | None, ItemStatus] = {}
    run = BulkRevocation(
        session,
        ACC,
        PROJ,
        source,
        resume=True,
        on_result=lambda r: results.__setitem__(r.subject.visitor_id, r.status),
    )
    summary = await run.run()
    assert results == {
        STANDING: ItemStatus.WITHDRAWN,
        "vis_lost": ItemStatus.UNKNOWN_RETRIED,  # the lost attempt may have withdrawn it
        "vis_done": ItemStatus.SKIPPED,
    }
    assert (summary.skipped, summary.unknown, summary.withdrawn) == (1, 1, 1)
    assert visitor_ids(logged(env)).count("vis_done") == 0


async def test_progress_reports(session: Session, env: SandboxServer) -> None:
    env.faults.configure(latency=0.02)
    seen: list[BulkProgress] = []
    run = engine(session, ids(100), concurrency=4, on_progress=seen.append, progress_interval=0.05)
    summary = await run.run()
    assert len(seen) >= 3
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    assert seen[0].total == 100 and not seen[0].total_exact  # estimated from the line count
    last = seen[-1]
    assert (last.done, last.total, last.total_exact, last.in_flight) == (100, 100, True, 0)
    assert any(p.rate for p in seen) and summary.total == 100


async def test_refusals_send_nothing(env: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> None:
    for settings, error in (
        (Settings(profile_name="ro", base_url=env.base_url, read_only=True), RefusedError),
        (Settings(profile_name="prod", base_url=env.base_url, protected=True), RefusedError),
    ):
        s = Session(Locations.default(), settings, TokenStore())
        with pytest.raises(error):
            await BulkRevocation(s, ACC, PROJ, BulkSource.from_text(ids(5))).run()
        await s.aclose()
    monkeypatch.delenv("BOTTUI_ACCESS_TOKEN")
    s = Session(
        Locations.default(), Settings(profile_name=None, base_url=env.base_url), TokenStore()
    )
    with pytest.raises(CredentialsError):
        await BulkRevocation(s, ACC, PROJ, BulkSource.from_text(ids(5))).run()
    await s.aclose()
    assert env.stats.requests == 0


async def test_protected_profile_with_confirmation(env: SandboxServer) -> None:
    settings = Settings(profile_name="prod", base_url=env.base_url, protected=True)
    s = Session(Locations.default(), settings, TokenStore())
    try:
        summary = await BulkRevocation(
            s, ACC, PROJ, BulkSource.from_text(ids(5)), confirmed=True
        ).run()
    finally:
        await s.aclose()
    assert summary.exit_code == 0 and env.stats.requests == 5


def test_concurrency_is_checked() -> None:
    for bad in (0, -1, 513):
        with pytest.raises(RefusedError):
            BulkRevocation(None, ACC, PROJ, BulkSource.from_text("v"), concurrency=bad)  # type: ignore[arg-type]


async def test_cancelling_the_task_records_what_was_in_flight(
    session: Session, env: SandboxServer
) -> None:
    env.faults.hold_requests()
    run = engine(session, ids(50), concurrency=3)
    task = asyncio.create_task(run.run())
    assert await env.faults.wait_until_held_async(3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    env.faults.release()
    outcomes = [e.outcome for e in journal_entries(session, run._sink.run_id)]
    assert outcomes.count("interrupted") == 3
    assert None not in outcomes and set(outcomes) == {"interrupted", "not-sent"}


async def test_a_bulk_revocation_runs_once(session: Session, env: SandboxServer) -> None:
    run = engine(session, ids(3))
    summary = await run.run()
    assert summary.nothing_standing == 3
    with pytest.raises(RuntimeError, match="runs once"):
        await run.run()
    assert env.stats.requests == 3  # the second call sent nothing


async def test_a_bug_reading_the_input_ends_the_run_with_its_error(
    session: Session, env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The workers wait for ids the input's task will never queue: the run raises the
    # bug instead of waiting for ever.
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("a bug while reading the input")

    monkeypatch.setattr("bottui.ops.bulk.engine.BulkRevocation._dispatch", broken)
    with pytest.raises(ZeroDivisionError, match="a bug while reading"):
        await engine(session, ids(5)).run()
    assert env.stats.requests == 0


async def test_a_resume_with_no_earlier_run_says_so_and_sends_every_id(
    session: Session, env: SandboxServer
) -> None:
    summary = await engine(session, ids(4), resume=True).run()
    assert summary.nothing_standing == 4 and summary.skipped == 0
    assert [w for w in session.warnings if "nothing to resume" in w]
