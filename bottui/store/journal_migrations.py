"""Every version of the journal's schema, as numbered steps from an empty file.

:data:`SCHEMA` is what :class:`~bottui.store.sqlite_util.Database` opens the
journal with: a file below :data:`VERSION` is migrated in place on first use,
all pending steps in one ``BEGIN IMMEDIATE`` transaction (see
``Database._migrate``); a file above it is refused and never written.

To change the schema: write the step (DDL, or a function moving rows that
drops and re-creates the append-only triggers of the tables it rewrites),
append ``Step(N + 1, ...)`` to :data:`STEPS`, and make :data:`CURRENT` (what a
new file gets) say the same; ``test_journal_migration`` checks a migrated
file's schema equals a new one's. Never edit a step that shipped: files in
the field were built by it.

* 1 (v0.1): ``runs``, ``entries`` (every field per id, times as text),
  ``outcomes``. The first release declared ids ``AUTOINCREMENT``, later ones
  plain ``INTEGER PRIMARY KEY``; both are version 1 and both migrate.
* 2 (issue #12): shared fields once per segment, compact per-id rows, an
  index behind every filter (:mod:`bottui.store.journal_schema`).
* 3 (issue #12): ``run_checkpoints``, the settled prefix of a bulk run, so
  ``--resume`` looks up only the ids after it (DDL only: no row moves).
* 4 (issue #13): who and why. The file's origin UUID (every entry, old ones
  too, gets the event id ``ORIGIN:ID``), ``host`` and ``reason`` per segment,
  indexes for the operator and reason filters (DDL only: no row moves; old
  entries keep their operator and have no host or reason).
* 5 (issue #13): ``team_push`` and ``team_open``, the push cursor of each
  team store (bookkeeping, not history: see
  :data:`~bottui.store.journal_schema.TABLES_V5`).
* 6 (issue #15): timed changes: ``timed_events``, ``timed_claims``,
  ``timed_results`` (append-only) and the bookkeeping ``timed_seen`` and
  ``timed_push`` (:mod:`bottui.store.timed_schema`; DDL only).
"""

from __future__ import annotations

import sqlite3
from typing import Final

from bottui.store.journal_codec import pack_time
from bottui.store.journal_rows import Dictionaries, Finish, Start, write
from bottui.store.journal_schema import (
    APPLICATION_ID,
    TABLES_V2,
    TABLES_V3,
    TABLES_V4,
    TABLES_V5,
    append_only,
)
from bottui.store.sqlite_util import Schema, Step
from bottui.store.timed_schema import TABLES_V6

#: Version 1 as v0.1 shipped it (``IF NOT EXISTS``: it ran on every opening).
V1: Final = (
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
    *append_only(("runs", "entries", "outcomes")),
)

#: Rows moved per ``executemany`` while migrating (bounds the memory used).
_MOVE_CHUNK: Final = 5000


def to_v2(conn: sqlite3.Connection) -> None:
    """Version 1 to 2: move every entry and outcome into the compact tables, ids kept."""
    for statement in TABLES_V2:
        conn.execute(statement)
    # Filled once at the end, not row by row through the triggers.
    conn.execute("DROP TRIGGER items_open")
    conn.execute("DROP TRIGGER results_close")
    conn.execute("DROP TRIGGER results_word")
    names = Dictionaries()
    seen_text: str | None = None
    seen: tuple[int, str | None] = (0, None)
    rows = conn.execute(
        "SELECT e.id, e.started_at, e.operator, e.pid, e.profile, e.base_url, e.operation, "
        "e.account, e.project, e.target, e.request_body, e.previous, e.undo_of, e.run_id, "
        "e.item_key, o.finished_at, o.outcome, o.status, o.result, o.error, o.duration_ms "
        "FROM entries AS e LEFT JOIN outcomes AS o ON o.entry_id = e.id ORDER BY e.id"
    )
    while batch := rows.fetchmany(_MOVE_CHUNK):
        # Ids are kept, so a gap (never in an append-only file) starts a new segment.
        run: list[Start] = []
        finishes: list[Finish] = []
        first = batch[0][0]
        for row in batch:
            entry_id = row[0]
            if entry_id != first + len(run):
                write(conn, first, run, (), names, version=2)
                run, first = [], entry_id
            if row[1] != seen_text:  # a chunk's ids share their start time
                seen_text, seen = row[1], pack_time(row[1])
            started, started_text = seen
            run.append(Start(started, started_text, row[1:15]))
            if row[16] is not None:
                finished, finished_text = pack_time(row[15])
                # Results keep their text (compacting them would double the time taken).
                finishes.append(
                    Finish(
                        entry_id,
                        finished,
                        finished_text,
                        row[16],
                        row[17],
                        row[18],
                        None,
                        row[19],
                        row[20],
                    )
                )
        write(conn, first, run, finishes, names, version=2)
    conn.execute(
        "INSERT INTO open_items (entry_id, run_id) SELECT e.id, e.run_id FROM items AS e "
        "WHERE NOT EXISTS (SELECT 1 FROM results AS o WHERE o.entry_id = e.id)"
    )
    conn.execute(
        "INSERT OR IGNORE INTO segment_words (first_id, word) SELECT DISTINCT "
        "(SELECT max(first_id) FROM segments WHERE first_id <= o.entry_id), o.word "
        "FROM results AS o"
    )
    derived = ("items_open", "results_close", "results_word")
    for statement in TABLES_V2:
        if statement.startswith(tuple(f"CREATE TRIGGER {name} " for name in derived)):
            conn.execute(statement)
    # History moves, so its guards are dropped and made again in this transaction.
    for table in ("entries", "outcomes"):
        for verb in ("update", "delete"):
            conn.execute(f"DROP TRIGGER IF EXISTS {table}_no_{verb}")
    conn.execute("DROP TABLE outcomes")
    conn.execute("DROP TABLE entries")
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
        conn.execute("DELETE FROM sqlite_sequence WHERE name IN ('entries', 'outcomes')")
    for statement in append_only(("runs",)):
        conn.execute(statement)


#: Every step of an existing file (version 1 was the first); the last one's
#: number is the current version.
STEPS: Final = (
    Step(2, to_v2),
    Step(3, TABLES_V3),
    Step(4, TABLES_V4),
    Step(5, TABLES_V5),
    Step(6, TABLES_V6),
)
VERSION: Final = STEPS[-1].version

#: A new journal: the current tables at once (what every step ends in).
CURRENT: Final = (
    V1[0],
    *TABLES_V2,
    *append_only(("runs",)),
    *TABLES_V3,
    *TABLES_V4,
    *TABLES_V5,
    *TABLES_V6,
)

SCHEMA: Final = Schema(
    name="journal",
    application_id=APPLICATION_ID,
    version=VERSION,
    statements=CURRENT,
    steps=STEPS,
)

__all__ = ["CURRENT", "SCHEMA", "STEPS", "V1", "VERSION", "to_v2"]
