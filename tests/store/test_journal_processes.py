"""The journal across real OS processes: SIGKILL mid-request, concurrent writers."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import target_key
from tests.store.journal_contention import cpu_burners, run_scenario

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

# Writes a started record, reports its id, then "holds its request" until killed.
HOLD = """
import sys, time
from pathlib import Path
from bottui.store.journal.journal_records import limiter_target
from bottui.store.journal.journal_file import Journal
journal = Journal(Path(sys.argv[1]))
entry_id = journal.start(
    profile="prod", base_url="https://api.example.com", operation="limiter.set-active",
    account="acc", project="p1", target=limiter_target("rl-1"),
    request_body={"isActive": False}, previous={"isActive": True},
)
print(entry_id, flush=True)
time.sleep(120)
journal.finish(entry_id, outcome="ok", status=200)
"""

# Writes 500 entries (started + outcome each) when told to go.
WRITER = """
import sys
import time
from pathlib import Path
from bottui.store.journal.journal_records import StartRecord
from bottui.store.journal.journal_file import Journal
path, name, mode, count = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
journal = Journal(path, operator=name + "@test")
def record(n):
    return StartRecord(
        profile="prod", base_url="https://api.example.com", operation="grant.revoke",
        account="acc", project="p1", target={"writer": name, "n": n},
        request_body={"subject": {"visitorId": f"{name}-{n}"}},
    )
print("ready", flush=True)
sys.stdin.readline()
if mode == "single":
    for n in range(count):
        r = record(n)
        entry_id = journal.start(
            profile=r.profile, base_url=r.base_url, operation=r.operation, account=r.account,
            project=r.project, target=r.target, request_body=r.request_body,
        )
        journal.finish(entry_id, outcome="withdrawn", status=200, duration_ms=1.0)
else:
    with journal.batch(batch_size=64, interval=0.05) as batch:
        for first in range(0, count, 50):
            chunk = [record(n) for n in range(first, min(first + 50, count))]
            for entry_id in batch.start_many(chunk):
                batch.finish(entry_id, outcome="withdrawn", status=200, duration_ms=1.0)
print("done", flush=True)
"""

# A bulk run: 10 started records, 4 outcomes committed, 3 buffered, then killed.
BATCH_CRASH = """
import sys, time
from pathlib import Path
from bottui.store.journal.journal_records import StartRecord
from bottui.store.journal.journal_file import Journal
journal = Journal(Path(sys.argv[1]))
run = journal.run(profile="prod", account="acc", project="p1", input_sha256="a" * 64,
                  operation="grant.revoke")
records = [
    StartRecord(profile="prod", base_url="https://api.example.com", operation="grant.revoke",
                account="acc", project="p1", target={"visitorId": f"v-{n}"}, run_id=run)
    for n in range(10)
]
batch = journal.batch(batch_size=1000, interval=0)
ids = batch.start_many(records)
for entry_id in ids[:4]:
    batch.finish(entry_id, outcome="withdrawn" if entry_id % 2 else "nothing-standing")
batch.flush()
for entry_id in ids[4:7]:
    batch.finish(entry_id, outcome="withdrawn")
print(run, flush=True)
time.sleep(120)
"""


# Opens a brand-new journal at the same moment as its siblings.
OPEN_RACE = """
import sys, time
from pathlib import Path
from bottui.store.journal.journal_file import Journal
journal = Journal(Path(sys.argv[1]))
go = float(sys.argv[2])
while time.time() < go:
    pass
