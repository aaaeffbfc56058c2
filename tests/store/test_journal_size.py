"""A bulk run's journal is small and cheap to write (issue #12).

* size: a run's shared fields are stored once per chunk, not per id, so an id
  costs under 200 bytes (v1: 552 MB per 1,000,000 ids);
* threads: a bulk run's writes reuse the store's one write thread; none is
  started per write.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from bottui.store.executor import StoreExecutor
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import Operation, RunId, StartRecord
from bottui.store.journal.journal_store import SqliteJournalStore

IDS = 4000
PER_ID_TABLES = (
    "segments",
    "items",
    "items_by_key",
    "results",
    "results_by_word",
    "open_items",
    "open_by_run",
)


def record(run: int, n: int) -> StartRecord:
    target = {"visitorId": f"vis_{n * 7919:016x}"}
    return StartRecord(
        profile="prod",
        base_url="https://api.example.com",
        operation=Operation.REVOKE_GRANT,
        account="acc",
        project="proj-0001",
        target=target,
        request_body={"subject": target},
        run_id=run,
        item_key=f"{n * 104729:032x}",
    )


def result(entry_id: int) -> dict[str, object]:
    return {
        "revoked": True,
        "reportId": f"rep_{entry_id * 31:016x}",
        "grantExpiresAt": None,
        "grantRemainingAttempts": None,
        "outcome": "withdrawn",
    }


def has_dbstat() -> bool:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("SELECT 1 FROM dbstat LIMIT 1")
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()
    return True


@pytest.mark.skipif(not has_dbstat(), reason="this SQLite has no dbstat table")
def test_a_bulk_id_costs_under_200_bytes(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    journal = Journal(path)
    run = journal.run(
        profile="prod",
        account="acc",
        project="proj-0001",
        input_sha256="ab" * 32,
        operation=Operation.REVOKE_GRANT,
    )
    with journal.batch(interval=0) as writer:
        for at in range(0, IDS, 1000):
            for entry_id in writer.start_many([record(run, n) for n in range(at, at + 1000)]):
                writer.finish(
                    entry_id,
                    outcome="withdrawn",
                    status=200,
                    result=result(entry_id),
                    duration_ms=12.345678 + entry_id,
                )
    (entry,) = journal.entries(limit=1)
    assert entry.result == result(entry.id) and entry.item_key == f"{(IDS - 1) * 104729:032x}"
    assert entry.request_body == {"subject": entry.target}
    journal.close()
    conn = sqlite3.connect(path)
    marks = ", ".join("?" * len(PER_ID_TABLES))
    used = conn.execute(
        f"SELECT sum(pgsize) FROM dbstat WHERE name IN ({marks})", PER_ID_TABLES
    ).fetchone()[0]
    conn.close()
    assert used / IDS < 200, f"{used / IDS:.0f} bytes per id"


def test_bulk_writes_start_no_thread_per_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    original = threading.Thread.start

    def counting_start(self: threading.Thread) -> None:
        started.append(self.name)
        original(self)

    async def go() -> None:
        executor = StoreExecutor()
        store = SqliteJournalStore(tmp_path / "journal.sqlite3", executor=executor)
        run = await store.run(
            profile="prod",
            account="acc",
            project="p",
            input_sha256="cd" * 32,
            operation=Operation.REVOKE_GRANT,
        )
        batch = await store.batch()
        monkeypatch.setattr(threading.Thread, "start", counting_start)
        for at in range(0, 2000, 100):
            ids = await batch.start_many([record(RunId(run), n) for n in range(at, at + 100)])
            for entry_id in ids:
                await batch.finish(entry_id, outcome="withdrawn", status=200)
            await batch.flush()
        await batch.close()
        monkeypatch.setattr(threading.Thread, "start", original)
        await store.close()

    asyncio.run(go())
    assert started == []


def test_outcomes_reach_the_writer_thread_a_batch_at_a_time(tmp_path: Path) -> None:
    """One executor round trip per batch of outcomes, not one per id (issue #12: that
    hop per outcome was most of the journal's share of a bulk run's CPU)."""
    calls: list[str] = []

    class Counting(StoreExecutor):
        async def call(self, fn, *, lane="general", timeout=None):  # type: ignore[no-untyped-def]
            calls.append(lane)
            return await super().call(fn, lane=lane, timeout=timeout)

    async def go() -> None:
        store = SqliteJournalStore(tmp_path / "journal.sqlite3", executor=Counting())
        run = await store.run(
            profile="prod",
            account="acc",
            project="p",
            input_sha256="ef" * 32,
            operation=Operation.REVOKE_GRANT,
        )
        batch = await store.batch()
        ids = await batch.start_many([record(RunId(run), n) for n in range(1000)])
        calls.clear()
        for entry_id in ids:
            await batch.finish(entry_id, outcome="withdrawn", status=200)
        await batch.flush()
        await batch.close()
        page = await store.page(limit=1000)
        assert sum(e.outcome == "withdrawn" for e in page.entries) == 1000
        await store.close()

    asyncio.run(go())
    # 1000 outcomes: 3 full hand-overs, the flush, the close and the read.
    assert len(calls) <= 8, len(calls)
