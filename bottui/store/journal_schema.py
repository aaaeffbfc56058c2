"""The journal's tables (schema version 2) and the SQL that writes them.

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
  :mod:`bottui.store.journal_codec`), and ``again``: whether the run had
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

Migrations from every earlier version: :mod:`bottui.store.journal_migrations`.
:data:`BUSY_TIMEOUT` is how long a journal write waits for another process.
"""

from __future__ import annotations

from typing import Final

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

#: The file's origin (one row; a file of version 4 or later always has it).
ORIGIN: Final = "SELECT origin FROM journal_origin WHERE id = 1"

#: The segment writer of version 2 and 3 files (the v2 migration writes through it).
INSERT_SEGMENT_V2: Final = (
    "INSERT INTO segments (first_id, last_id, started, hw, started_text, operator, pid, "
    "profile, base_url, operation, account, project, run_id, body_prefix, body_suffix, "
    "target_prefix, target_suffix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_SEGMENT: Final = (
    "INSERT INTO segments (first_id, last_id, started, hw, started_text, operator, pid, "
    "profile, base_url, operation, account, project, run_id, body_prefix, body_suffix, "
    "target_prefix, target_suffix, host, reason) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
#: ``again`` is 1 when the run already has an attempt of this key.
INSERT_ITEM: Final = (
    "INSERT INTO items (id, target, body, previous, undo_of, run_id, item_key, again) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?6 IS NOT NULL AND EXISTS (SELECT 1 FROM items "
    "INDEXED BY items_by_key WHERE run_id = ?6 AND item_key = ?7 AND again = 0))"
)
INSERT_RESULT: Final = (
    "INSERT INTO results (entry_id, finished, word, status, result, shape, error, "
    "duration_ms, finished_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
#: The id the next entry gets (read inside the writing transaction).
NEXT_ENTRY_ID: Final = "SELECT coalesce(max(id), 0) + 1 FROM items"
#: The newest segment's high-water start time (0 when there is none).
LAST_HW: Final = "SELECT coalesce((SELECT hw FROM segments ORDER BY first_id DESC LIMIT 1), 0)"

#: The columns of an entry, in the order :func:`~bottui.store.journal_rows.entry` reads.
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

__all__ = [
    "APPEND_ONLY_TABLES",
    "APPLICATION_ID",
    "BUSY_TIMEOUT",
    "COLUMNS",
    "INSERT_CHECKPOINT",
    "INSERT_ITEM",
    "INSERT_RESULT",
    "INSERT_SEGMENT",
    "INSERT_SEGMENT_V2",
    "LAST_HW",
    "NEXT_ENTRY_ID",
    "ORIGIN",
    "OUTCOME_JOINS",
    "SEGMENT_OF",
    "SELECT_ENTRIES",
    "SETTLED_PREFIX",
    "TABLES_V2",
    "TABLES_V3",
    "TABLES_V4",
    "TABLES_V5",
    "append_only",
]
