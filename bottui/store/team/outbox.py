"""The outbox: which local journal entries a team store still has to receive.

Every change is journaled first in the local SQLite journal; this module
reads what is still to be pushed to a team store and records what was
pushed, in the journal file itself (``team_push``/``team_open``, schema
version 5, :data:`~bottui.store.journal.schema.TABLES_V5`):

* a store is *registered* the first time a bottui runs with it configured:
  entries written from then on are shared (``since_id`` is the newest id at
  that moment); older ones only by a backfill, which shares those of the
  store's own base URL, account and project (:meth:`Outbox.older`, #27);
* :meth:`Outbox.pending` reads the next entries above ``pushed_id`` and the
  outcomes of entries pushed before they had one;
* :meth:`Outbox.pushed` records a successful push in one transaction:
  ``pushed_id`` only ever grows (``max``), the open ids are added and
  removed. Several bottui processes on one journal may push the same entries
  at once: the store keeps each event once (unique event id), so the worst
  case is a push repeated, never one lost.

Synchronous (sqlite3): the async side runs it on the store executor
(:mod:`bottui.ops.team_sync`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from bottui.store.errors import JournalUnavailable
from bottui.store.journal.records import JournalEntry
from bottui.store.journal.rows import entry, from_micros, micros
from bottui.store.journal.schema import BUSY_TIMEOUT, ORIGIN, SCHEMA, SELECT_ENTRIES
from bottui.store.sqlite_helpers import Database

#: Entries one push carries at most (a push of many goes by COPY).
BATCH: Final = 5000

_REGISTER: Final = (
    "INSERT OR IGNORE INTO team_push (store, since_id, pushed_id, configured_at) "
    "SELECT ?1, m, m, ?2 FROM (SELECT coalesce(max(id), 0) AS m FROM items)"
)
_PUSHED_ID: Final = "SELECT pushed_id FROM team_push WHERE store = ?"
_SINCE_ID: Final = "SELECT since_id FROM team_push WHERE store = ?"
_NEXT: Final = SELECT_ENTRIES + " WHERE e.id > ? ORDER BY e.id LIMIT ?"
_OPEN_DONE: Final = (
    SELECT_ENTRIES + " WHERE e.id IN (SELECT t.entry_id FROM team_open AS t"
    " JOIN results AS r ON r.entry_id = t.entry_id WHERE t.store = ? LIMIT ?) ORDER BY e.id"
)


@dataclass(frozen=True)
class Pending:
    """What to push next: new entries (with their outcome when they have one)
    and outcomes of entries pushed earlier without one."""

    entries: tuple[JournalEntry, ...]
    outcomes: tuple[JournalEntry, ...]

    @property
    def empty(self) -> bool:
        """Nothing to push."""
        return not self.entries and not self.outcomes


@dataclass(frozen=True)
class Scope:
    """What a store shares of the older history: its profile's base URL, account
    and project (``None``: any)."""

    base_url: str
    account: str | None = None
    project: str | None = None

    def holds(self, found: JournalEntry) -> bool:
        """Whether ``found`` is of this base URL, account and project."""
        from bottui.store.token_sources import normalize_base_url

        if normalize_base_url(found.base_url or "") != normalize_base_url(self.base_url):
            return False
        if self.account is not None and found.account != self.account:
            return False
        return self.project is None or found.project == self.project


@dataclass(frozen=True)
class Older:
    """One batch of the history older than the store: the entries of its scope,
    and the id to read on from (None: the end)."""

    entries: tuple[JournalEntry, ...]
    after: int | None


@dataclass(frozen=True)
class Backlog:
    """How far behind a store is: events waiting and the last successful push."""

    waiting: int
    last_sync: datetime | None


def _now_us() -> int:
    return micros(datetime.now(UTC))


class Outbox:
    """The push bookkeeping of one journal file (see the module's docstring).

    Args:
        path: The journal file.
    """

    def __init__(self, path: Path, *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self._path = Path(path)
        self._db = Database(
            self._path,
            SCHEMA,
            unavailable=JournalUnavailable,
            synchronous="NORMAL",
            busy_timeout=busy_timeout,
        )

    @property
    def path(self) -> Path:
        """The journal file."""
        return self._path

    def register(self, store: str) -> None:
        """Share entries written from now on with ``store`` (nothing when known already)."""
        with self._db.write() as conn:
            conn.execute(_REGISTER, (store, _now_us()))

    def since_id(self, store: str) -> int | None:
        """Entries up to this id were journaled before ``store`` was configured here
        (None: not registered). They are shared only by a backfill."""
        with self._db.read() as conn:
            row = conn.execute(_SINCE_ID, (store,)).fetchone()
        return None if row is None else int(row[0])

    def older(self, store: str, scope: Scope, after: int, limit: int = BATCH) -> Older:
        """The next entries journaled before ``store`` was configured (ids above
        ``after``, oldest first) and, of those, the ones of ``scope``: what
        ``bottui store sync --backfill`` shares, a batch at a time."""
        with self._db.read() as conn:
            row = conn.execute(_SINCE_ID, (store,)).fetchone()
            if row is None:
                return Older((), None)
            rows = conn.execute(
                SELECT_ENTRIES + " WHERE e.id > ? AND e.id <= ? ORDER BY e.id LIMIT ?",
                (int(after), int(row[0]), int(limit)),
            ).fetchall()
        read = [entry(r) for r in rows]
        last = read[-1].id if len(read) == limit else None
        return Older(tuple(e for e in read if scope.holds(e)), last)

    def older_count(self, store: str, scope: Scope) -> int:
        """How many entries of ``scope`` were journaled before ``store`` was configured."""
        since = self.since_id(store)
        if not since:
            return 0
        count, after = 0, 0
        while True:
            batch = self.older(store, scope, after)
            count += len(batch.entries)
            if batch.after is None:
                return count
            after = batch.after

    def pending(self, store: str, limit: int = BATCH) -> Pending:
        """The next entries and open outcomes to push (empty: nothing waits)."""
        with self._db.read() as conn:
            row = conn.execute(_PUSHED_ID, (store,)).fetchone()
            if row is None:
                return Pending((), ())
            entries = tuple(entry(r) for r in conn.execute(_NEXT, (int(row[0]), limit)))
            outcomes = tuple(entry(r) for r in conn.execute(_OPEN_DONE, (store, limit)))
        return Pending(entries, outcomes)

    def pushed(self, store: str, done: Pending, *, orphans: bool = False) -> None:
        """Record that ``done`` is in ``store`` now.

        Entries pushed without an outcome are kept open (their outcome goes
        later); outcomes pushed close theirs, unless the store reported
        orphans (``orphans``: keep them open, push them again).
        """
        with self._db.write() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO team_open (store, entry_id) VALUES (?, ?)",
                [(store, e.id) for e in done.entries if e.outcome is None],
            )
            if not orphans:
                conn.executemany(
                    "DELETE FROM team_open WHERE store = ? AND entry_id = ?",
                    [(store, e.id) for e in done.outcomes],
                )
            last = max((e.id for e in done.entries), default=0)
            conn.execute(
                "UPDATE team_push SET pushed_id = max(pushed_id, ?), last_sync = ? WHERE store = ?",
                (last, _now_us(), store),
            )

    def backlog(self, store: str) -> Backlog:
        """Entries not yet pushed plus outcomes waiting, and the last successful push."""
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT pushed_id, last_sync FROM team_push WHERE store = ?", (store,)
            ).fetchone()
            if row is None:
                return Backlog(0, None)
            (entries,) = conn.execute(
                "SELECT count(*) FROM items WHERE id > ?", (int(row[0]),)
            ).fetchone()
            (outcomes,) = conn.execute(
                "SELECT count(*) FROM team_open AS t JOIN results AS r"
                " ON r.entry_id = t.entry_id WHERE t.store = ?",
                (store,),
            ).fetchone()
        last = None if row[1] is None else from_micros(int(row[1]))
        return Backlog(int(entries) + int(outcomes), last)

    def pushed_id(self, store: str) -> int | None:
        """Entries above this id have not been pushed to ``store`` (None: not registered)."""
        with self._db.read() as conn:
            row = conn.execute(_PUSHED_ID, (store,)).fetchone()
        return None if row is None else int(row[0])

    def origin(self) -> str | None:
        """This journal file's origin UUID (None: no file yet)."""
        if not self._path.exists():
            return None
        with self._db.read() as conn:
            row = conn.execute(ORIGIN).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        """Close the connection (the next call opens another)."""
        self._db.close()


__all__ = [
    "BATCH",
    "Backlog",
    "Older",
    "Outbox",
    "Pending",
    "Scope",
]
