"""The shared inventory's outbox: facts this machine learned, waiting for the team store.

An inventory edit or a learned state is written to the local inventory at
once and its facts (:class:`~bottui.store.team.facts.Fact`) queued here, in a
small SQLite file beside the journal (``team-facts.sqlite3``); the push
thread sends them with the journal's push. A store that is down therefore
never delays a key press, and nothing learned meanwhile is lost: the queue
survives the process.

One row per (store, fact key): a newer local value of the same field
replaces the waiting one (only the newest is worth sending) with a new
``seq``; :meth:`FactsOutbox.pushed` removes exactly the rows it sent (same
``seq``), so a value queued while a push ran stays for the next.

The file also keeps this machine's *origin* (a UUID), written with every
fact: reading the shared inventory skips this machine's own facts, and
facts still waiting here win over what the store holds (they are newer).

Synchronous (sqlite3): :class:`~bottui.ops.team_sync.TeamSync` and
:mod:`bottui.ops.team_facts` run it on the store executor.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from bottui.store.errors import DatabaseUnavailable
from bottui.store.sqlite_helpers import Database, Schema
from bottui.store.team.facts import Fact, FactKey

#: The queue's file name, in the journal's directory.
FILE_NAME: Final = "team-facts.sqlite3"
#: Facts one push carries at most.
BATCH: Final = 2000

SCHEMA: Final = Schema(
    name="team inventory outbox",
    application_id=0x62747546,  # "btuF"
    version=1,
    statements=(
        """
        CREATE TABLE IF NOT EXISTS meta (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            origin TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS facts (
            store TEXT NOT NULL,
            base_url TEXT NOT NULL,
            account TEXT NOT NULL,
            project TEXT NOT NULL,
            kind TEXT NOT NULL,
            item TEXT NOT NULL,
            field TEXT NOT NULL,
            value TEXT,
            operator TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (store, base_url, account, project, kind, item, field)
        )
        """,
    ),
)

_QUEUE: Final = (
    "INSERT INTO facts (store, base_url, account, project, kind, item, field, value, operator,"
    " seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM facts))"
    " ON CONFLICT (store, base_url, account, project, kind, item, field) DO UPDATE SET"
    " value = excluded.value, operator = excluded.operator, seq = excluded.seq"
)
_COLS: Final = "base_url, account, project, kind, item, field, value, operator, seq"


class FactsOutboxUnavailable(DatabaseUnavailable):
    """The outbox file is locked, read-only or damaged (the local edit stands)."""


def facts_file(journal_file: Path) -> Path:
    """The outbox of the journal at ``journal_file`` (same directory)."""
    return Path(journal_file).with_name(FILE_NAME)


class FactsOutbox:
    """The queue of one machine (see the module's docstring).

    Args:
        path: The outbox file (:func:`facts_file`).
    """

    def __init__(self, path: Path) -> None:
        self._path = Path(path)
        self._db = Database(
            self._path, SCHEMA, unavailable=FactsOutboxUnavailable, synchronous="NORMAL"
        )
        self._origin: str | None = None

    def origin(self) -> str:
        """This machine's origin (made on first use)."""
        if self._origin is None:
            with self._db.write() as conn:
                conn.execute(
                    "INSERT OR IGNORE INTO meta (id, origin) VALUES (1, ?)", (str(uuid.uuid4()),)
                )
                (found,) = conn.execute("SELECT origin FROM meta WHERE id = 1").fetchone()
            self._origin = str(found)
        return self._origin

    def queue(self, store: str, facts: Sequence[Fact]) -> None:
        """Queue ``facts`` for ``store`` (a waiting value of the same field is replaced)."""
        if not facts:
            return
        with self._db.write() as conn:
            for fact in facts:
                conn.execute(_QUEUE, (store, *fact.key, fact.value, fact.operator))

    def pending(self, store: str, limit: int = BATCH) -> tuple[tuple[Fact, ...], tuple[int, ...]]:
        """The oldest waiting facts of ``store`` (with this origin) and their ``seq``."""
        if not self._path.exists():
            return (), ()
        origin = self.origin()
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT {_COLS} FROM facts WHERE store = ? ORDER BY seq LIMIT ?", (store, limit)
            ).fetchall()
        facts = tuple(Fact(FactKey(*row[:6]), row[6], row[7], origin=origin) for row in rows)
        return facts, tuple(int(row[8]) for row in rows)

    def pushed(self, store: str, facts: Sequence[Fact], seqs: Sequence[int]) -> None:
        """Remove what a push took (rows replaced since keep their newer value)."""
        with self._db.write() as conn:
            conn.executemany(
                "DELETE FROM facts WHERE store = ? AND base_url = ? AND account = ?"
                " AND project = ? AND kind = ? AND item = ? AND field = ? AND seq = ?",
                [(store, *f.key, seq) for f, seq in zip(facts, seqs, strict=True)],
            )

    def waiting_keys(self, store: str) -> frozenset[FactKey]:
        """The keys of every fact still waiting for ``store``."""
        if not self._path.exists():
            return frozenset()
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT base_url, account, project, kind, item, field FROM facts WHERE store = ?",
                (store,),
            ).fetchall()
        return frozenset(FactKey(*row) for row in rows)

    def waiting(self, store: str) -> int:
        """How many facts wait for ``store``."""
        if not self._path.exists():
            return 0
        with self._db.read() as conn:
            (count,) = conn.execute(
                "SELECT count(*) FROM facts WHERE store = ?", (store,)
            ).fetchone()
        return int(count)

    def close(self) -> None:
        """Close the connection (the next call opens another)."""
        self._db.close()


__all__ = [
    "BATCH",
    "FILE_NAME",
    "FactsOutbox",
    "FactsOutboxUnavailable",
    "facts_file",
]
