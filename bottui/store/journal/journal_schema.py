"""The journal's schema: its tables, the SQL that reads them, and every migration step.

The journal's tables (schema version 2); the SQL that appends rows is in
:mod:`bottui.store.journal.journal_rows`.

History, append-only (triggers refuse every ``UPDATE`` and ``DELETE``, so an
id is never used twice):

* ``runs``: one row per bulk run, identified by (profile, account, project,
  SHA-256 of the input file).
* ``segments``: the fields entries share, once per stretch of consecutive
  ids written together (a bulk chunk, or one single change): start time,
  operator, pid, profile, base URL, operation, account, project, run, and
  the request body's text around the target. ``first_id`` is its key;
  ``hw`` is the largest start time of this and every earlier segment, so it
  never decreases with the id (what makes ``--until`` an index range).
* ``items``: what differs per id: its target without the text every target
  of the segment starts and ends with, a body that is not the segment's
  template, previous value, ``undo_of``, run, item key (packed:
  :mod:`bottui.store.journal.journal_rows`), and ``again``: whether the run had
  attempted that key before (set on insert, never changed). An entry is its item plus the segment
  whose ``first_id`` is the largest not above its id.
* ``results``: at most one per item (``entry_id`` is its key), written after
  the answer. An item without one is *unfinished*.
* ``words`` (outcome words) and ``shapes`` (the key lists of result
  objects): dictionaries, each value stored once.

Derived, not history (kept by triggers): ``open_items`` holds the ids
without a result, so ``--unfinished`` and a resume read only those;
``segment_words`` which outcome words each segment holds.

* ``run_checkpoints`` (version 3): a run's settled prefix, appended now
  and then while it goes: every id on an input line up to ``settled_line``
  is settled (its outcome written in the same or an earlier transaction), so
  ``--resume`` looks up only the ids after the newest one.
* Who and why (version 4, issue #13): ``journal_origin`` holds one random
  UUID made when the file got version 4; an entry's *event id* is that
  origin and its id (``ORIGIN:ID``), unique across every journal file at no
  cost per row, so a push to a shared store can key on (origin, id).
  ``segments`` gains ``host`` and ``reason`` (an id of ``reasons``, a
  dictionary: each reason text stored once); the operator was there already.
  All three are per segment, so a bulk run stores them once per chunk.

Migrations from every earlier version: :mod:`bottui.store.journal.journal_schema`.
:data:`BUSY_TIMEOUT` is how long a journal write waits for another process.

Every version of the journal's schema, as numbered steps from an empty file.

:data:`SCHEMA` is what :class:`~bottui.store.sqlite_helpers.Database` opens the
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
  index behind every filter (:mod:`bottui.store.journal.journal_schema`).
* 3 (issue #12): ``run_checkpoints``, the settled prefix of a bulk run, so
  ``--resume`` looks up only the ids after it (DDL only: no row moves).
* 4 (issue #13): who and why. The file's origin UUID (every entry, old ones
  too, gets the event id ``ORIGIN:ID``), ``host`` and ``reason`` per segment,
  indexes for the operator and reason filters (DDL only: no row moves; old
  entries keep their operator and have no host or reason).
* 5 (issue #13): ``team_push`` and ``team_open``, the push cursor of each
  team store (bookkeeping, not history: see
  :data:`~bottui.store.journal.journal_schema.TABLES_V5`).
* 6 (issue #15): timed changes: ``timed_events``, ``timed_claims``,
  ``timed_results`` (append-only) and the bookkeeping ``timed_seen`` and
  ``timed_push`` (:data:`TABLES_V6`; DDL only).

The journal's tables of timed changes (schema version 6, issue #15).

History, append-only like every other journal table (triggers refuse
``UPDATE`` and ``DELETE``):

* ``timed_events``: the schedule of a timed change and what later changed it:
  ``schedule`` (written right after the change's *started* record, before
  the request is sent, so a change is never made without its revert being
  on record), ``extend`` (a new due time) and ``cancel`` (keep the change).
  ``timed`` names the timed change: the event id of its ``schedule``
  (``ORIGIN:tID``, unique across journal files), so an extend written on
  another machine names the same one. ``detail`` is JSON (see
  :mod:`bottui.store.journal.journal_timed`). Never edited: the state of a timed
  change is read from its events.
* ``timed_claims``: one row per revert, its key ``timed`` (PRIMARY KEY: a
  second claim of the same revert fails), committed before the revert is
  sent; it names the executor. A claim without a result is *unfinished* and
  is never sent again.
* ``timed_results``: how a claimed revert ended (``reverted``,
  ``superseded``, ``failed``, ``unknown``), at most one per claim.

Bookkeeping, not history (rows replaced): ``timed_seen``, when each kind of
executor (``tui``, ``run-due``) on each machine was last seen, so a
confirmation can warn that no executor is known; ``timed_push``, how far
each team store has received ``timed_events`` (the claims and results of a
team go to the team store directly).
"""

