"""The journal at scale: first-page queries per filter, resume lookups, size and write CPU.

Run it as a script (pytest does not collect tests/bench)::

    python tests/bench/journal_scale.py [--entries 10000000] [--run-size 1000000]
        [--dir /tmp] [--reuse] [--write-ids 100000] [--reps 5]

1. Generates ``--entries`` entries with bulk SQL straight into the current
   schema (recursive CTEs, no app code, a minute or two per 10M): bulk runs
   of ``--run-size`` ids in chunks of 1,000 (one segment each), 2% single
   changes over 5,000 projects between them, outcomes for all but ~20 ids per
   run (unfinished), 1 in 500 failed, a few segments started late (clock
   skew); who and why (schema 4): 7 operators take turns at runs and 50 at
   single changes, one run in three and one single change in four has one of
   a few hundred reasons (``INC-<n> ...``), the rest none. ``--reuse`` keeps
   and reuses the file (``--dir``, never the repo).
2. Times the query of a first page (limit 50, newest first, in process,
   after one warm-up) for every filter, and ``item_states`` over the largest
   run in calls of 1,000 keys (a settled resume's lookups).
3. Writes ``--write-ids`` ids of one bulk run through the app's own writer
   into a new file and prints its size per 1,000,000 ids and the journal's
   CPU per 10,000 ids: ``sync`` calls ``BatchWriter`` directly (chunks of
   1,000), ``async`` goes through the async store as the bulk engine does (an
   awaited ``finish`` per id, ``flush`` every 256). The write half runs
   against an older checkout too (copy this file into it): before/after.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Only what version 1 had too: the write half runs against an older checkout
# (copy this file into it) for before/after figures.
from bottui.store.journal.journal_file import Journal  # noqa: E402
from bottui.store.journal.journal_records import Operation, StartRecord  # noqa: E402

CHUNK = 1000
PROJECTS = 5000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
RESULT_KEYS = '["revoked","reportId","grantExpiresAt","grantRemainingAttempts","outcome"]'
FAILED = frozenset({"api-error", "network-error", "unknown", "unknown-retried"})


#: Distinct reasons of the generated journal (``INC-0000 ...`` to ``INC-0299 ...``).
REASONS = 300


def _reasons(conn: sqlite3.Connection) -> None:
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1) "
        "INSERT OR IGNORE INTO reasons (id, reason) "
        "SELECT 1000 + i, printf('INC-%04d credential stuffing on login', i) FROM n",
        (REASONS,),
    )


def _words(conn: sqlite3.Connection) -> dict[str, int]:
    for word in ("withdrawn", "nothing-standing", "api-error", "ok", "network-error"):
        conn.execute("INSERT OR IGNORE INTO words (word) VALUES (?)", (word,))
    conn.execute("INSERT OR IGNORE INTO shapes (keys) VALUES (?)", (RESULT_KEYS,))
    return dict(conn.execute("SELECT word, id FROM words").fetchall())


def _run(
    conn: sqlite3.Connection, first: int, size: int, run: int, t: int, w: dict[str, int]
) -> int:
    """One bulk run of ``size`` ids from id ``first``; returns the time after it."""
    project = f"proj-{run % PROJECTS:04d}"
    conn.execute(
        "INSERT INTO runs (id, created_at, profile, account, project, input_sha256, operation) "
        "VALUES (?, '2026-01-01T00:00:00.000000Z', 'prod', 'acc', ?, ?, ?)",
        (run, project, f"{run:064x}", Operation.REVOKE_GRANT.value),
    )
    chunks = (size + CHUNK - 1) // CHUNK
    hw = conn.execute("SELECT coalesce(max(hw), 0) FROM segments").fetchone()[0]
    # ~1 chunk in 400 stamped 5 s before the one before it (clock skew): a late segment.
    conn.execute(
        "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ? - 1) "
        "INSERT INTO segments (first_id, last_id, started, hw, operator, pid, profile, base_url, "
        "operation, account, project, run_id, body_prefix, body_suffix, target_prefix, "
        "target_suffix, host, reason) "
        "SELECT ? + i * ?, min(? + i * ? + ? - 1, ? + ? - 1), "
        "? + i * 100000 - CASE WHEN i % 400 = 399 THEN 5000000 ELSE 0 END, "
        "max(?, ? + i * 100000), ?, 4242, 'prod', 'https://api.example.com', "
        "?, 'acc', ?, ?, '{\"subject\":', '}', '{\"visitorId\":\"vis_', '\"}', "
        "'bastion-1', ? FROM c",
        (chunks, first, CHUNK, first, CHUNK, CHUNK, first, size, t, hw, t,
         f"ops-{run % 7}@bastion", Operation.REVOKE_GRANT.value, project, run,
         1000 + run % REASONS if run % 3 == 0 else None),
    )  # fmt: skip
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1) "
        "INSERT INTO items (id, target, run_id, item_key) "
        "SELECT ? + i, hex(randomblob(8)), ?, randomblob(16) "
        "FROM n",
        (size, first, run),
    )
    # Outcomes for all but ~20 ids; 1 in 500 failed.
    conn.execute(
        "INSERT INTO results (entry_id, finished, word, status, result, shape, duration_ms) "
        "SELECT e.id, ? + (e.id - ?) / ? * 100000 + 40000, "
        "CASE WHEN e.id % 500 = 0 THEN ? WHEN e.id % 3 = 0 THEN ? ELSE ? END, "
        "CASE WHEN e.id % 500 = 0 THEN 500 ELSE 200 END, "
        "CASE WHEN e.id % 500 = 0 THEN NULL ELSE "
        "'[true,\"rep_' || hex(randomblob(8)) || '\",null,null,\"withdrawn\"]' END, "
        "CASE WHEN e.id % 500 = 0 THEN NULL ELSE 1 END, 12.5 + (e.id % 97) / 8.0 "
        "FROM items AS e WHERE e.id BETWEEN ? AND ? AND e.id % ? != 7",
        (t, first, CHUNK, w["api-error"], w["nothing-standing"], w["withdrawn"],
         first, first + size - 1, max(1, size // 20)),
    )  # fmt: skip
    return int(t + chunks * 100000)


def _singles(conn: sqlite3.Connection, first: int, count: int, t: int, w: dict[str, int]) -> int:
    """``count`` single changes (one segment each) over the projects."""
    hw = conn.execute("SELECT coalesce(max(hw), 0) FROM segments").fetchone()[0]
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1) "
        "INSERT INTO segments (first_id, last_id, started, hw, operator, pid, profile, base_url, "
        "operation, account, project, host, reason) SELECT ? + i, ? + i, ? + i * 1000000, "
        "max(?, ? + i * 1000000), printf('user-%02d@laptop', i % 50), 1000 + i % 50, 'prod', "
        "'https://api.example.com', CASE WHEN i % 10 = 0 THEN ? ELSE ? END, 'acc', "
        "printf('proj-%04d', abs(random()) % ?), 'laptop', "
        "CASE WHEN i % 4 = 0 THEN 1000 + abs(random()) % ? END FROM n",
        (count, first, first, t, hw, t, Operation.SET_THRESHOLDS.value,
         Operation.SET_LIMITER_ACTIVE.value, PROJECTS, REASONS),
    )  # fmt: skip
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1) "
        "INSERT INTO items (id, target, body, previous) SELECT ? + i, "
        "'{\"rate_limiter_id\":\"rl-' || (i % 20000) || '\"}', '{\"isActive\":false}', "
        "'{\"isActive\":true}' FROM n",
        (count, first),
    )
    conn.execute(
        "INSERT INTO results (entry_id, finished, word, status, result, duration_ms) "
        "SELECT id, ? + (id - ?) * 1000000 + 300000, CASE WHEN id % 200 = 0 THEN ? ELSE ? END, "
        "200, '{\"isActive\":false}', 80.0 FROM items WHERE id BETWEEN ? AND ?",
        (t, first, w["network-error"], w["ok"], first, first + count - 1),
    )
    return int(t + count * 1000000)


def generate(path: Path, entries: int, run_size: int) -> None:
    Journal(path).start(  # the schema, made by the app (entry #1: a single change)
        profile="prod",
        base_url="https://api.example.com",
        operation=Operation.SET_LIMITER_ACTIVE,
        account="acc",
        project="proj-0000",
        target={"rate_limiter_id": "rl-0"},
        request_body={"isActive": False},
    )
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA cache_size=-2000000")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("BEGIN")
    w = _words(conn)
    _reasons(conn)
    # Times follow the app's entry (a real clock), one second later.
    next_id, run = 2, 1
    t = conn.execute("SELECT max(hw) FROM segments").fetchone()[0] + 1_000_000
    singles = max(1, run_size // 50)
    started = time.monotonic()
    while next_id <= entries:
        size = min(run_size, entries - next_id + 1)
        t = _run(conn, next_id, size, run, t, w)
        next_id += size
        run += 1
        count = min(singles, entries - next_id + 1)
        if count > 0:
            t = _singles(conn, next_id, count, t, w)
            next_id += count
        print(f"  {next_id - 1:,} entries, {time.monotonic() - started:.0f} s", flush=True)
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def timed(conn: sqlite3.Connection, query: Any, reps: int) -> tuple[float, float, int]:
    from bottui.store.journal.journal_query import read_page

    first = time.perf_counter()
    found = read_page(conn, query, None, 51)
    cold = time.perf_counter() - first
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        read_page(conn, query, None, 51)
        times.append(time.perf_counter() - t)
    return cold * 1000, statistics.median(times) * 1000, len(found)


def queries(conn: sqlite3.Connection, reps: int) -> None:
    from bottui.store.journal.journal_records import EntryId, EntryQuery, RunId

    last = conn.execute("SELECT max(id) FROM items").fetchone()[0]
    run = conn.execute("SELECT max(id) FROM runs").fetchone()[0]
    hw, low = conn.execute("SELECT max(hw), min(started) FROM segments").fetchone()
    end = EPOCH + timedelta(microseconds=hw)
    start = EPOCH + timedelta(microseconds=low)
    mid = start + (end - start) / 2
    cases = {
        "(none)": EntryQuery(),
        "--before <middle id>": EntryQuery(before=EntryId(last // 2)),
        "--project (single changes)": EntryQuery(project="proj-4999"),
        "--project (a run's)": EntryQuery(project=f"proj-{1 % PROJECTS:04d}"),
        "--operation thresholds.set": EntryQuery(operation=Operation.SET_THRESHOLDS.value),
        "--operation grant.revoke": EntryQuery(operation=Operation.REVOKE_GRANT.value),
        "--profile": EntryQuery(profile="prod"),
        "--outcome failed": EntryQuery(outcomes=FAILED),
        "--outcome ok": EntryQuery(outcomes=frozenset({"ok"})),
        "--unfinished": EntryQuery(unfinished=True),
        "--run (newest)": EntryQuery(run_id=RunId(run)),
        "--run 1 --unfinished": EntryQuery(run_id=RunId(1), unfinished=True),
        "--since <last hour>": EntryQuery(since=end - timedelta(hours=1)),
        "--since <tomorrow>": EntryQuery(since=end + timedelta(days=1)),
        "--until <middle>": EntryQuery(until=mid),
        "--until <start + 1 s>": EntryQuery(until=start + timedelta(seconds=1)),
        "--since/--until <middle hour>": EntryQuery(since=mid, until=mid + timedelta(hours=1)),
        "--project --outcome ok": EntryQuery(project="proj-4999", outcomes=frozenset({"ok"})),
        # A run's project: failures 1 in 500 of its ids; ok only in its few single changes.
        "--project (run) --outcome failed": EntryQuery(project="proj-0001", outcomes=FAILED),
        "--project (run) --outcome ok": EntryQuery(project="proj-0005", outcomes=frozenset({"ok"})),
        "--project (run) --outcome withdrawn": EntryQuery(
            project="proj-0001", outcomes=frozenset({"withdrawn"})
        ),
        "--operator (single changes)": EntryQuery(operator="user-07@laptop"),
        "--operator (runs)": EntryQuery(operator="ops-3@bastion"),
        "--operator (nobody)": EntryQuery(operator="nobody"),
        "--reason INC-0042 (one text)": EntryQuery(reason="inc-0042"),
        "--reason INC-00 (ten texts)": EntryQuery(reason="INC-00"),
        "--reason stuffing (every text)": EntryQuery(reason="stuffing"),
        "--reason (no text)": EntryQuery(reason="no such reason"),
        "--operator --reason": EntryQuery(operator="user-07@laptop", reason="INC-00"),
        "--project --reason": EntryQuery(project="proj-4999", reason="stuffing"),
    }
    print(f"{'first page (limit 50)':<36} {'first ms':>9} {'median ms':>10} {'rows':>5}")
    for name, query in cases.items():
        cold, warm, rows = timed(conn, query, reps)
        print(f"{name:<36} {cold:9.2f} {warm:10.2f} {rows:5d}")


def resume_lookups(path: Path) -> None:
    conn = sqlite3.connect(path)
    run, size = conn.execute(
        "SELECT run_id, count(*) AS n FROM items WHERE run_id IS NOT NULL "
        "GROUP BY run_id ORDER BY n DESC LIMIT 1"
    ).fetchone()
    keys = [k.hex() for (k,) in conn.execute(
        "SELECT item_key FROM items WHERE run_id = ? ORDER BY id", (run,))]  # fmt: skip
    conn.close()
    journal = Journal(path)
    cpu, wall = time.process_time(), time.perf_counter()
    settled = 0
    for at in range(0, len(keys), CHUNK):
        states = journal.item_states(run, keys[at : at + CHUNK])
        settled += sum(1 for s in states.values() if s.settled)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    journal.close()
    print(
        f"item_states: run of {size:,} ids in calls of {CHUNK}: {wall:.2f} s "
        f"({cpu:.2f} CPU-s, {wall / max(1, len(keys) // CHUNK) * 1000:.2f} ms per call), "
        f"{settled:,} settled"
    )


#: Who and why of the written run, where the checkout knows them (schema 4 on).
_WHO: dict[str, Any] = (
    {"operator": "alice@bastion-1", "reason": "INC-4312 credential stuffing on login"}
    # A dataclass before #29's structs, a msgspec Struct after: either names its fields.
    if "reason"
    in (
        *getattr(StartRecord, "__dataclass_fields__", {}),
        *getattr(StartRecord, "__struct_fields__", ()),
    )
    else {}
)


def _records(rng: random.Random, run: int, at: int, ids: int) -> list[StartRecord]:
    records = []
    for _ in range(at, min(ids, at + CHUNK)):
        target = {"visitorId": f"vis_{rng.getrandbits(64):016x}"}
        records.append(
            StartRecord(
                profile="prod",
                base_url="https://api.example.com",
                operation=Operation.REVOKE_GRANT,
                account="acc",
                project="proj-0001",
                target=target,
                request_body={"subject": target},
                run_id=run,
                item_key=rng.randbytes(16).hex(),
                **_WHO,
            )
        )
    return records


def _outcome(entry_id: int) -> dict[str, Any]:
    return {
        "outcome": "withdrawn",
        "status": 200,
        "result": {
            "revoked": True,
            "reportId": f"rep_{entry_id:016x}",
            "grantExpiresAt": None,
            "grantRemainingAttempts": None,
            "outcome": "withdrawn",
        },
        "duration_ms": 12.3456 + entry_id % 7,
    }


def _write_sync(journal: Journal, run: int, ids: int) -> None:
    """BatchWriter called directly: the journal's own cost."""
    rng = random.Random(12)
    writer = journal.batch(interval=0)
    for at in range(0, ids, CHUNK):
        for entry_id in writer.start_many(_records(rng, run, at, ids)):
            writer.finish(entry_id, **_outcome(entry_id))
    writer.close()


