"""A journal locked by another process: the event loop keeps running, reads answer,
and a started record waits at most its bound.

The lock is held by a real second process (``BEGIN IMMEDIATE`` on the file), as a
CLI bulk run would hold it while the TUI makes a change.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bottui.store.executor import StoreExecutor
from bottui.store.journal.journal_records import limiter_target
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.store_errors import JournalUnavailable

# Takes the write lock, says so, holds it for argv[2] seconds (or until stdin closes).
HOLDER = """
import sqlite3, sys, threading
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
done.wait(float(sys.argv[2]))
conn.execute("COMMIT")
print("released", flush=True)
"""

FIELDS: dict[str, Any] = {
    "profile": "prod",
    "base_url": "https://api.example.com",
    "operation": "limiter.set-active",
    "account": "acc",
    "project": "p1",
    "target": limiter_target("rl-1"),
    "request_body": {"isActive": False},
}


Hold = Callable[[float], "subprocess.Popen[str]"]


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[Path, Hold]]:
    """A journal with one entry, and a process ready to lock it (``hold(seconds)``)."""
    path = tmp_path / "journal.sqlite3"
    procs: list[subprocess.Popen[str]] = []

    def hold(seconds: float) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(path), str(seconds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "locked"
        return proc

    yield path, hold
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=120)


async def test_a_start_waits_off_the_loop_while_reads_answer(holder: tuple[Path, Hold]) -> None:
    path, hold = holder
    store = SqliteJournalStore(path, busy_timeout=60, start_bound=120, executor=StoreExecutor())
    first = await store.start(**FIELDS)  # the file exists before the lock is taken
    proc = hold(600.0)  # until the test closes its stdin (600 s: a hang guard)

    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.02)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    try:
        start = asyncio.create_task(store.start(**FIELDS))
        await asyncio.sleep(0.5)
        assert not start.done()  # waiting for the other process's lock ...
        before = ticks
        await asyncio.sleep(0.5)
        assert ticks > before  # ... while the event loop keeps running other tasks
        # Reads are not queued behind the waiting write.
        page = await asyncio.wait_for(store.page(), 120)  # a hang guard: locked until released
        assert [e.id for e in page.entries] == [first]
        assert await asyncio.wait_for(store.entry(first), 120) is not None
        assert not start.done() and proc.poll() is None  # still locked when they answered
        assert proc.stdin is not None
        proc.stdin.close()  # release the lock
        second = await asyncio.wait_for(start, 120)  # completes once the lock is released
    finally:
        ticking.cancel()
    assert second != first
    assert proc.wait(timeout=120) == 0
    assert [e.id for e in (await store.page()).entries] == [second, first]
    await store.close()


async def test_a_start_gives_up_after_its_bound(holder: tuple[Path, Hold]) -> None:
    path, hold = holder
    store = SqliteJournalStore(path, busy_timeout=60, start_bound=1.0, executor=StoreExecutor())
    first = await store.start(**FIELDS)
    proc = hold(600.0)  # until the test closes its stdin
    # The bound is the point: its own words, 1 s, not the 60 s busy timeout's. Had the
    # start waited for the lock, it would have waited until the test released it.
    with pytest.raises(JournalUnavailable, match="did not answer within 1 s"):
        await asyncio.wait_for(store.start(**FIELDS), 120)
    # A start queued behind the stuck one is bounded too (it never began).
    with pytest.raises(JournalUnavailable):
        await store.start(**FIELDS)
    assert proc.stdin is not None
    proc.stdin.close()  # release the lock
    assert proc.wait(timeout=120) == 0
    entries = (await store.page()).entries
    # The first bounded start was already inside SQLite: it commits once the
    # lock goes (read back unfinished); the queued one never ran.
    await store.close()
    assert entries[-1].id == first
    assert len(entries) <= 2