from __future__ import annotations

import sqlite3
from typing import Final

from bottui.store.journal.journal_rows import Dictionaries, Finish, Start, pack_time, write
from bottui.store.sqlite_helpers import Schema, Step
from bottui.store.store_errors import JournalUnavailable

#: "btuJ": marks a SQLite file as a bottui journal.
APPLICATION_ID: Final = 0x6274754A
#: Seconds a journal write (or read) waits for another process's lock before
#: "not journaled". The TUI, CLI commands and a bulk run may write at once,
#: each commit an fsync that a loaded disk can stretch to a second or more;
#: measured worst wait with 4 single-change writers, a bulk run and every core
#: busy: see tests/bench/journal_contention.py. Under the 15 s a change may
#: wait for its started record (issue #11), so the journal's answer comes first.
BUSY_TIMEOUT: Final = 10.0

APPEND_ONLY_TABLES: Final = ("runs", "segments", "items", "results", "words", "shapes")


def append_only(tables: tuple[str, ...]) -> tuple[str, ...]:
    """The triggers refusing ``UPDATE`` and ``DELETE`` on ``tables``."""
    return tuple(
        f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
        "BEGIN SELECT RAISE(ABORT, 'the bottui journal is append-only'); END"
        for table in tables
        for verb in ("UPDATE", "DELETE")
    )


#: The tables of version 2 (``runs`` is kept from version 1 as it is).
TABLES_V2: Final = (
    """
    CREATE TABLE segments (
        first_id INTEGER PRIMARY KEY,
        last_id INTEGER NOT NULL CHECK (last_id >= first_id),
        started INTEGER NOT NULL,
        hw INTEGER NOT NULL,
        started_text TEXT,
        operator TEXT NOT NULL,
        pid INTEGER NOT NULL,
        profile TEXT NOT NULL,
        base_url TEXT NOT NULL,
        operation TEXT NOT NULL,
        account TEXT NOT NULL,
        project TEXT NOT NULL,
        run_id INTEGER REFERENCES runs (id),
        body_prefix TEXT,
        body_suffix TEXT,
        target_prefix TEXT,
        target_suffix TEXT
    )
    """,
    "CREATE INDEX segments_by_project ON segments (project, first_id)",
    "CREATE INDEX segments_by_kind ON segments (profile, operation, first_id)",
    "CREATE INDEX segments_by_profile ON segments (profile, first_id)",
    "CREATE INDEX segments_by_operation ON segments (operation, first_id)",
    "CREATE INDEX segments_by_account ON segments (account, first_id)",
    "CREATE INDEX segments_by_run ON segments (run_id, first_id) WHERE run_id IS NOT NULL",
    "CREATE INDEX segments_by_time ON segments (hw, first_id)",
    # Segments started before an earlier one (clock skew, a chunk stamped
    # before a long lock wait): few, found here by --until.
    "CREATE INDEX segments_late ON segments (hw, first_id) WHERE started < hw",
    """
    CREATE TABLE items (
        id INTEGER PRIMARY KEY,
        target TEXT NOT NULL,
        body TEXT,
        previous TEXT,
        undo_of INTEGER REFERENCES items (id),
        run_id INTEGER REFERENCES runs (id),
        item_key,
        again INTEGER NOT NULL DEFAULT 0 CHECK (again IN (0, 1))
    )
    """,
    # A run's first attempt of each key, and its later ones: a resume finds
    # the first in input order by walking ids, and looks up only the others.
    "CREATE INDEX items_by_key ON items (run_id, item_key) WHERE run_id IS NOT NULL AND again = 0",
    "CREATE INDEX items_again ON items (run_id, item_key) WHERE again = 1",
    "CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE)",
    "CREATE TABLE shapes (id INTEGER PRIMARY KEY, keys TEXT NOT NULL UNIQUE)",
    """
    CREATE TABLE results (
        entry_id INTEGER PRIMARY KEY REFERENCES items (id),
        finished INTEGER NOT NULL,
        word INTEGER NOT NULL REFERENCES words (id),
        status INTEGER,
        result TEXT,
        shape INTEGER REFERENCES shapes (id),
        error TEXT,
        duration_ms REAL,
        finished_text TEXT
    )
    """,
    "CREATE INDEX results_by_word ON results (word, entry_id)",
    # Derived: which outcome words a segment holds, so a project filter
    # combined with an outcome skips the segments without it.
    "CREATE TABLE segment_words (first_id INTEGER NOT NULL, word INTEGER NOT NULL, "
    "PRIMARY KEY (first_id, word)) WITHOUT ROWID",
    "CREATE TRIGGER results_word AFTER INSERT ON results BEGIN "
    "INSERT OR IGNORE INTO segment_words (first_id, word) VALUES "
    "((SELECT max(first_id) FROM segments WHERE first_id <= NEW.entry_id), NEW.word); END",
    "CREATE TABLE open_items (entry_id INTEGER PRIMARY KEY, run_id INTEGER)",
    "CREATE INDEX open_by_run ON open_items (run_id, entry_id) WHERE run_id IS NOT NULL",
    "CREATE TRIGGER items_open AFTER INSERT ON items BEGIN "
    "INSERT INTO open_items (entry_id, run_id) VALUES (NEW.id, NEW.run_id); END",
    "CREATE TRIGGER results_close AFTER INSERT ON results BEGIN "
    "DELETE FROM open_items WHERE entry_id = NEW.entry_id; END",
    *append_only(APPEND_ONLY_TABLES[1:]),
)