entry_id = journal.start(
    profile="prod", base_url="https://api.example.com", operation="grant.revoke",
    account="acc", project="p1", target={"visitorId": sys.argv[3]}, request_body=None,
)
journal.finish(entry_id, outcome="withdrawn")
print("done", flush=True)
"""


def spawn(script: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def kill_all(children: list[subprocess.Popen[str]]) -> None:
    for child in children:
        if child.poll() is None:
            child.kill()
            child.communicate()


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def test_sigkill_mid_request_leaves_an_unfinished_record(tmp_path: Path) -> None:
    path = tmp_path / "state" / "journal.sqlite3"
    child = spawn(HOLD, str(path))
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip().isdigit(), child.stderr.read() if child.stderr else line
        entry_id = int(line)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=120)
    assert child.returncode == -signal.SIGKILL

    journal = Journal(path)
    (entry,) = journal.entries(unfinished=True)
    assert entry.id == entry_id and entry.unfinished and entry.outcome_label == "unfinished"
    assert entry.pid == child.pid
    assert entry.request_body == {"isActive": False}
    assert entry.previous == {"isActive": True}
    assert integrity(path) == "ok"
    # The journal is still writable after the crash (no stale lock).
    later = journal.start(
        profile="prod",
        base_url="https://api.example.com",
        operation="limiter.set-active",
        account="acc",
        project="p1",
        target={"rate_limiter_id": "rl-1"},
        request_body={"isActive": True},
    )
    journal.finish(later, outcome="ok")
    assert [e.id for e in journal.entries(unfinished=True)] == [entry_id]
    # And undo refuses: the current value is not known.
    candidate = journal.last_undoable("prod", "limiter")
    assert candidate.entry is not None and candidate.entry.id == later
    assert not candidate.possible  # the later change recorded no previous value


@pytest.mark.parametrize(("mode_a", "mode_b"), [("single", "single"), ("single", "batch")])
def test_two_processes_writing_500_records_each(tmp_path: Path, mode_a: str, mode_b: str) -> None:
    """Both get every record in, even with every core busy (issue #11, fault 1:
    this once failed with "locked by another process" on a loaded machine)."""
    path = tmp_path / "state" / "journal.sqlite3"
    count = 500
    writers = [spawn(WRITER, str(path), "a", mode_a, str(count))]
    writers.append(spawn(WRITER, str(path), "b", mode_b, str(count)))
    with contextlib.ExitStack() as stack:
        stack.enter_context(cpu_burners())
        stack.callback(kill_all, writers)
        for child in writers:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        for child in writers:  # both go at once
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        for child in writers:
            out, err = child.communicate(timeout=240)
            assert child.returncode == 0, err
            assert (out.strip(), err) == ("done", "")

    assert integrity(path) == "ok"
    entries = Journal(path).entries()
    assert len(entries) == 2 * count
    assert len({e.id for e in entries}) == 2 * count
    assert not [e for e in entries if e.unfinished]
    for name in ("a", "b"):
        mine = [e for e in entries if e.operator == f"{name}@test"]
        assert sorted(e.target["n"] for e in mine) == list(range(count))
        assert all(e.outcome == "withdrawn" and e.status == 200 for e in mine)
        assert all(e.request_body == {"subject": {"visitorId": f"{name}-{e.target['n']}"}}
                   for e in mine)  # fmt: skip


def test_a_killed_bulk_run_loses_at_most_the_buffered_batch(tmp_path: Path) -> None:
    path = tmp_path / "state" / "journal.sqlite3"
    child = spawn(BATCH_CRASH, str(path))
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip().isdigit(), child.stderr.read() if child.stderr else line
        run = int(line)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=120)

    journal = Journal(path)
    entries = journal.entries(run_id=run)
    assert len(entries) == 10  # every started record was committed before "sending"
    finished = [e for e in entries if not e.unfinished]
    assert len(finished) == 4  # the flushed batch; the 3 buffered outcomes are lost
    settled = journal.settled_items(run)
    assert settled == {target_key(e.target) for e in finished}
    # --resume sends the other six again.
    to_send = {target_key(e.target) for e in entries} - settled
    assert len(to_send) == 6
    assert integrity(path) == "ok"


def test_processes_creating_the_journal_at_once(tmp_path: Path) -> None:
    """Regression: SQLite does not wait on the busy handler while two connections
    switch a new file to WAL, and a half-created schema once looked foreign."""
    for attempt in range(5):
        path = tmp_path / f"try-{attempt}" / "journal.sqlite3"
        go = str(time.time() + 0.5)
        children = [spawn(OPEN_RACE, str(path), go, f"v-{n}") for n in range(4)]
        for child in children:
            out, err = child.communicate(timeout=300)
            assert child.returncode == 0 and out.strip() == "done", err
        assert len(Journal(path).entries(outcome="withdrawn")) == 4


def test_four_writers_and_a_bulk_run_under_cpu_load_lose_nothing(tmp_path: Path) -> None:
    """Issue #11, fault 1: 4 processes x 500 single changes (Journal.start/finish, as
    ops.mutations journals them) and one bulk run of 10,000 ids (through the bulk
    run's JournalSink, driven without HTTP), all at once on one journal, while a
    process burns each core: every record arrives, no warning, no error."""
    writers, changes, bulk_ids = 4, 500, 10_000
    result = run_scenario(tmp_path, writers=writers, changes=changes, bulk_ids=bulk_ids)

    for child in result.children:
        assert child.returncode == 0, (child.name, child.stderr)
        assert child.stderr == "", (child.name, child.stderr)
        assert child.report["warnings"] == [], (child.name, child.report["warnings"])
    journaled = {child.name: child.report["journaled"] for child in result.children}
    assert journaled == {**{f"w{n}": changes for n in range(writers)}, "bulk": bulk_ids}

    assert integrity(result.journal) == "ok"
    entries = Journal(result.journal).entries()
    assert len(entries) == writers * changes + bulk_ids
    assert len({e.id for e in entries}) == len(entries)
    assert [e.id for e in entries if e.unfinished] == []  # every started has its outcome
    assert all(e.outcome == "withdrawn" and e.status == 200 for e in entries)
    for n in range(writers):
        mine = [e for e in entries if e.operator == f"w{n}@test"]
        assert sorted(e.target["n"] for e in mine) == list(range(changes))
    bulk = [e for e in entries if e.run_id is not None]
    assert len({e.run_id for e in bulk}) == 1
    assert sorted(e.item_key or "" for e in bulk) == [f"{n:064x}" for n in range(bulk_ids)]
