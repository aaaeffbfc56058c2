"""The one outbox: every event this machine still has to push to a team store.

Every change is journaled first in the local SQLite journal, and every
inventory fact learned is queued locally: a store that is down never delays a
key press, and nothing is lost meanwhile. :meth:`Outbox.pending` reads the next
:class:`Batch` of typed events (:mod:`bottui.store.team.push_events`) for one
store, and :meth:`Outbox.pushed` records, once the store said yes, that they
went. Pushing is at-least-once: the store keeps each event once, so a push may
repeat (a crash between the store's yes and the record here, several bottui
processes on one journal pushing at once), never lose or duplicate.

Where each kind waits (the files of the version before #29, unchanged, so the
older bottui of a teammate mid-upgrade reads them as they are):

* **journal entries and their outcomes** are the journal's own rows; the
  cursor is ``team_push``/``team_open`` in the journal file (schema version 5,
  :data:`~bottui.store.journal.journal_schema.TABLES_V5`). A store is *registered*
  the first time a bottui runs with it configured: entries written from then
  on are shared (``since_id`` is the newest id at that moment); older ones
  only by a backfill, which shares those of the store's own base URL, account
  and project (:meth:`Outbox.older`, #27). ``pushed_id`` only ever grows
  (``max``); entries pushed before they had an outcome stay in ``team_open``
  until the outcome went.
* **timed events** (a timed change's schedule, extends, cancel) are the
  journal's ``timed_events``; the cursor is ``timed_push`` (every timed event
  is shared, from the first: a teammate's executor must see the schedule).
* **inventory facts** wait in ``team-facts.sqlite3`` beside the journal
  (:data:`FACTS_FILE`), one row per (store, fact key): a newer local value of
  the same field replaces the waiting one (only the newest is worth sending)
  with a new ``seq``; :meth:`Outbox.pushed` removes exactly the rows it sent
  (same ``seq``), so a value queued while a push ran stays for the next. The
  file also keeps the facts' *origin* (a UUID), written with every fact:
  reading the shared inventory skips this machine's own facts, and facts
  still waiting here win over what the store holds (they are newer).

Synchronous (sqlite3): :class:`~bottui.ops.team_push.TeamSync` runs it on the
store executor, in one lane per journal file.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import msgspec

from bottui.store.files import real_path
from bottui.store.journal.journal_records import JournalEntry
from bottui.store.journal.journal_rows import entry, from_micros, micros
from bottui.store.journal.journal_schema import BUSY_TIMEOUT, ORIGIN, SCHEMA, SELECT_ENTRIES
from bottui.store.journal.journal_timed import TimedEvent, timed_event
from bottui.store.sqlite_helpers import Database, Schema
from bottui.store.store_errors import DatabaseUnavailable
from bottui.store.team.push_events import Event, Fact, FactKey, events_of
from bottui.store.token_sources import normalize_base_url

#: Journal entries one push carries at most (a push of many goes by COPY).
BATCH: Final = 5000
#: Timed events and facts one push carries at most.
SMALL_BATCH: Final = 2000
#: The facts' file name, in the journal's directory.
FACTS_FILE: Final = "team-facts.sqlite3"


class OutboxUnavailable(DatabaseUnavailable):
    """The facts' file is locked, read-only or damaged (the local edit stands)."""


FACTS_SCHEMA: Final = Schema(
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
    unavailable=OutboxUnavailable,
)

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
_TIMED_PUSHED: Final = "SELECT pushed_id FROM timed_push WHERE store = ?"
_TIMED_NEXT: Final = (
    "SELECT id, kind, timed, at, detail, operator, host FROM timed_events"
    " WHERE id > ? ORDER BY id LIMIT ?"
)
_QUEUE: Final = (
    "INSERT INTO facts (store, base_url, account, project, kind, item, field, value, operator,"
    " seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM facts))"
    " ON CONFLICT (store, base_url, account, project, kind, item, field) DO UPDATE SET"
    " value = excluded.value, operator = excluded.operator, seq = excluded.seq"
)
_FACT_COLS: Final = "base_url, account, project, kind, item, field, value, operator, seq"