#: The tables of version 3: settled-prefix checkpoints of bulk runs.
TABLES_V3: Final = (
    """
    CREATE TABLE run_checkpoints (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs (id),
        settled_line INTEGER NOT NULL CHECK (settled_line >= 0),
        at INTEGER NOT NULL
    )
    """,
    "CREATE INDEX run_checkpoints_by_run ON run_checkpoints (run_id, settled_line)",
    *append_only(("run_checkpoints",)),
)
INSERT_CHECKPOINT: Final = "INSERT INTO run_checkpoints (run_id, settled_line, at) VALUES (?, ?, ?)"
#: The newest (largest: a run's prefix only grows) settled line of a run.
SETTLED_PREFIX: Final = "SELECT max(settled_line) FROM run_checkpoints WHERE run_id = ?"

#: The tables of version 4: who and why (see the module's docstring).
TABLES_V4: Final = (
    "CREATE TABLE journal_origin (id INTEGER PRIMARY KEY CHECK (id = 1), origin TEXT NOT NULL)",
    # A version-4 UUID made by SQLite itself, so a new file and a migrated one
    # get theirs from the same statement.
    "INSERT INTO journal_origin (id, origin) SELECT 1, substr(h, 1, 8) || '-' || "
    "substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-' || "
    "substr('89ab', 1 + (abs(random()) % 4), 1) || substr(h, 18, 3) || '-' || "
    "substr(h, 21, 12) FROM (SELECT lower(hex(randomblob(16))) AS h)",
    "CREATE TABLE reasons (id INTEGER PRIMARY KEY, reason TEXT NOT NULL UNIQUE)",
    # ADD COLUMN rewrites no row: the migration is instant whatever the size.
    "ALTER TABLE segments ADD COLUMN host TEXT",
    "ALTER TABLE segments ADD COLUMN reason INTEGER REFERENCES reasons (id)",
    "CREATE INDEX segments_by_operator ON segments (operator, first_id)",
    "CREATE INDEX segments_by_reason ON segments (reason, first_id) WHERE reason IS NOT NULL",
    *append_only(("journal_origin", "reasons")),
)
#: The tables of version 5: the team store's push bookkeeping (issue #13).
#: Not history, so not append-only: one row per store URL (``store``, its
#: keyring username: the URL without a password) says from which id entries
#: are shared (``since_id``: entries above it; the newest id when the store
#: was first configured, 0 after ``--backfill``) and up to which id they have
#: been pushed (``pushed_id``, only ever raised: ``max()``, so several
#: processes pushing at once never move it back). ``team_open`` holds the ids
#: pushed before their outcome existed: their outcome is still to push.
TABLES_V5: Final = (
    """
    CREATE TABLE team_push (
        store TEXT PRIMARY KEY,
        since_id INTEGER NOT NULL,
        pushed_id INTEGER NOT NULL,
        configured_at INTEGER NOT NULL,
        last_sync INTEGER
    )
    """,
    "CREATE TABLE team_open (store TEXT NOT NULL, entry_id INTEGER NOT NULL, "
    "PRIMARY KEY (store, entry_id)) WITHOUT ROWID",
)

