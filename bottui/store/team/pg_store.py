"""The team store's async API over psycopg 3: push, page, status, listen, migrate, timed claims.

:class:`TeamStore` holds one :class:`psycopg.AsyncConnection` (opened on
first use, again after it is lost) and serializes its calls. Every failure
of the database (stopped, unreachable, wrong or revoked credentials, disk
full, a statement it refuses) becomes one
:class:`~bottui.store.team.team_errors.StoreUnavailable` with a cleaned
one-line reason, never psycopg's exception or a traceback; a connection or
query that does not answer within ``timeout`` seconds is given up the same
way. Before writing, each push checks the schema version in its own
transaction, so a bottui older than the schema writes nothing.

Every row read is untrusted (any role with INSERT wrote it): one its readers
cannot read (:mod:`bottui.store.team.read_rows`) is skipped and handed, once, to
:attr:`TeamStore.skips`; a notification's payload is only a hint to read
again. ``push`` is idempotent: each event is unique by ``(origin, local_id)`` and
inserted with ``ON CONFLICT DO NOTHING`` (a fact with ``ON CONFLICT DO UPDATE``:
the newest write wins). One push carries every kind of the outbox's events
(:mod:`bottui.store.team.push_events`) in one transaction. Small batches go as
one pipelined ``executemany``; from :data:`COPY_AT` entries (or outcomes), by
``COPY`` into a temporary table and one ``INSERT ... SELECT``.

Timed changes (schema version 5): the events are each local journal's, pushed
with the rest. The claims are written here FIRST in team mode:
:meth:`TeamStore.claim_timed` is one INSERT whose success makes its caller the
one executor, across every machine, that sends the revert; no UPDATE privilege
is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final
from uuid import UUID

import msgspec

from bottui.api.tokens import Secret
from bottui.store.journal.journal_rows import from_micros, micros
from bottui.store.journal.journal_timed import TimedClaim, TimedEvent
from bottui.store.paging import Cursor
from bottui.store.store_errors import reason_text
from bottui.store.team.page_query import (
    ENTRIES_FROM,
    SELECT,
    TeamQuery,
    decode_cursor,
    encode_cursor,
    page_plan,
    recent_sql,
)
from bottui.store.team.pg_schema import (
    INVENTORY_CHANNEL,
    JOURNAL_CHANNEL,
    SCHEMA_VERSION,
    Migrated,
    check_version,
    migrate,
    schema_version,
)
from bottui.store.team.push_events import (
    ENTRY_COLUMNS,
    OUTCOME_COLUMNS,
    EntryEvent,
    Event,
    Fact,
    FactKey,
    OutcomeEvent,
    fact_row,
    storable,
    timed_row,
)
from bottui.store.team.read_rows import (
    Change,
    NotJson,
    Pushed,
    Skips,
    StoreStatus,
    TeamEntry,
    TeamPage,
    Unreadable,
    json_object,
    lenient,
    read_entry,
    sane,
)
from bottui.store.team.store_target import StoreTarget, check_connected
from bottui.store.team.team_errors import StoreUnavailable

if TYPE_CHECKING:
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

_INSERT_TIMED: Final = (
    "INSERT INTO bottui.timed_events (origin, local_id, at, kind, timed, detail, operator,"
    " host) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT ON CONSTRAINT timed_events_event DO NOTHING"
)
_UPSERT_FACT: Final = (
    "INSERT INTO bottui.inventory_facts"
    " (base_url, account, project, kind, item, field, value, operator, origin)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (base_url, account, project, kind, item, field) DO UPDATE SET"
    " value = EXCLUDED.value, operator = EXCLUDED.operator, origin = EXCLUDED.origin,"
    " local_id = NULL"
)
_SELECT_FACTS: Final = (
    "SELECT base_url, account, project, kind, item, field, value, operator, origin::text,"
    " received_at, db_role FROM bottui.inventory_facts"
    " WHERE base_url = %s AND account = ANY(%s) ORDER BY received_at, kind, item, field"
)


def _temp_table(name: str, columns: Sequence[str], types: str) -> str:
    pairs = ", ".join(f"{c} {t.strip()}" for c, t in zip(columns, types.split(","), strict=True))
    return f"CREATE TEMP TABLE IF NOT EXISTS {name} ({pairs}) ON COMMIT DELETE ROWS"


class TeamStore:
    """The shared journal (and, later, inventory) of a team, on PostgreSQL.

    Args:
        target: The checked store URL (:func:`~bottui.store.team.store_target.check_store_url`).
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
            reason = reason_text(str(exc), secret) or type(exc).__name__
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

    async def _fetch(self, doing: str, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one statement, on the connection (errors mapped, time bounded)."""
        async with self._session(doing) as conn:
            cur = await conn.execute(sql.encode(), params)
            return await cur.fetchall()

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
        """Store ``events`` (entries, outcomes, timed events, then facts), each once; idempotent.

        Raises TypeError on a token or a value that is not an event's (a
        bug, before anything is sent), and :class:`StoreUnavailable`.
        """
        entries, outcomes, timed, facts = _rows(events)
        if not (entries or outcomes or timed or facts):
            return Pushed()
        doing = "sharing timed changes" if timed else "sharing the inventory"
        if entries or outcomes:
            doing = "sharing journal entries"
        async with self._session(doing) as conn, conn.transaction():
            check_version(await schema_version(conn))
            if len(entries) >= COPY_AT or len(outcomes) >= COPY_AT:
                await self._ensure_temp_tables(conn)
            new_entries = await self._insert_entries(conn, entries)
            new_outcomes, orphans = await self._insert_outcomes(conn, outcomes)
            new_timed = await _executemany(conn, _INSERT_TIMED, timed)
            new_facts = await _executemany(conn, _UPSERT_FACT, facts)
        duplicates = len(entries) - new_entries + len(outcomes) - new_outcomes - orphans
        return Pushed(
            entries=new_entries,
            outcomes=new_outcomes,
            duplicates=duplicates,
            orphans=orphans,
            timed=new_timed,
            facts=new_facts,
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
        if len(rows) < COPY_AT:
            return await _executemany(conn, _INSERT_ENTRY, rows)
        return await _copied(
            conn,
            "push_entries",
            _COLS,
            rows,
            f"INSERT INTO bottui.journal_entries ({_COLS}) SELECT {_COLS} FROM push_entries"
            " ORDER BY started_at, local_id ON CONFLICT DO NOTHING",
        )

    async def _insert_outcomes(
        self, conn: AsyncConnection[Any], rows: list[tuple[object, ...]]
    ) -> tuple[int, int]:
        if not rows:
            return 0, 0
        if len(rows) < COPY_AT:
            keyed = [(*row[2:], row[0], row[1]) for row in rows]
            count = await _executemany(conn, _INSERT_OUTCOME, keyed)
        else:
            count = await _copied(
                conn,
                "push_outcomes",
                ", ".join(OUTCOME_COLUMNS),
                rows,
                "INSERT INTO bottui.journal_outcomes (origin, local_id, entry_id,"
                f" entry_started_at, {_OUT_VALUES}) SELECT e.origin, e.local_id, e.id,"
                f" e.started_at, {', '.join('p.' + c for c in _OUT_VALUES.split(', '))}"
                " FROM push_outcomes AS p JOIN bottui.journal_entries AS e"
                " ON e.origin = p.origin AND e.local_id = p.local_id ON CONFLICT DO NOTHING",
            )
        cur = conn.cursor()
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
        :data:`~bottui.store.team.page_query.RECENT_LIMIT`; on an index.
        """
        sql, params = recent_sql(base_url, account, project, target, seconds)
        return self.readable(await self._fetch("reading recent changes", sql, params))

    async def entries(self, ids: Sequence[int]) -> tuple[TeamEntry, ...]:
        """The entries of these server ids (a notification's), oldest first."""
        if not ids:
            return ()
        sql = f"{SELECT}{ENTRIES_FROM} WHERE e.id = ANY(%s) ORDER BY e.id"
        return self.readable(await self._fetch("reading new entries", sql, [list(ids)]))

    async def scan_after(self, last_id: int, *, limit: int = DEFAULT_PAGE) -> Scan:
        """Up to ``limit`` rows above ``last_id``, oldest first: the readable entries, how
        many rows were looked at and the last one's id (a skipped row counts too)."""
        sql = f"{SELECT}{ENTRIES_FROM} WHERE e.id > %s ORDER BY e.id LIMIT %s"
        rows = await self._fetch("reading new entries", sql, [int(last_id), max(1, int(limit))])
        return Scan(self.readable(rows), len(rows), int(rows[-1][0]) if rows else int(last_id))

    def readable(self, rows: Sequence[Sequence[Any]]) -> tuple[TeamEntry, ...]:
        """The entries of these rows; each unreadable one skipped and said (:attr:`skips`)."""
        out: list[TeamEntry] = []
        for row in rows:
            found, skipped = read_entry(row)
            if skipped is not None:
                self.skips.add(skipped)
            if found is not None:
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
        rows = await self._fetch("reading the journal", sql, [origin, [int(i) for i in local_ids]])
        return frozenset(int(row[0]) for row in rows)

    async def held_count(self, origin: UUID, upto: int) -> int:
        """How many entries of ``origin`` with a local id up to ``upto`` the store holds."""
        sql = "SELECT count(*) FROM bottui.journal_entries WHERE origin = %s AND local_id <= %s"
        rows = await self._fetch("reading the journal", sql, [origin, int(upto)])
        return int(rows[0][0]) if rows else 0

    async def last_id(self) -> int:
        """The newest server id of the journal (0: empty)."""
        sql = "SELECT coalesce(max(id), 0) FROM bottui.journal_entries"
        rows = await self._fetch("reading the journal", sql)
        return int(rows[0][0]) if rows else 0

    # -- the inventory ------------------------------------------------------------------

    async def put_facts(self, facts: Sequence[Fact]) -> int:
        """Upsert shared inventory facts (the server stamps when and who); how many rows
        were written (a fact PostgreSQL cannot hold, NUL in it, is left out)."""
        return (await self.push(facts)).facts

    async def facts(self, base_url: str, accounts: Sequence[str]) -> tuple[Fact, ...]:
        """The shared inventory of ``accounts`` at ``base_url``, oldest first."""
        if not accounts:
            return ()
        async with self._session("reading the shared inventory") as conn:
            check_version(await schema_version(conn))
            cur = await conn.execute(_SELECT_FACTS, (base_url, list(accounts)))
            rows = await cur.fetchall()
        return tuple(
            Fact(
                key=FactKey(*(str(v) for v in row[:6])),
                value=None if row[6] is None else str(row[6]),
                operator=str(row[7]),
                origin=None if row[8] is None else str(row[8]),
                received_at=row[9],
                db_role=None if row[10] is None else str(row[10]),
            )
            for row in rows
        )

    # -- timed changes ------------------------------------------------------------------

    async def timed_events(self) -> list[TimedEvent]:
        """Every timed event of the team, oldest first.

        An event whose detail is not a JSON object, or whose time is not sane, is
        skipped and said (:attr:`skips`): the others go on.
        """
        sql = (
            "SELECT origin, local_id, kind, timed, at, detail, operator, host"
            " FROM bottui.timed_events ORDER BY id"
        )
        out = []
        for row in await self._fetch("reading timed changes", sql):
            event_id, operator = f"{row[0]}:e{row[1]}", str(row[6])
            try:
                detail = json_object(row[5], optional=False)
            except NotJson as exc:
                self.skips.add(
                    Unreadable("timed_events", event_id, operator, f"its detail is {exc}")
                )
                continue
            if not sane(row[4]):
                why = "its time is outside any sane range"
                self.skips.add(Unreadable("timed_events", event_id, operator, why))
                continue
            assert detail is not None
            at = micros(row[4])
            out.append(TimedEvent(event_id, row[2], row[3], at, detail, operator, row[7]))
        return out

    async def timed_claims(self) -> list[TimedClaim]:
        """Every claim, with its result when it has one.

        A claim always counts (it is what stops a second executor), whoever wrote
        it: a time that is not sane reads as the epoch (so it is in doubt at once),
        a result's detail that is not a JSON object as empty (said once).
        """
        sql = (
            "SELECT c.timed, c.at, c.executor, r.state, r.at, r.detail"
            " FROM bottui.timed_claims AS c LEFT JOIN bottui.timed_results AS r USING (timed)"
        )
        out = []
        for row in await self._fetch("reading timed changes", sql):
            detail: dict[str, Any] | None = None
            try:
                detail = json_object(row[5])
            except NotJson as exc:
                why = f"its detail is {exc}"
                self.skips.add(Unreadable("timed_results", str(row[0]), str(row[2]), why))
            result_at = None if row[4] is None else micros(row[4]) if sane(row[4]) else 0
            claimed_at = micros(row[1]) if sane(row[1]) else 0
            out.append(TimedClaim(row[0], claimed_at, row[2], row[3], result_at, detail or {}))
        return out

    async def claim_timed(self, timed: str, *, at: int, executor: str) -> bool:
        """Claim the revert of ``timed`` for the whole team; False: someone has already."""
        sql = (
            "INSERT INTO bottui.timed_claims (timed, at, executor) VALUES (%s, %s, %s)"
            " ON CONFLICT (timed) DO NOTHING RETURNING timed"
        )
        won = await self._fetch("claiming a timed revert", sql, (timed, from_micros(at), executor))
        return bool(won)

    async def timed_result(
        self, timed: str, state: str, detail: dict[str, Any], *, at: int
    ) -> None:
        """Record how the claimed revert of ``timed`` ended (once)."""
        sql = (
            "INSERT INTO bottui.timed_results (timed, at, state, detail) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (timed) DO NOTHING"
        )
        text = json.dumps(detail, ensure_ascii=False, sort_keys=True)
        async with self._session("recording a timed revert") as conn:
            await conn.execute(sql.encode(), (timed, from_micros(at), state, text))

    async def entries_by_event(self, event_ids: Sequence[str]) -> dict[str, TeamEntry]:
        """The shared entries of these event ids (``ORIGIN:ID``); those not shared are missing."""
        pairs = []
        for event_id in event_ids:
            origin, _, local = event_id.rpartition(":")
            pairs.append((UUID(origin), int(local)))
        if not pairs:
            return {}
        sql = (
            f"{SELECT}{ENTRIES_FROM}"
            " WHERE (e.origin, e.local_id) IN (SELECT * FROM unnest(%s::uuid[], %s::bigint[]))"
        )
        params = ([p[0] for p in pairs], [p[1] for p in pairs])
        rows = await self._fetch("reading timed changes", sql, params)
        return {f"{e.origin}:{e.local_id}": e for e in self.readable(rows)}

    # -- notifications ------------------------------------------------------------------

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


