"""The journal's tables and the SQL that writes and reads them.

Three append-only tables:

* ``entries``: one *started* row per mutation attempt, written before the
  request is sent (time, operator, profile, base URL, operation, target,
  redacted request body, previous value, ``undo_of``, ``run_id``).
* ``outcomes``: at most one row per entry (``entry_id`` is its primary
  key), written after the answer. An entry without one is *unfinished*.
* ``runs``: one row per bulk run, identified by (profile, account, project,
  SHA-256 of the input file).

Triggers refuse every ``UPDATE`` and ``DELETE``: history is never rewritten,
so an id (the rowid, always the largest plus one) is never used twice.

:data:`BUSY_TIMEOUT` is how long a journal write waits for another process.
"""

from __future__ import annotations

from typing import Final

from bottui.store.sqlite_util import Schema

#: "btuJ": marks a SQLite file as a bottui journal.
APPLICATION_ID: Final = 0x6274754A
VERSION: Final = 1
#: Seconds a journal write (or read) waits for another process's lock before
#: "not journaled". The TUI, CLI commands and a bulk run may write at once,
#: each commit an fsync that a loaded disk can stretch to a second or more;
#: measured worst wait with 4 single-change writers, a bulk run and every core
#: busy: see tests/bench/journal_contention.py. Under the 15 s a change may
#: wait for its started record (issue #11), so the journal's answer comes first.
BUSY_TIMEOUT: Final = 10.0

_APPEND_ONLY = tuple(
    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
    "BEGIN SELECT RAISE(ABORT, 'the bottui journal is append-only'); END"
    for table in ("runs", "entries", "outcomes")
    for verb in ("UPDATE", "DELETE")
)

SCHEMA: Final = Schema(
    name="journal",
    application_id=APPLICATION_ID,
    version=VERSION,
    statements=(
        """
        CREATE TABLE IF NOT EXISTS runs (
            id INTEGER PRIMARY KEY,
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
            id INTEGER PRIMARY KEY,
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
        *_APPEND_ONLY,
    ),
)

INSERT_ENTRY: Final = (
    "INSERT INTO entries (started_at, operator, pid, profile, base_url, operation, account, "
    "project, target, request_body, previous, undo_of, run_id, item_key) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_ENTRY_WITH_ID: Final = INSERT_ENTRY.replace("(started_at,", "(id, started_at,", 1).replace(
    "VALUES (?,", "VALUES (?, ?,", 1
)
#: The id the next entry gets (read inside the writing transaction).
NEXT_ENTRY_ID: Final = "SELECT coalesce(max(id), 0) + 1 FROM entries"
INSERT_OUTCOME: Final = (
    "INSERT INTO outcomes (entry_id, finished_at, outcome, status, result, error, duration_ms) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
SELECT_ENTRIES: Final = (
    "SELECT e.id, e.started_at, e.operator, e.pid, e.profile, e.base_url, e.operation, "
    "e.account, e.project, e.target, e.request_body, e.previous, e.undo_of, e.run_id, "
    "e.item_key, o.finished_at, o.outcome, o.status, o.result, o.error, o.duration_ms "
    "FROM entries AS e LEFT JOIN outcomes AS o ON o.entry_id = e.id"
)

__all__ = [
    "APPLICATION_ID",
    "BUSY_TIMEOUT",
    "INSERT_ENTRY",
    "INSERT_ENTRY_WITH_ID",
    "INSERT_OUTCOME",
    "NEXT_ENTRY_ID",
    "SCHEMA",
    "SELECT_ENTRIES",
    "VERSION",
]
