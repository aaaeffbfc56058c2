"""A journal file as bottui v0.1 wrote it, for the migration tests.

The DDL below is the first release's (``git show dd12d0e:bottui/store/journal/journal_schema.py``:
ids ``AUTOINCREMENT``, schema version 1), kept here verbatim as history; the
rows are what v0.1's writers put there (times as text, every field per id,
item keys as text). :func:`build` fills a file with bulk runs (digest keys,
default keys, a resume pass), single changes with undo chains, unfinished
entries, odd values a later reader must keep (a body that is not JSON, a
hand-written time), and returns the rows as v0.1 read them.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Final

from bottui.store.journal.journal_records import JournalEntry

APPLICATION_ID: Final = 0x6274754A

DDL_V01: Final = (
    """
    CREATE TABLE IF NOT EXISTS runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL,
        profile TEXT NOT NULL,
        account TEXT NOT NULL,
        project TEXT NOT NULL,
        input_sha256 TEXT NOT NULL CHECK (length(input_sha256) = 64),
        operation TEXT NOT NULL,
        UNIQUE (profile, account, project, input_sha256)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS entries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        started_at TEXT NOT NULL,
        operator TEXT NOT NULL,
        pid INTEGER NOT NULL,
        profile TEXT NOT NULL,
        base_url TEXT NOT NULL,
        operation TEXT NOT NULL,
        account TEXT NOT NULL,
        project TEXT NOT NULL,
        target TEXT NOT NULL,
        request_body TEXT,
        previous TEXT,
        undo_of INTEGER REFERENCES entries (id),
        run_id INTEGER REFERENCES runs (id),
        item_key TEXT
    )
    """,
    "CREATE INDEX IF NOT EXISTS entries_by_kind ON entries (profile, operation, id)",
    "CREATE INDEX IF NOT EXISTS entries_by_project ON entries (project, id)",
    "CREATE INDEX IF NOT EXISTS entries_by_run ON entries (run_id, item_key) "
    "WHERE run_id IS NOT NULL",
    """
    CREATE TABLE IF NOT EXISTS outcomes (
        entry_id INTEGER PRIMARY KEY REFERENCES entries (id),
        finished_at TEXT NOT NULL,
        outcome TEXT NOT NULL,
        status INTEGER,
        result TEXT,
        error TEXT,
        duration_ms REAL
    )
    """,
    *(
        f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
        "BEGIN SELECT RAISE(ABORT, 'the bottui journal is append-only'); END"
        for table in ("runs", "entries", "outcomes")
        for verb in ("UPDATE", "DELETE")
    ),
)

#: v0.1's read: an entry joined with its outcome (:func:`v01_entry`'s columns).
SELECT_V01: Final = (
    "SELECT e.id, e.started_at, e.operator, e.pid, e.profile, e.base_url, e.operation, "
    "e.account, e.project, e.target, e.request_body, e.previous, e.undo_of, e.run_id, "
    "e.item_key, o.finished_at, o.outcome, o.status, o.result, o.error, o.duration_ms "
    "FROM entries AS e LEFT JOIN outcomes AS o ON o.entry_id = e.id ORDER BY e.id DESC"
)
URL: Final = "https://api.example.com"


def _j(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _stamp(second: int, micro: int = 0) -> str:
    return f"2025-06-01T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}.{micro:06d}Z"


def build(path: Path) -> list[JournalEntry]:
    """Write the v0.1 fixture at ``path``; its entries as v0.1 read them, newest first."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("BEGIN")
    for statement in DDL_V01:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.execute("PRAGMA user_version=1")
    entries: list[tuple[Any, ...]] = []
    outcomes: list[tuple[Any, ...]] = []

    def entry(*row: Any) -> int:
        entries.append(row)
        return len(entries)

    # Single changes: a limiter switched off, undone, the undo undone (a redo);
    # thresholds with literals kept as text.
    first = entry(
        _stamp(10, 123456),
        "ana@laptop",
        501,
        "prod",
        URL,
        "limiter.set-active",
        "acc",
        "proj-a",
        _j({"rate_limiter_id": "rl-1"}),
        _j({"isActive": False}),
        _j({"isActive": True}),
        None,
        None,
        None,
    )
    outcomes.append((first, _stamp(10, 523456), "ok", 200, _j({"isActive": False}), None, 40.5))
    undo = entry(
        _stamp(20),
        "ana@laptop",
        502,
        "prod",
        URL,
        "limiter.set-active",
        "acc",
        "proj-a",
        _j({"rate_limiter_id": "rl-1"}),
        _j({"isActive": True}),
        _j({"isActive": False}),
        first,
        None,
        None,
    )
    outcomes.append((undo, _stamp(21), "ok", 200, None, None, 12.0))
    redo = entry(
        _stamp(30),
        "bo@desk",
        77,
        "prod",
        URL,
        "limiter.set-active",
        "acc",
        "proj-a",
        _j({"rate_limiter_id": "rl-1"}),
        _j({"isActive": False}),
        _j({"isActive": True}),
        undo,
        None,
        None,
    )
    outcomes.append(
        (
            redo,
            _stamp(31),
            "api-error",
            409,
            None,
            _j({"code": "conflict", "message": "changed meanwhile"}),
            9.25,
        )
    )
    thresholds = entry(
        _stamp(40),
        "bo@desk",
        78,
        "staging",
        URL,
        "thresholds.set",
        "acc",
        "proj-b",
        _j({"dimension_id": "dim-9"}),
        '{"name":"login","blockThreshold":0.90,"challengeThreshold":0.5}',
        '{"name":"login","blockThreshold":0.8,"challengeThreshold":0.40}',
        None,
        None,
        None,
    )
    outcomes.append((thresholds, _stamp(41), "ok", 200, None, None, None))
    # Unfinished single change (a crash between request and answer).
    entry(
        _stamp(50),
        "bo@desk",
        79,
        "prod",
        URL,
        "limiter.set-active",
        "acc",
        "proj-a",
        _j({"rate_limiter_id": "rl-2"}),
        _j({"isActive": True}),
        None,
        None,
        None,
        None,
    )
    # A hand-edited row: a time in another shape, a body that is no longer JSON.
    odd = entry(
        "2025-06-01 00:01:00+00:00",
        "ops",
        1,
        "prod",
        URL,
        "limiter.set-active",
        "acc",
        "proj-é",
        _j({"rate_limiter_id": "rl-3"}),
        "{not json",
        None,
        None,
        None,
        None,
    )
    outcomes.append((odd, "yesterday", "ok", None, "[1,2", None, None))

    conn.executemany(
        "INSERT INTO runs (created_at, profile, account, project, input_sha256, operation) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            (_stamp(100), "prod", "acc", "proj-a", "a" * 64, "grant.revoke"),
            (_stamp(200), "prod", "acc", "proj-c", "b" * 64, "grant.revoke"),
        ],
    )
    # Run 1: digest keys, chunks of 4 stamped at once; a failure, an unknown, two unfinished.
    for chunk in range(3):
        for n in range(4):
            i = chunk * 4 + n
            target = {"visitorId": f"vis_{i:03d}"}
            eid = entry(
                _stamp(100 + chunk, 5),
                "ana@laptop",
                600,
                "prod",
                URL,
                "grant.revoke",
                "acc",
                "proj-a",
                _j(target),
                _j({"subject": target}),
                None,
                None,
                1,
                f"{i:032x}",
            )
            if i in (5, 9):
                continue  # unfinished
            word = {3: "api-error", 7: "unknown"}.get(
                i, "withdrawn" if i % 2 else "nothing-standing"
            )
            result = (
                None
                if word == "api-error"
                else _j(
                    {
                        "revoked": i % 2 == 1,
                        "reportId": f"rep_{i:04x}",
                        "grantExpiresAt": None,
                        "grantRemainingAttempts": None,
                        "outcome": word,
                    }
                )
            )
            error = _j({"code": "invalid", "message": "bad id"}) if word == "api-error" else None
            outcomes.append(
                (eid, _stamp(110, i), word, 200 if result else 400, result, error, 10.0 + i / 3)
            )
    # Run 1 resumed by another process: the unfinished ids again.
    for i in (5, 9):
        target = {"visitorId": f"vis_{i:03d}"}
        eid = entry(
            _stamp(150),
            "ana@laptop",
            601,
            "prod",
            URL,
            "grant.revoke",
            "acc",
            "proj-a",
            _j(target),
            _j({"subject": target}),
            None,
            None,
            1,
            f"{i:032x}",
        )
        outcomes.append((eid, _stamp(151), "unknown-retried", 200, None, None, 5.5))
    # Run 2: v0.1's default keys (the canonical target) and a body in another order.
    for i in range(3):
        target = {"userAccountId": f"u{i}", "visitorId": f"v{i}"}
        eid = entry(
            _stamp(200),
            "bo@desk",
            700,
            "prod",
            URL,
            "grant.revoke",
            "acc",
            "proj-c",
            _j(target),
            _j({"subject": {"visitorId": f"v{i}", "userAccountId": f"u{i}"}}),
            None,
            None,
            2,
            _j(target),
        )
        outcomes.append((eid, _stamp(201), "withdrawn", 200, _j({"revoked": True}), None, 1.0))
    conn.executemany(
        "INSERT INTO entries (started_at, operator, pid, profile, base_url, operation, account, "
        "project, target, request_body, previous, undo_of, run_id, item_key) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        entries,
    )
    conn.executemany("INSERT INTO outcomes VALUES (?, ?, ?, ?, ?, ?, ?)", outcomes)
    conn.execute("COMMIT")
    found = [v01_entry(row) for row in conn.execute(SELECT_V01)]
    conn.close()
    return found


__all__ = ["DDL_V01", "SELECT_V01", "build"]


def v01_entry(row: tuple[Any, ...]) -> JournalEntry:
    """An entry as v0.1 built it from a row of :data:`SELECT_V01` (``JournalEntry.from_row``)."""
    (
        entry_id,
        started_at,
        operator,
        pid,
        profile,
        base_url,
        operation,
        account,
        project,
        target,
        request_body,
        previous,
        undo_of,
        run_id,
        item_key,
        finished_at,
        outcome,
        status,
        result,
        error,
        duration_ms,
    ) = row
    return JournalEntry(
        id=entry_id,
        started_at=started_at,
        operator=operator,
        pid=pid,
        profile=profile,
        base_url=base_url,
        operation=operation,
        account=account,
        project=project,
        target=_load(target),
        request_body=_load(request_body),
        previous=_load(previous),
        undo_of=undo_of,
        run_id=run_id,
        item_key=item_key,
        finished_at=finished_at,
        outcome=outcome,
        status=status,
        result=_load(result),
        error=_load(error),
        duration_ms=duration_ms,
    )


def _load(value: str | None) -> Any:
    if value is None:
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value