Rows = list[tuple[object, ...]]


def _rows(events: Sequence[Event]) -> tuple[Rows, Rows, Rows, Rows]:
    """The rows of entries, outcomes, timed events and facts (a fact PostgreSQL cannot
    hold, NUL in it, left out); TypeError for anything else, before anything is sent."""
    entries: Rows = []
    outcomes: Rows = []
    timed: Rows = []
    facts: Rows = []
    for event in events:
        if isinstance(event, EntryEvent):
            entries.append(event.row())
        elif isinstance(event, OutcomeEvent):
            outcomes.append(event.row())
        elif isinstance(event, TimedEvent):
            timed.append(timed_row(event))
        elif isinstance(event, Fact):
            if storable(event):
                facts.append(fact_row(event))
        else:
            raise TypeError("push takes the outbox's events only")
    return entries, outcomes, timed, facts


async def _executemany(conn: AsyncConnection[Any], sql: str, rows: list[tuple[object, ...]]) -> int:
    """``rows`` by one pipelined ``executemany``; how many were written."""
    if not rows:
        return 0
    cur = conn.cursor()
    await cur.executemany(sql, rows)
    return max(0, cur.rowcount)


async def _copied(
    conn: AsyncConnection[Any], table: str, columns: str, rows: Rows, insert: str
) -> int:
    """``rows`` by ``COPY`` into the temporary ``table``, then ``insert`` from it; how
    many it wrote (the temporary table is emptied for the next push)."""
    cur = conn.cursor()
    async with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            await copy.write_row(row)
    await cur.execute(insert)
    count = max(0, cur.rowcount)
    await cur.execute(f"DELETE FROM {table}")
    return count


class Scan(msgspec.Struct, frozen=True):
    """A catch-up read: the readable entries, how many rows it looked at, the last row's id."""

    entries: tuple[TeamEntry, ...]
    rows: int
    last: int