TABLES_V6: Final = (
    """
    CREATE TABLE timed_events (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('schedule', 'extend', 'cancel')),
        timed TEXT NOT NULL,
        detail TEXT NOT NULL,
        operator TEXT NOT NULL,
        host TEXT
    )
    """,
    "CREATE INDEX timed_events_by_key ON timed_events (timed, id)",
    """
    CREATE TABLE timed_claims (
        timed TEXT PRIMARY KEY,
        at INTEGER NOT NULL,
        executor TEXT NOT NULL
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE timed_results (
        timed TEXT PRIMARY KEY REFERENCES timed_claims (timed),
        at INTEGER NOT NULL,
        state TEXT NOT NULL,
        detail TEXT NOT NULL
    ) WITHOUT ROWID
    """,
    *append_only(("timed_events", "timed_claims", "timed_results")),
    """
    CREATE TABLE timed_seen (
        kind TEXT NOT NULL,
        executor TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (kind, executor)
    ) WITHOUT ROWID
    """,
    "CREATE TABLE timed_push (store TEXT PRIMARY KEY, pushed_id INTEGER NOT NULL)",
)

#: The file's origin (one row; a file of version 4 or later always has it).
ORIGIN: Final = "SELECT origin FROM journal_origin WHERE id = 1"

#: The id the next entry gets (read inside the writing transaction).
NEXT_ENTRY_ID: Final = "SELECT coalesce(max(id), 0) + 1 FROM items"

#: The columns of an entry, in the order :func:`~bottui.store.journal.journal_rows.entry` reads.
COLUMNS: Final = (
    "e.id, s.started, s.started_text, s.operator, s.pid, s.profile, s.base_url, "
    "s.operation, s.account, s.project, e.target, s.target_prefix, s.target_suffix, e.body, "
    "s.body_prefix, s.body_suffix, "
    "e.previous, e.undo_of, e.run_id, e.item_key, o.finished, o.finished_text, w.word, "
    "o.status, o.result, k.keys, o.error, o.duration_ms, s.host, "
    "(SELECT r.reason FROM reasons AS r WHERE r.id = s.reason), "
    f"({ORIGIN})"
)
#: An item's segment: the one starting at the largest first_id not above its id.
SEGMENT_OF: Final = "(SELECT max(first_id) FROM segments WHERE first_id <= e.id)"
#: Outcome, outcome word and result shape of ``e`` (left joins).
OUTCOME_JOINS: Final = (
    " LEFT JOIN results AS o ON o.entry_id = e.id"
    " LEFT JOIN words AS w ON w.id = o.word"
    " LEFT JOIN shapes AS k ON k.id = o.shape"
)
#: Every entry (add WHERE/ORDER BY on ``e``): items joined to their segment.
SELECT_ENTRIES: Final = (
    f"SELECT {COLUMNS} FROM items AS e JOIN segments AS s ON s.first_id = {SEGMENT_OF}"
    + OUTCOME_JOINS
)

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
                # Outcome, status and result; no result keys; error and duration.
                outcome = (*row[16:19], None, *row[19:21])
                finishes.append(Finish(entry_id, finished, finished_text, *outcome))
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
    unavailable=JournalUnavailable,
)
