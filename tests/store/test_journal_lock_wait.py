"""Waiting for another process's write lock: bounded jittered retry, and what it measured."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import StartRecord
from bottui.store.journal.journal_schema import BUSY_TIMEOUT
from bottui.store.sqlite_helpers import LockStats, is_busy, retry_busy
from bottui.store.store_errors import JournalUnavailable

# Holds the journal's write lock for argv[2] seconds, from its own process.
HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


def busy(code: int = 5) -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError("database is locked")
    exc.sqlite_errorcode = code  # type: ignore[attr-defined]
    return exc


def failing(times: int, error: Callable[[], Exception]) -> Callable[[], str]:
    calls = {"n": 0}

    def action() -> str:
        calls["n"] += 1
        if calls["n"] <= times:
            raise error()
        return "done"

    return action


def change(journal: Journal, n: int) -> int:
    return journal.start(
        profile="prod",
        base_url="https://api.example.com",
        operation="grant.revoke",
        account="acc",
        project="p1",
        target={"visitorId": f"v-{n}"},
        request_body=None,
    )


def test_retry_busy_tries_again_until_the_lock_is_free() -> None:
    # SQLITE_BUSY (5), SQLITE_BUSY_SNAPSHOT (517, a stale read upgrading to write,
    # which SQLite's busy handler never sees) and SQLITE_LOCKED (6) are all waited out.
    for code in (5, 517, 6):
        assert is_busy(busy(code))
        result, failed = retry_busy(failing(5, lambda c=code: busy(c)), float("inf"))
        assert (result, failed) == ("done", 5)


def test_retry_busy_is_bounded_and_leaves_other_errors_alone() -> None:
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        retry_busy(failing(10**9, busy), 0.0)  # one attempt at the deadline, then give up
    readonly = failing(1, lambda: sqlite3.OperationalError("attempt to write a readonly database"))
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        retry_busy(readonly, float("inf"))
    assert not is_busy(sqlite3.IntegrityError("UNIQUE constraint failed"))


def test_a_write_waits_out_another_process_holding_the_lock_for_3_s(tmp_path: Path) -> None:
    """Issue #11, fault 1: with the old 2 s busy timeout this change was not journaled."""
    path = tmp_path / "journal.sqlite3"
    journal = Journal(path)
    change(journal, 0)
    assert BUSY_TIMEOUT >= 5  # fsync under load, with room to spare
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), "3"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        entry_id = change(journal, 1)
        journal.finish(entry_id, outcome="withdrawn")
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait(timeout=120)
    stats = journal.lock_stats
    assert (stats.writes, stats.timeouts) == (3, 0)
    assert stats.retries > 0
    assert stats.max_wait > 1.0  # it did wait for the holder (a lower bound only)
    assert [e.id for e in journal.entries(unfinished=True)] == [1]


def test_a_write_past_the_deadline_is_counted_and_the_journal_recovers(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    journal = Journal(path, busy_timeout=0.2)
    change(journal, 0)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(JournalUnavailable, match="locked by another process"):
            change(journal, 1)
    finally:
        other.execute("ROLLBACK")
        other.close()
    change(journal, 2)
    stats = journal.lock_stats.as_dict()
    assert (stats["writes"], stats["timeouts"]) == (2, 1)
    assert stats["max_wait"] >= 0.2  # the timed-out write waited its whole budget


def test_bulk_writers_count_their_waits_in_the_journals_stats(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    record = StartRecord(
        profile="prod",
        base_url="https://api.example.com",
        operation="grant.revoke",
        account="acc",
        project="p1",
        target={"visitorId": "v"},
    )
    with journal.batch(interval=0) as batch:
        (entry_id,) = batch.start_many([record])
        batch.finish(entry_id, outcome="withdrawn")
        assert batch.lock_stats is journal.lock_stats
    assert journal.lock_stats.writes == 2  # the started chunk, the flushed outcome
    assert isinstance(journal.lock_stats, LockStats)