class Batch(msgspec.Struct, frozen=True):
    """What to push next, typed: new journal entries (with their outcome when they have
    one), outcomes of entries pushed earlier without one, timed events (and the timed
    cursor they reach), and facts (with the ``seq`` each was queued under)."""

    entries: tuple[JournalEntry, ...] = ()
    outcomes: tuple[JournalEntry, ...] = ()
    timed: tuple[TimedEvent, ...] = ()
    timed_upto: int = 0
    facts: tuple[Fact, ...] = ()
    seqs: tuple[int, ...] = ()
    #: Why the facts could not be read (their file locked or damaged): the rest goes.
    trouble: str | None = None

    @property
    def empty(self) -> bool:
        """Nothing to push."""
        return not (self.entries or self.outcomes or self.timed or self.facts)

    def events(self) -> list[Event]:
        """The batch as one push: entries and outcomes, timed events, then facts (a
        teammate's live feed learns the change before the state it taught)."""
        return [*events_of(self.entries, self.outcomes), *self.timed, *self.facts]


class Scope(msgspec.Struct, frozen=True):
    """What a store shares of the older history: its profile's base URL, account
    and project (``None``: any)."""

    base_url: str
    account: str | None = None
    project: str | None = None

    def holds(self, found: JournalEntry) -> bool:
        """Whether ``found`` is of this base URL, account and project."""
        if normalize_base_url(found.base_url or "") != normalize_base_url(self.base_url):
            return False
        if self.account is not None and found.account != self.account:
            return False
        return self.project is None or found.project == self.project


class Older(msgspec.Struct, frozen=True):
    """One batch of the history older than the store: the entries of its scope,
    and the id to read on from (None: the end)."""

    entries: tuple[JournalEntry, ...]
    after: int | None


class Backlog(msgspec.Struct, frozen=True):
    """How far behind a store is: journal events waiting and the last successful push."""

    waiting: int
    last_sync: datetime | None


def facts_file(journal_file: Path) -> Path:
    """The facts' file of the journal at ``journal_file`` (same directory)."""
    return Path(journal_file).with_name(FACTS_FILE)


def _now_us() -> int:
    return micros(datetime.now(UTC))