def _write_async(path: Path, run: int, ids: int) -> None:
    """Through the async store as the bulk engine calls it: start_many per chunk,
    an awaited finish per id, a flush every 256 outcomes."""
    import asyncio

    from bottui.store.journal.journal_store import SqliteJournalStore

    async def go() -> None:
        rng = random.Random(12)
        store = SqliteJournalStore(path)
        batch = await store.batch()
        done = 0
        for at in range(0, ids, CHUNK):
            for entry_id in await batch.start_many(_records(rng, run, at, ids)):
                await batch.finish(entry_id, **_outcome(entry_id))
                done += 1
                if done % 256 == 0:
                    await batch.flush()
        await batch.close()
        await store.close()

    asyncio.run(go())


def write_bulk(directory: Path, ids: int, mode: str) -> None:
    path = directory / f"bulk-write-{mode}.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    journal = Journal(path)
    run = journal.run(
        profile="prod",
        account="acc",
        project="proj-0001",
        input_sha256="ab" * 32,
        operation=Operation.REVOKE_GRANT,
    )
    # CPU of every thread of the process: the async store writes on its own.
    cpu = time.process_time()
    if mode == "sync":
        _write_sync(journal, run, ids)
    else:
        _write_async(path, run, ids)
    cpu = time.process_time() - cpu
    journal.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = path.stat().st_size
    print(
        f"bulk write ({mode}) of {ids:,} ids: {size / ids:.0f} MB per 1,000,000 ids; "
        f"journal CPU {cpu / ids * 1e4:.3f} CPU-s per 10k ids (records built, started, "
        "finished, flushed)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=10_000_000)
    parser.add_argument("--run-size", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--reuse", action="store_true", help="keep and reuse the generated file")
    parser.add_argument("--write-ids", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--write-mode", nargs="+", choices=("sync", "async"), default=["sync", "async"]
    )
    args = parser.parse_args()
    directory = args.dir
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"journal-scale-{args.entries}-{args.run_size}.sqlite3"
    if args.entries > 0:
        read_side(path, args)
    if args.write_ids > 0:
        for mode in args.write_mode:
            write_bulk(directory, args.write_ids, mode)


def read_side(path: Path, args: argparse.Namespace) -> None:
    """Generate (or reuse) the big journal, time its pages and resume lookups."""
    if not (args.reuse and path.exists()):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        print(f"generating {args.entries:,} entries in {path} ...")
        start = time.monotonic()
        generate(path, args.entries, args.run_size)
        print(f"generated in {time.monotonic() - start:.0f} s, {path.stat().st_size / 1e6:.0f} MB")
    conn = sqlite3.connect(path)
    entries = conn.execute("SELECT max(id) FROM items").fetchone()[0]
    print(f"{entries:,} entries, load average {os.getloadavg()[0]:.2f}")
    queries(conn, args.reps)
    conn.close()
    resume_lookups(path)
    if not args.reuse:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
