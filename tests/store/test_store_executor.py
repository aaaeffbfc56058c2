"""The store executor: daemon threads, one order per lane, abandoned jobs skipped."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bottui.store.executor import GENERAL_LANE, StoreExecutor, run_blocking, shared_executor

ROOT = Path(__file__).resolve().parents[2]


async def test_every_thread_is_a_daemon_thread() -> None:
    executor = StoreExecutor()
    names = await asyncio.gather(
        executor.call(lambda: threading.current_thread().name, lane="journal-write:x"),
        executor.call(lambda: threading.current_thread().name, lane="journal-read:x"),
        *(executor.call(lambda: time.sleep(0.05), lane=GENERAL_LANE) for _ in range(6)),
    )
    threads = executor.threads()
    assert threads and all(t.daemon for t in threads)
    assert names[0] != names[1]  # a read lane is not the write lane
    assert len([t for t in threads if "general" in t.name]) <= 4


async def test_shared_executor_threads_are_daemons() -> None:
    await run_blocking(lambda: None)
    assert all(t.daemon for t in shared_executor().threads())


async def test_a_lane_runs_its_jobs_one_at_a_time_in_order() -> None:
    executor = StoreExecutor()
    seen: list[int] = []
    running = 0
    overlap = False

    def job(n: int) -> int:
        nonlocal running, overlap
        running += 1
        overlap = overlap or running > 1
        time.sleep(0.01)
        seen.append(n)
        running -= 1
        return n

    def call(n: int) -> asyncio.Future[int]:
        return asyncio.ensure_future(executor.call(lambda: job(n), lane="w"))

    results = await asyncio.gather(*(call(n) for n in range(20)))
    assert results == list(range(20))
    assert seen == list(range(20))
    assert not overlap


async def test_exceptions_reach_the_awaiting_task() -> None:
    executor = StoreExecutor()

    def fail() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await executor.call(fail, lane="w")


async def test_a_job_not_begun_when_its_caller_gives_up_never_runs() -> None:
    executor = StoreExecutor()
    release = threading.Event()
    ran: list[str] = []
    blocker = asyncio.ensure_future(executor.call(release.wait, lane="w"))
    await asyncio.sleep(0.05)
    with pytest.raises(TimeoutError):
        await executor.call(lambda: ran.append("late"), lane="w", timeout=0.1)
    release.set()
    await blocker
    await executor.call(lambda: None, lane="w")  # everything queued before has been served
    assert ran == []


def test_a_stuck_call_does_not_hold_up_interpreter_exit() -> None:
    # asyncio.to_thread would join its thread at exit and wait out the hour's sleep:
    # the subprocess timeout (a hang guard, far below the hour) would fail the test.
    code = (
        "import asyncio, time\n"
        "from bottui.store.executor import StoreExecutor\n"
        "async def main():\n"
        "    ex = StoreExecutor()\n"
        "    try:\n"
        "        await ex.call(lambda: time.sleep(3600), lane='w', timeout=0.2)\n"
        "    except TimeoutError:\n"
        "        print('gave up', flush=True)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.stdout.strip() == "gave up"
    assert done.returncode == 0


async def test_idle_threads_end_and_the_next_job_starts_one() -> None:
    executor = StoreExecutor(idle=0.1)
    first = await executor.call(threading.get_ident, lane="w")
    deadline = time.monotonic() + 120  # a hang guard: idle threads end after 0.1 s
    while executor.threads():
        assert time.monotonic() < deadline, "idle threads did not end"
        await asyncio.sleep(0.01)
    results = await asyncio.gather(*(executor.call(lambda: 7, lane="w") for _ in range(50)))
    assert results == [7] * 50 and first
