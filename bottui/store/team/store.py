"""The team store's async API over psycopg 3: push, page, status, listen, migrate.

:class:`TeamStore` holds one :class:`psycopg.AsyncConnection` (opened on
first use, again after it is lost) and serializes its calls. Every failure
of the database (stopped, unreachable, wrong or revoked credentials, disk
full, a statement it refuses) becomes one
:class:`~bottui.store.team.errors.StoreUnavailable` with a cleaned
one-line reason, never psycopg's exception or a traceback; a connection or
query that does not answer within ``timeout`` seconds is given up the same
way. Before writing, each push checks the schema version in its own
transaction, so a bottui older than the schema writes nothing.

Every row read is untrusted (any role with INSERT wrote it): one its readers
cannot read (:mod:`bottui.store.team.rows`) is skipped and handed, once, to
:attr:`TeamStore.skips`; a notification's payload is only a hint to read
again. ``push`` is idempotent: each event is unique by ``(origin, local_id)`` and
inserted with ``ON CONFLICT DO NOTHING``. Small batches go as one pipelined
``executemany``; from :data:`COPY_AT` events, by ``COPY`` into a temporary
table and one ``INSERT ... SELECT``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from bottui.api.tokens import Secret
from bottui.store.paging import Cursor
from bottui.store.team.errors import StoreUnavailable, scrub
from bottui.store.team.events import (
    ENTRY_COLUMNS,
    OUTCOME_COLUMNS,
    EntryEvent,
    Event,
    OutcomeEvent,
)
from bottui.store.team.facts import Fact, put_facts, read_facts
from bottui.store.team.migrate import Migrated, check_version, migrate, schema_version
from bottui.store.team.query import SELECT, TeamQuery, decode_cursor, encode_cursor, page_plan
from bottui.store.team.recent import recent_sql
from bottui.store.team.records import Change, Pushed, StoreStatus, TeamEntry, TeamPage
from bottui.store.team.rows import outcome_skipped, read_entry
from bottui.store.team.schema import INVENTORY_CHANNEL, JOURNAL_CHANNEL, SCHEMA_VERSION
from bottui.store.team.target import StoreTarget, check_connected
from bottui.store.team.times import lenient
from bottui.store.team.unreadable import Skips, Unreadable

if TYPE_CHECKING:
    from uuid import UUID

    from psycopg import AsyncConnection

#: From this many entries (or outcomes) a push goes by COPY.
COPY_AT: Final = 256
DEFAULT_TIMEOUT: Final = 15.0
#: Entries a page holds unless the caller says.
DEFAULT_PAGE: Final = 200

_ENTRY_TYPES: Final = (
    "uuid, bigint, timestamptz, text, text, text, text, text, text, text, text, text, text,"
    " text, bigint, bigint, text"
)
_OUTCOME_TYPES: Final = "uuid, bigint, timestamptz, text, integer, text, text, double precision"
_COLS: Final = ", ".join(ENTRY_COLUMNS)
_OUT_VALUES: Final = "finished_at, outcome, status, result, error, duration_ms"
_INSERT_ENTRY: Final = (
    f"INSERT INTO bottui.journal_entries ({_COLS})"
    f" VALUES ({', '.join(['%s'] * len(ENTRY_COLUMNS))}) ON CONFLICT DO NOTHING"
)
_INSERT_OUTCOME: Final = (
    "INSERT INTO bottui.journal_outcomes (origin, local_id, entry_id, entry_started_at,"
    f" {_OUT_VALUES}) SELECT e.origin, e.local_id, e.id, e.started_at,"
    " %s, %s, %s, %s, %s, %s FROM bottui.journal_entries AS e"
    " WHERE e.origin = %s AND e.local_id = %s ON CONFLICT DO NOTHING"
)


def _temp_table(name: str, columns: Sequence[str], types: str) -> str:
    pairs = ", ".join(f"{c} {t.strip()}" for c, t in zip(columns, types.split(","), strict=True))
    return f"CREATE TEMP TABLE IF NOT EXISTS {name} ({pairs}) ON COMMIT DELETE ROWS"


class TeamStore:
    """The shared journal (and, later, inventory) of a team, on PostgreSQL.

    Args:
        target: The checked store URL (:func:`~bottui.store.team.target.check_store_url`).
        password: From the keyring, when libpq's own means do not provide it.
        timeout: Seconds a connection or a call may take before it is given up.
    """

    def __init__(
        self,
        target: StoreTarget,
        *,
        password: Secret | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.target = target
        self._password = password
        self._timeout = timeout
        self._conn: AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()
        self._temp_tables = False
        #: The rows its readers skipped (unreadable), each said once.
        self.skips = Skips()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.target.where!r})"

    # -- connections ------------------------------------------------------------------

    async def _open(self) -> AsyncConnection[Any]:
        import psycopg

        secret = None if self._password is None else self._password.reveal()
        options: dict[str, Any] = dict(self.target.pinned)
        if secret is not None:
            options["password"] = secret
        conn = await psycopg.AsyncConnection.connect(
            self.target.url,
            autocommit=True,
            connect_timeout=max(1, round(self._timeout)),
            application_name="bottui",
            keepalives=1,
            keepalives_idle=10,
            keepalives_interval=5,
            keepalives_count=3,
            **options,
        )
        lenient(conn)
        try:
            info = {o.keyword: o.val for o in conn.pgconn.info}
            sslmode = (info.get(b"sslmode") or b"").decode()
            check_connected(self.target, conn.info.host, sslmode, bool(conn.pgconn.ssl_in_use))
        except BaseException:
            await conn.close()
            raise
        return conn

    @contextlib.contextmanager
    def _mapped(self, doing: str, *, drop: bool = True) -> Iterator[None]:
        """psycopg's errors and timeouts as :class:`StoreUnavailable`; the connection dropped."""
        import psycopg

        try:
            yield
        except psycopg.Error as exc:
            if drop:
                self._drop()
            secret = None if self._password is None else self._password.reveal()
            reason = scrub(str(exc), secret) or type(exc).__name__
            raise StoreUnavailable(
                f"The team store is unavailable ({doing}): {reason}", where=self.target.where
            ) from None
        except TimeoutError:
            if drop:
                self._drop()
            raise StoreUnavailable(
                f"The team store did not answer within {self._timeout:g} s ({doing})",
                where=self.target.where,
            ) from None

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        self._temp_tables = False
        if conn is not None and not conn.closed:
            # Closing may wait on a dead socket; the connection is abandoned to its finalizer.
            with contextlib.suppress(Exception):
                conn.pgconn.finish()

    @contextlib.asynccontextmanager
    async def _session(self, doing: str) -> AsyncIterator[AsyncConnection[Any]]:
        """The connection, for one call at a time, errors mapped and time bounded."""
        async with self._lock:
            with self._mapped(doing):
                async with asyncio.timeout(self._timeout):
                    if self._conn is None or self._conn.closed or self._conn.broken:
                        self._conn = await self._open()
                        self._temp_tables = False
                    yield self._conn

    async def close(self) -> None:
        """Close the connection (a later call opens another)."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()

    # -- schema ---------------------------------------------------------------------

    async def migrate(self) -> Migrated:
        """Apply the pending migrations (``bottui store migrate``)."""
        async with self._session("migrating") as conn:
            return await migrate(conn)

    async def status(self) -> StoreStatus:
        """Where the store is, its schema version and who we are there."""
        async with self._session("reading its status") as conn:
            version = await schema_version(conn)
            cur = await conn.execute("SELECT session_user, current_setting('server_version')")
            row = await cur.fetchone()
        role, server = (str(row[0]), str(row[1])) if row is not None else ("", "")
        return StoreStatus(
            where=self.target.where,
            schema_version=version,
            app_schema_version=SCHEMA_VERSION,
            server_version=server,
            role=role,
        )

    # -- the journal ------------------------------------------------------------------

    async def push(self, events: Sequence[Event]) -> Pushed:
        """Store ``events`` (entries, then outcomes), each once; idempotent.

        Raises TypeError on a token or a value that is not an event's (a
        bug, before anything is sent), and :class:`StoreUnavailable`.
        """
        entries = [e.row() for e in events if isinstance(e, EntryEvent)]
        outcomes = [e.row() for e in events if isinstance(e, OutcomeEvent)]
        if len(entries) + len(outcomes) != len(events):
            raise TypeError("push takes EntryEvent and OutcomeEvent only")
        if not events:
            return Pushed()
        async with self._session("sharing journal entries") as conn, conn.transaction():
            check_version(await schema_version(conn))
            if len(entries) >= COPY_AT or len(outcomes) >= COPY_AT:
                await self._ensure_temp_tables(conn)
            new_entries = await self._insert_entries(conn, entries)
            new_outcomes, orphans = await self._insert_outcomes(conn, outcomes)
        duplicates = len(entries) - new_entries + len(outcomes) - new_outcomes - orphans
        return Pushed(
            entries=new_entries, outcomes=new_outcomes, duplicates=duplicates, orphans=orphans
        )

    async def _ensure_temp_tables(self, conn: AsyncConnection[Any]) -> None:
        if self._temp_tables:
            return
        await conn.execute(_temp_table("push_entries", ENTRY_COLUMNS, _ENTRY_TYPES))
        await conn.execute(_temp_table("push_outcomes", OUTCOME_COLUMNS, _OUTCOME_TYPES))
        self._temp_tables = True

    async def _insert_entries(
        self, conn: AsyncConnection[Any], rows: list[tuple[object, ...]]
    ) -> int:
        if not rows:
            return 0
        cur = conn.cursor()
        if len(rows) < COPY_AT:
            await cur.executemany(_INSERT_ENTRY, rows)
            return max(0, cur.rowcount)
        async with cur.copy(f"COPY push_entries ({_COLS}) FROM STDIN") as copy:
            for row in rows:
                await copy.write_row(row)
        await cur.execute(
            f"INSERT INTO bottui.journal_entries ({_COLS}) SELECT {_COLS} FROM push_entries"
            " ORDER BY started_at, local_id ON CONFLICT DO NOTHING"
        )
        count = max(0, cur.rowcount)
        await cur.execute("DELETE FROM push_entries")
        return count

    async def _insert_outcomes(
        self, conn: AsyncConnection[Any], rows: list[tuple[object, ...]]
    ) -> tuple[int, int]:
        if not rows:
            return 0, 0
        cur = conn.cursor()
        if len(rows) < COPY_AT:
            await cur.executemany(_INSERT_OUTCOME, [(*row[2:], row[0], row[1]) for row in rows])
            count = max(0, cur.rowcount)
        else:
            cols = ", ".join(OUTCOME_COLUMNS)
            async with cur.copy(f"COPY push_outcomes ({cols}) FROM STDIN") as copy:
                for row in rows:
                    await copy.write_row(row)
            await cur.execute(
                "INSERT INTO bottui.journal_outcomes (origin, local_id, entry_id,"
                f" entry_started_at, {_OUT_VALUES}) SELECT e.origin, e.local_id, e.id,"
                f" e.started_at, {', '.join('p.' + c for c in _OUT_VALUES.split(', '))}"
                " FROM push_outcomes AS p JOIN bottui.journal_entries AS e"
                " ON e.origin = p.origin AND e.local_id = p.local_id ON CONFLICT DO NOTHING"
            )
            count = max(0, cur.rowcount)
            await cur.execute("DELETE FROM push_outcomes")
        await cur.execute(
            "SELECT count(*) FROM unnest(%s::uuid[], %s::bigint[]) AS k (origin, local_id)"
            " WHERE NOT EXISTS (SELECT 1 FROM bottui.journal_entries AS e"
            " WHERE e.origin = k.origin AND e.local_id = k.local_id)",
            ([row[0] for row in rows], [row[1] for row in rows]),
        )
        found = await cur.fetchone()
        return count, int(found[0]) if found is not None else 0

    async def page(
        self,
        query: TeamQuery | None = None,
        *,
        limit: int = DEFAULT_PAGE,
        cursor: Cursor | None = None,
    ) -> TeamPage:
        """Up to ``limit`` entries matching ``query``, newest first, after ``cursor``."""
        size = max(0, int(limit))
        if size == 0:
            return TeamPage((), None)
        try:
            after = None if cursor is None else decode_cursor(cursor)
        except ValueError:
            raise ValueError("a cursor from another store") from None
        plan = page_plan(query or TeamQuery(), after, size + 1)
        async with self._session("reading the journal") as conn:
            rows: list[Any] | None = None
            if plan.near is not None:
                cur = await conn.execute(plan.near[0].encode(), plan.near[1])
                near = await cur.fetchall()
                seen = int(near[0][-1]) if near else 0
                found = [row[:-1] for row in near if row[0] is not None]
                if len(found) > size or seen < plan.window:
                    rows = found
            if rows is None:
                cur = await conn.execute(plan.sql.encode(), plan.params)
                rows = await cur.fetchall()
        entries = self.readable(rows[:size])
        if len(rows) <= size or size == 0:
            return TeamPage(entries, None)
        # The cursor stands on the page's last row, read or skipped: an unreadable
        # row never ends the pages early, nor is read twice.
        last = rows[size - 1]
        return TeamPage(entries, encode_cursor(last[5], last[0]))

    async def recent(
        self,
        base_url: str,
        account: str,
        project: str,
        target: Mapping[str, Any],
        *,
        seconds: float,
    ) -> tuple[TeamEntry, ...]:
        """The changes of ``target`` started in the last ``seconds`` (server clock), newest first.

        Single changes only (no bulk run's items), at most
        :data:`~bottui.store.team.recent.RECENT_LIMIT`; on an index.
        """
        sql, params = recent_sql(base_url, account, project, target, seconds)
        async with self._session("reading recent changes") as conn:
            cur = await conn.execute(sql.encode(), params)
            rows = await cur.fetchall()
        return self.readable(rows)

    async def entries(self, ids: Sequence[int]) -> tuple[TeamEntry, ...]:
        """The entries of these server ids (a notification's), oldest first."""
        if not ids:
            return ()
        sql = (
            f"{SELECT} FROM bottui.journal_entries AS e"
            " LEFT JOIN bottui.journal_outcomes AS o ON o.entry_id = e.id"
            " WHERE e.id = ANY(%s) ORDER BY e.id"
        )
        async with self._session("reading new entries") as conn:
            cur = await conn.execute(sql.encode(), [list(ids)])
            rows = await cur.fetchall()
        return self.readable(rows)

    async def entries_after(
        self, last_id: int, *, limit: int = DEFAULT_PAGE
    ) -> tuple[TeamEntry, ...]:
        """Entries whose server id is above ``last_id``, oldest first (``--follow``'s catch-up)."""
        return (await self.scan_after(last_id, limit=limit)).entries

    async def scan_after(self, last_id: int, *, limit: int = DEFAULT_PAGE) -> Scan:
        """Up to ``limit`` rows above ``last_id``, oldest first: the readable entries, how
        many rows were looked at and the last one's id (a skipped row counts too)."""
        sql = (
            f"{SELECT} FROM bottui.journal_entries AS e"
            " LEFT JOIN bottui.journal_outcomes AS o ON o.entry_id = e.id"
            " WHERE e.id > %s ORDER BY e.id LIMIT %s"
        )
        async with self._session("reading new entries") as conn:
            cur = await conn.execute(sql.encode(), [int(last_id), max(1, int(limit))])
            rows = await cur.fetchall()
        return Scan(self.readable(rows), len(rows), int(rows[-1][0]) if rows else int(last_id))

    def readable(self, rows: Sequence[Sequence[Any]]) -> tuple[TeamEntry, ...]:
        """The entries of these rows; each unreadable one skipped and said (:attr:`skips`)."""
        out: list[TeamEntry] = []
        for row in rows:
            found = read_entry(row)
            if isinstance(found, Unreadable):
                self.skips.add(found)
                continue
            bad_outcome = outcome_skipped(row)
            if bad_outcome is not None:
                self.skips.add(bad_outcome)
            out.append(found)
        return tuple(out)

    async def held(self, origin: UUID, local_ids: Sequence[int]) -> frozenset[int]:
        """Which of these entries of one journal file (``origin``) the store holds.

        On the event id's unique index: what a machine's older history shows as
        "not shared" is asked of the store, never guessed from a local cursor.
        """
        if not local_ids:
            return frozenset()
        sql = "SELECT local_id FROM bottui.journal_entries WHERE origin = %s AND local_id = ANY(%s)"
        async with self._session("reading the journal") as conn:
            cur = await conn.execute(sql.encode(), [origin, [int(i) for i in local_ids]])
            rows = await cur.fetchall()
        return frozenset(int(row[0]) for row in rows)

    async def held_count(self, origin: UUID, upto: int) -> int:
        """How many entries of ``origin`` with a local id up to ``upto`` the store holds."""
        sql = "SELECT count(*) FROM bottui.journal_entries WHERE origin = %s AND local_id <= %s"
        async with self._session("reading the journal") as conn:
            cur = await conn.execute(sql.encode(), [origin, int(upto)])
            row = await cur.fetchone()
        return int(row[0]) if row is not None else 0

    async def last_id(self) -> int:
        """The newest server id of the journal (0: empty)."""
        async with self._session("reading the journal") as conn:
            cur = await conn.execute("SELECT coalesce(max(id), 0) FROM bottui.journal_entries")
            row = await cur.fetchone()
        return int(row[0]) if row is not None else 0

    # -- the inventory ------------------------------------------------------------------

    async def put_facts(self, facts: Sequence[Fact]) -> int:
        """Upsert shared inventory facts (the server stamps when and who); idempotent."""
        if not facts:
            return 0
        async with self._session("sharing the inventory") as conn, conn.transaction():
            check_version(await schema_version(conn))
            return await put_facts(conn, facts)

    async def facts(self, base_url: str, accounts: Sequence[str]) -> tuple[Fact, ...]:
        """The shared inventory of ``accounts`` at ``base_url``, oldest first."""
        async with self._session("reading the shared inventory") as conn:
            check_version(await schema_version(conn))
            return await read_facts(conn, base_url, accounts)

    async def listen(self, ready: asyncio.Event | None = None) -> AsyncIterator[Change]:
        """Each change the store announces (journal and inventory), as it comes.

        Opens a connection of its own; ends with :class:`StoreUnavailable`
        when it is lost (the caller listens again later). ``ready`` is set
        once LISTEN holds: what is committed after it is announced.
        """
        conn: AsyncConnection[Any] | None = None
        try:
            with self._mapped("listening", drop=False):
                async with asyncio.timeout(self._timeout):
                    conn = await self._open()
                    await conn.execute(f"LISTEN {JOURNAL_CHANNEL}")
                    await conn.execute(f"LISTEN {INVENTORY_CHANNEL}")
            assert conn is not None
            if ready is not None:
                ready.set()
            with self._mapped("listening", drop=False):
                async for notice in conn.notifies():
                    yield _change(notice.channel, notice.payload)
        finally:
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()


#: A notification longer than this is not parsed at all: it is a hint to re-read, nothing more.
NOTICE_MAX: Final = 256


def _change(channel: str, payload: str) -> Change:
    """What a notification hints at; never parsed deeply (any role may NOTIFY any payload)."""
    data: object = {}
    if len(payload) <= NOTICE_MAX and payload.startswith("{"):
        try:
            data = json.loads(payload)
        except (ValueError, RecursionError):
            data = {}
    if not isinstance(data, dict):
        data = {}
    count, last, table = data.get("count"), data.get("last"), data.get("table")
    return Change(
        channel=channel,
        table=table if isinstance(table, str) else "",
        count=count if isinstance(count, int) and not isinstance(count, bool) else 0,
        last=last if isinstance(last, int) and not isinstance(last, bool) else None,
    )


@dataclass(frozen=True)
class Scan:
    """A catch-up read: the readable entries, how many rows it looked at, the last row's id."""

    entries: tuple[TeamEntry, ...]
    rows: int
    last: int


__all__ = ["COPY_AT", "DEFAULT_PAGE", "NOTICE_MAX", "Scan", "TeamStore"]
