"""#12: a run's settled-prefix checkpoint is written with, or after, the
outcomes it covers, never before them (a crash leaves one that trails)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bottui.store.journal.journal_file import BatchWriter, Journal
from bottui.store.journal.journal_records import Operation, RunId, StartRecord
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.store_errors import JournalUnavailable

SHA = "ab" * 32


def records(run_id: int, count: int) -> list[StartRecord]:
    return [
        StartRecord(
            profile="p",
            base_url="u",
            operation=Operation.REVOKE_GRANT,
            account="a",
            project="p",
            target={"visitorId": f"v{n}"},
            request_body=None,
            run_id=run_id,
            item_key=f"{n:032x}",
        )
        for n in range(count)
    ]


def finished(path: Path, run_id: int) -> tuple[int | None, int]:
    """The run's checkpoint and how many of its entries have an outcome."""
    with Journal(path) as journal:
        line = journal.settled_prefix(run_id)
        done = sum(not e.unfinished for e in journal.entries(run_id=run_id))
    return line, done


async def test_a_checkpoint_waits_for_the_outcomes_queued_before_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    store = SqliteJournalStore(path)
    run_id = await store.run(profile="p", account="a", project="p", input_sha256=SHA, operation="o")
    batch = await store.batch()
    ids = await batch.start_many(records(int(run_id), 3))
    for entry_id in ids:
        await batch.finish(entry_id, outcome="nothing-standing", status=200)
    await batch.checkpoint(run_id, 3)
    # A crash now loses both: the checkpoint is not written ahead of its outcomes.
    assert finished(path, int(run_id)) == (None, 0)
    await batch.flush()
    assert finished(path, int(run_id)) == (3, 3)
    assert await store.settled_prefix(run_id) == 3
    assert await store.settled_prefix(RunId(int(run_id) + 1)) is None
    await batch.close()
    await store.close()


def test_a_failed_write_keeps_the_checkpoint_with_its_outcomes(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        run_id = journal.run(profile="p", account="a", project="p", input_sha256=SHA, operation="o")
    writer = BatchWriter(path, operator="me", interval=0, busy_timeout=0.05)
    ids = writer.start_many(records(run_id, 2))
    for entry_id in ids:
        writer.finish(entry_id, outcome="withdrawn", status=200)
    writer.checkpoint(run_id, 7)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    with pytest.raises(JournalUnavailable):
        writer.flush()
    other.execute("ROLLBACK")
    other.close()
    assert finished(path, run_id) == (None, 0)
    writer.flush()
    assert finished(path, run_id) == (7, 2)
    writer.checkpoint(run_id, 9)
    writer.close()  # closing writes the last one
    assert finished(path, run_id) == (9, 2)
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE run_checkpoints SET settled_line = 0")
    conn.close()