class Outbox:
    """What one journal file (and its facts' file) still has to push (see the module's
    docstring). Each file is opened on first use.

    Args:
        path: The journal file.
    """

    def __init__(self, path: Path, *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self._path = Path(path)
        self._db = Database(self._path, SCHEMA, synchronous="NORMAL", busy_timeout=busy_timeout)
        self._facts_path = facts_file(self._path)
        self._facts = Database(self._facts_path, FACTS_SCHEMA, synchronous="NORMAL")
        self._facts_origin: str | None = None

    @property
    def path(self) -> Path:
        """The journal file."""
        return self._path

    @property
    def lane(self) -> str:
        """The store executor's lane of this outbox: its pushes' local work, the facts queued."""
        return f"team-outbox:{real_path(self._path)}"

    # -- the journal's events -----------------------------------------------------------

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
        count, after = 0, 0
        while self.since_id(store):
            batch = self.older(store, scope, after)
            count += len(batch.entries)
            if batch.after is None:
                break
            after = batch.after
        return count

    def pending(self, store: str, limit: int = BATCH) -> Batch:
        """The next events to push to ``store`` (empty: nothing waits). Journal entries
        only once the store is registered; timed events and facts always."""
        with self._db.read() as conn:
            row = conn.execute(_PUSHED_ID, (store,)).fetchone()
            entries: tuple[JournalEntry, ...] = ()
            outcomes: tuple[JournalEntry, ...] = ()
            if row is not None:
                entries = tuple(entry(r) for r in conn.execute(_NEXT, (int(row[0]), limit)))
                outcomes = tuple(entry(r) for r in conn.execute(_OPEN_DONE, (store, limit)))
            origin = str(conn.execute(ORIGIN).fetchone()[0])
            found = conn.execute(_TIMED_PUSHED, (store,)).fetchone()
            after = int(found[0]) if found else 0
            rows = conn.execute(_TIMED_NEXT, (after, SMALL_BATCH)).fetchall()
        timed = tuple(timed_event(origin, r) for r in rows)
        upto = int(rows[-1][0]) if rows else after
        try:
            facts, seqs = self._waiting_facts(store)
        except OutboxUnavailable as exc:  # never holds back the journal's events
            return Batch(entries, outcomes, timed, upto, trouble=exc.title)
        return Batch(entries, outcomes, timed, upto, facts, seqs)

    def pushed(self, store: str, done: Batch, *, orphans: bool = False) -> None:
        """Record that ``done`` is in ``store`` now.

        Entries pushed without an outcome are kept open (their outcome goes
        later); outcomes pushed close theirs, unless the store reported
        orphans (``orphans``: keep them open, push them again). Facts replaced
        since they were read keep their newer value.
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
            if done.timed:
                conn.execute(
                    "INSERT INTO timed_push (store, pushed_id) VALUES (?, ?) ON CONFLICT (store)"
                    " DO UPDATE SET pushed_id = max(pushed_id, excluded.pushed_id)",
                    (store, done.timed_upto),
                )
        if done.facts:
            with self._facts.write() as conn:
                conn.executemany(
                    "DELETE FROM facts WHERE store = ? AND base_url = ? AND account = ?"
                    " AND project = ? AND kind = ? AND item = ? AND field = ? AND seq = ?",
                    [(store, *f.key, seq) for f, seq in zip(done.facts, done.seqs, strict=True)],
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
        row = self._db.read_or(lambda conn: conn.execute(ORIGIN).fetchone(), None)
        return None if row is None else str(row[0])

    # -- the inventory's facts ----------------------------------------------------------

    def facts_origin(self) -> str:
        """The origin written with this machine's facts (made on first use)."""
        if self._facts_origin is None:
            with self._facts.write() as conn:
                conn.execute(
                    "INSERT OR IGNORE INTO meta (id, origin) VALUES (1, ?)", (str(uuid.uuid4()),)
                )
                (found,) = conn.execute("SELECT origin FROM meta WHERE id = 1").fetchone()
            self._facts_origin = str(found)
        return self._facts_origin

    def queue_facts(self, store: str, facts: Sequence[Fact]) -> None:
        """Queue ``facts`` for ``store`` (a waiting value of the same field is replaced)."""
        if not facts:
            return
        with self._facts.write() as conn:
            for fact in facts:
                conn.execute(_QUEUE, (store, *fact.key, fact.value, fact.operator))

    def _waiting_facts(self, store: str) -> tuple[tuple[Fact, ...], tuple[int, ...]]:
        """The oldest waiting facts of ``store`` (with their origin) and their ``seq``."""
        if not self._facts_path.exists():
            return (), ()
        origin = self.facts_origin()
        with self._facts.read() as conn:
            rows = conn.execute(
                f"SELECT {_FACT_COLS} FROM facts WHERE store = ? ORDER BY seq LIMIT ?",
                (store, SMALL_BATCH),
            ).fetchall()
        facts = tuple(Fact(FactKey(*row[:6]), row[6], row[7], origin=origin) for row in rows)
        return facts, tuple(int(row[8]) for row in rows)

    def waiting_keys(self, store: str) -> frozenset[FactKey]:
        """The keys of every fact still waiting for ``store``."""
        sql = "SELECT base_url, account, project, kind, item, field FROM facts WHERE store = ?"
        rows: list[Any] = self._facts.read_or(lambda db: db.execute(sql, (store,)).fetchall(), [])
        return frozenset(FactKey(*row) for row in rows)

    def close(self) -> None:
        """Close the connections (the next call opens others)."""
        self._db.close()
        self._facts.close()
