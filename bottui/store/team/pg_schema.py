"""The shared database's schema, as numbered migration steps (schema ``bottui``).

Version 1:

* ``journal_entries``: one row per journal entry, unique by its event id
  ``(origin, local_id)`` (the UUID of the local journal file that wrote it,
  and its id there), so a push repeated after a lost answer stores it once.
  The server fills ``db_role`` (``session_user``) and ``received_at``
  (``clock_timestamp()``) in a trigger, whatever the client sent: the
  claimed ``operator`` sits beside the role that really wrote it. JSON values
  (target, request body, previous value) are kept as the exact text the local
  journal wrote (``jsonb`` would reorder keys and refuse ``\\u0000``).
* ``journal_outcomes``: how an entry ended, an event of its own keyed to its
  entry (same event id), carrying the entry's ``started_at`` so an outcome
  filter walks one index in page order.
* Both append-only: a statement trigger refuses UPDATE, DELETE and TRUNCATE,
  for the owner too. A statement trigger per insert sends one NOTIFY
  (:data:`JOURNAL_CHANNEL`) with the newest id and the count, so a COPY of
  10,000 rows is one notification, not 10,000.
* ``open_entries``: the entries without an outcome yet, kept by triggers
  (``--unfinished`` reads it, not an anti-join of millions of outcomes).
* ``inventory_facts``: the shared inventory, one row per (base URL, account,
  project, kind, item, field); a write replaces the field's value, the
  server stamps when (``clock_timestamp()``) and which role, so the newest
  write by the server's clock wins; ``operator`` and the journal event say
  whose change taught it. NOTIFY on :data:`INVENTORY_CHANNEL`.

Version 2 (the collision warning): ``journal_entries_target``, one change's
recent history (project, exact target text, start time), for single changes
only (``run_id IS NULL``): a bulk run of a million revocations in the same
project does not slow "who changed this limiter in the last 15 minutes".

Version 3 (the reason search): ``journal_entries_reason``, a GIN index of each
reason's trigrams (every 3-character slice of ``lower(reason)``, made by the
PL/pgSQL function ``bottui.reason_trigrams``), for ``--reason``'s
case-insensitive part. Built in, no extension: ``pg_trgm`` is missing from
pgserver's PostgreSQL (the tests' and the demo's), and an extension is one
more thing a database's owner may not be allowed to install.
A part of 3 characters or more is looked up there; the ``ILIKE`` that follows
decides (``ILIKE`` lowers both sides as ``lower`` does, so every row it keeps
holds each of the part's trigrams).

Version 4: ``journal_entries_project_operator``, a project and an operator
together in page order.

Version 5 (timed changes, issue #15): ``timed_events`` (a timed change's
schedule, extends and cancel, pushed from each local journal, unique by
event id ``(origin, local_id)``), ``timed_claims`` (one row per revert, its
key the timed change: the INSERT that succeeds is the one executor, across
every machine, that sends it) and ``timed_results`` (how a claimed revert
ended, at most one). All append-only and stamped like the journal's tables;
an operator needs INSERT and SELECT only.

Version 6 (issue #26): the reason's trigrams in linear time, and bounded.
``reason_trigrams`` walked ``substr(lowered, i, 3)``, which counts characters
from the start each time: quadratic (16,000 characters took 7.2 s, a 1 MB
reason 24 minutes of server CPU, inside every INSERT). It now splits the
text once (``regexp_split_to_table(..., '')``) and pairs each character with
the next two (``lead``): the same trigrams, linear. A reason longer than
:data:`MAX_STORED_REASON` characters is refused by the database itself (a
CHECK, so a teammate inserting with psql cannot bypass it; bottui's own
reasons hold at most 1,000, and a push shortens an older longer one). The
CHECK is ``NOT VALID``: rows already stored stay. The index the function
feeds is rebuilt (``REINDEX``).

Indexes serve the journal's pages newest first (``started_at DESC, id
DESC``): by time, project, operator, run, outcome word; each ends in
``(started_at, id)`` so a cursor continues the same index range.

``bottui store migrate`` and the version check every connection makes: migrating
takes a transaction-scoped advisory lock first
(``pg_advisory_xact_lock``), so two operators running it at once take turns:
the second finds the work done and applies nothing. Every pending step and
its version row commit together, or none does. A database migrated by a
newer bottui is never written: :func:`check_version` refuses with
:class:`~bottui.store.team.team_errors.SchemaTooNew`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import msgspec

from bottui.store.team.team_errors import SchemaMissing, SchemaTooNew

if TYPE_CHECKING:
    from psycopg import AsyncConnection


#: The schema version this bottui writes and reads.
SCHEMA_VERSION: Final = 6
#: The longest reason the database accepts (characters), from schema version 6 (a CHECK).
MAX_STORED_REASON: Final = 4_000
#: NOTIFY channel of journal inserts (payload: {"table", "count", "last"}).
JOURNAL_CHANNEL: Final = "bottui_journal"
#: NOTIFY channel of inventory writes.
INVENTORY_CHANNEL: Final = "bottui_inventory"


def _stamped_append_only(table: str) -> tuple[str, str]:
    """The two triggers of an append-only table: its writer stamped, its rows never changed."""
    return (
        f"CREATE TRIGGER {table}_stamp BEFORE INSERT ON bottui.{table}"
        " FOR EACH ROW EXECUTE FUNCTION bottui.stamp_writer()",
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE OR TRUNCATE"
        f" ON bottui.{table} FOR EACH STATEMENT EXECUTE FUNCTION bottui.refuse_change()",
    )


#: The table of applied versions; made by ``migrate`` before any step.
VERSIONS_TABLE: Final = """
CREATE TABLE IF NOT EXISTS bottui.schema_versions (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    applied_by text NOT NULL DEFAULT session_user
)
"""

_V1: Final = (
    """
    CREATE FUNCTION bottui.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'bottui.% is append-only: % refused', TG_TABLE_NAME, TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END $$
    """,
    """
    CREATE FUNCTION bottui.stamp_writer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        NEW.db_role := session_user;
        NEW.received_at := clock_timestamp();
        RETURN NEW;
    END $$
    """,
    f"""
    CREATE FUNCTION bottui.notify_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        n bigint;
        newest bigint;
    BEGIN
        SELECT count(*), max(id) INTO n, newest FROM new_rows;
        IF n > 0 THEN
            PERFORM pg_notify('{JOURNAL_CHANNEL}', json_build_object(
                'table', TG_TABLE_NAME, 'count', n, 'last', newest)::text);
        END IF;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TABLE bottui.journal_entries (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        origin uuid NOT NULL,
        local_id bigint NOT NULL,
        db_role text NOT NULL DEFAULT session_user,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        started_at timestamptz NOT NULL,
        operator text NOT NULL,
        host text NOT NULL,
        profile text NOT NULL,
        reason text,
        base_url text NOT NULL,
        account text NOT NULL,
        project text NOT NULL,
        operation text NOT NULL,
        target text NOT NULL,
        request_body text,
        previous text,
        undo_of bigint,
        run_id bigint,
        item_key text,
        CONSTRAINT journal_entries_event UNIQUE (origin, local_id)
    )
    """,
    "CREATE INDEX journal_entries_time ON bottui.journal_entries (started_at, id)",
    "CREATE INDEX journal_entries_project ON bottui.journal_entries (project, started_at, id)",
    "CREATE INDEX journal_entries_operator ON bottui.journal_entries (operator, started_at, id)",
    "CREATE INDEX journal_entries_run ON bottui.journal_entries (origin, run_id, started_at, id)"
    " WHERE run_id IS NOT NULL",
    """
    CREATE TABLE bottui.journal_outcomes (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        origin uuid NOT NULL,
        local_id bigint NOT NULL,
        entry_id bigint NOT NULL REFERENCES bottui.journal_entries (id),
        entry_started_at timestamptz NOT NULL,
        db_role text NOT NULL DEFAULT session_user,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz NOT NULL,
        outcome text NOT NULL,
        status integer,
        result text,
        error text,
        duration_ms double precision,
        CONSTRAINT journal_outcomes_event UNIQUE (origin, local_id)
    )
    """,
    "CREATE UNIQUE INDEX journal_outcomes_entry ON bottui.journal_outcomes (entry_id)",
    "CREATE INDEX journal_outcomes_word ON bottui.journal_outcomes"
    " (outcome, entry_started_at, entry_id)",
    """
    CREATE TABLE bottui.inventory_facts (
        base_url text NOT NULL,
        account text NOT NULL,
        project text NOT NULL,
        kind text NOT NULL,
        item text NOT NULL DEFAULT '',
        field text NOT NULL,
        value text,
        operator text NOT NULL,
        origin uuid,
        local_id bigint,
        db_role text NOT NULL DEFAULT session_user,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (base_url, account, project, kind, item, field)
    )
    """,
    "CREATE INDEX inventory_facts_time ON bottui.inventory_facts (received_at)",
    *(
        stmt
        for table in ("journal_entries", "journal_outcomes")
        for stmt in (
            *_stamped_append_only(table),
            f"CREATE TRIGGER {table}_notify AFTER INSERT ON bottui.{table}"
            " REFERENCING NEW TABLE AS new_rows"
            " FOR EACH STATEMENT EXECUTE FUNCTION bottui.notify_insert()",
        )
    ),
    # Entries without an outcome, kept by the owner's triggers (SECURITY DEFINER:
    # an operator role needs no right on it but SELECT): `unfinished` walks this
    # small table instead of anti-joining millions of outcomes.
    """
    CREATE TABLE bottui.open_entries (
        entry_id bigint PRIMARY KEY REFERENCES bottui.journal_entries (id),
        started_at timestamptz NOT NULL
    )
    """,
    "CREATE INDEX open_entries_time ON bottui.open_entries (started_at, entry_id)",
    """
    CREATE FUNCTION bottui.open_entry() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        INSERT INTO bottui.open_entries (entry_id, started_at)
            SELECT n.id, n.started_at FROM new_rows AS n
            WHERE NOT EXISTS (SELECT 1 FROM bottui.journal_outcomes AS o WHERE o.entry_id = n.id);
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION bottui.close_entry() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        DELETE FROM bottui.open_entries AS u USING new_rows AS n WHERE u.entry_id = n.entry_id;
        RETURN NULL;
    END $$
    """,
    "CREATE TRIGGER journal_entries_open AFTER INSERT ON bottui.journal_entries"
    " REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bottui.open_entry()",
    "CREATE TRIGGER journal_outcomes_close AFTER INSERT ON bottui.journal_outcomes"
    " REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bottui.close_entry()",
    "CREATE TRIGGER inventory_facts_stamp BEFORE INSERT OR UPDATE ON bottui.inventory_facts"
    " FOR EACH ROW EXECUTE FUNCTION bottui.stamp_writer()",
    f"""
    CREATE FUNCTION bottui.notify_inventory() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_notify('{INVENTORY_CHANNEL}', json_build_object('table', TG_TABLE_NAME)::text);
        RETURN NULL;
    END $$
    """,
    "CREATE TRIGGER inventory_facts_notify AFTER INSERT OR UPDATE ON bottui.inventory_facts"
    " FOR EACH STATEMENT EXECUTE FUNCTION bottui.notify_inventory()",
)

#: The collision warning (step 2): one target's recent single changes.
_V2: Final = (
    "CREATE INDEX journal_entries_target ON bottui.journal_entries"
    " (project, target, started_at, id) WHERE run_id IS NULL",
)

#: The reason search (step 3): a GIN index on the trigrams of ``lower(reason)``.
#: Built in, not pg_trgm (see the module's docstring). PL/pgSQL: twice as fast
#: as the same in SQL (9 µs a reason, against 20), which every insert of an
#: entry with a reason pays. Names qualified because an index expression is
#: evaluated under any search_path. PARALLEL UNSAFE on purpose: a page's query
#: is small, and starting workers for it costs more (5-8 ms) than it saves.
#: EXECUTE granted to PUBLIC explicitly: a database whose default privileges
#: revoke it still lets every operator search.
_V3_REASON_SEARCH: Final = (
    """
    CREATE FUNCTION bottui.reason_trigrams(reason text) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL UNSAFE AS $$
    DECLARE
        lowered text := pg_catalog.lower(reason);
        found text[] := '{}';
    BEGIN
        FOR i IN 1 .. pg_catalog.char_length(lowered) - 2 LOOP
            found := pg_catalog.array_append(found, pg_catalog.substr(lowered, i, 3));
        END LOOP;
        RETURN found;
    END $$
    """,
    "GRANT EXECUTE ON FUNCTION bottui.reason_trigrams(text) TO PUBLIC",
    "CREATE INDEX journal_entries_reason ON bottui.journal_entries"
    " USING gin (bottui.reason_trigrams(reason)) WHERE reason IS NOT NULL",
)

#: A project and an operator together (step 4): walked in page order on one
#: index, instead of the project's entries checked one by one for the operator
#: (43 ms median, 95 ms cold, at 10,000,000 entries with 2,000 in the project).
_V4_PROJECT_OPERATOR: Final = (
    "CREATE INDEX journal_entries_project_operator ON bottui.journal_entries"
    " (project, operator, started_at, id)",
)

#: Timed changes (step 5): see the module's docstring.
_V5_TIMED: Final = (
    """
    CREATE TABLE bottui.timed_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        origin uuid NOT NULL,
        local_id bigint NOT NULL,
        db_role text NOT NULL DEFAULT session_user,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        at timestamptz NOT NULL,
        kind text NOT NULL CHECK (kind IN ('schedule', 'extend', 'cancel')),
        timed text NOT NULL,
        detail text NOT NULL,
        operator text NOT NULL,
        host text,
        CONSTRAINT timed_events_event UNIQUE (origin, local_id)
    )
    """,
    "CREATE INDEX timed_events_key ON bottui.timed_events (timed, id)",
    """
    CREATE TABLE bottui.timed_claims (
        timed text PRIMARY KEY,
        db_role text NOT NULL DEFAULT session_user,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        at timestamptz NOT NULL,
        executor text NOT NULL
    )
    """,
    """
    CREATE TABLE bottui.timed_results (
        timed text PRIMARY KEY REFERENCES bottui.timed_claims (timed),
        db_role text NOT NULL DEFAULT session_user,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        at timestamptz NOT NULL,
        state text NOT NULL,
        detail text NOT NULL
    )
    """,
    *(
        stmt
        for table in ("timed_events", "timed_claims", "timed_results")
        for stmt in _stamped_append_only(table)
    ),
)

#: The reason's trigrams in linear time, and bounded (step 6): see the module's docstring.
#: SQL, not PL/pgSQL: one pass over the characters; IMMUTABLE and STRICT as before,
#: so the index expression and the queries' ``reason_trigrams(%s)`` are unchanged.
_V6_REASON_LINEAR: Final = (
    """
    CREATE OR REPLACE FUNCTION bottui.reason_trigrams(reason text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL UNSAFE AS $$
        SELECT coalesce(pg_catalog.array_agg(t.trigram), '{}'::text[])
        FROM (
            SELECT c.ch OPERATOR(pg_catalog.||) pg_catalog.lead(c.ch, 1) OVER w
                OPERATOR(pg_catalog.||) pg_catalog.lead(c.ch, 2) OVER w AS trigram
            FROM pg_catalog.regexp_split_to_table(pg_catalog.lower(reason), '')
                WITH ORDINALITY AS c (ch, i)
            WINDOW w AS (ORDER BY c.i)
        ) AS t
        WHERE t.trigram IS NOT NULL
    $$
    """,
    "GRANT EXECUTE ON FUNCTION bottui.reason_trigrams(text) TO PUBLIC",
    "ALTER TABLE bottui.journal_entries ADD CONSTRAINT journal_entries_reason_length"
    f" CHECK (pg_catalog.char_length(reason) <= {MAX_STORED_REASON}) NOT VALID",
    "REINDEX INDEX bottui.journal_entries_reason",
)

#: Every step, by the version it brings the schema to. A step is never edited
#: once released: a change is a new version.
MIGRATIONS: Final[dict[int, tuple[str, ...]]] = {
    1: _V1,
    2: _V2,
    3: _V3_REASON_SEARCH,
    4: _V4_PROJECT_OPERATOR,
    5: _V5_TIMED,
    6: _V6_REASON_LINEAR,
}

#: What an operator role needs (the README's set-up SQL): the journal INSERT and
#: SELECT only; the inventory INSERT, UPDATE and SELECT (newest write wins).
OPERATOR_GRANTS: Final = """\
CREATE ROLE bottui_operator NOLOGIN;
GRANT USAGE ON SCHEMA bottui TO bottui_operator;
GRANT SELECT ON bottui.schema_versions TO bottui_operator;
GRANT SELECT, INSERT ON bottui.journal_entries, bottui.journal_outcomes TO bottui_operator;
GRANT SELECT ON bottui.open_entries TO bottui_operator;
GRANT SELECT, INSERT, UPDATE ON bottui.inventory_facts TO bottui_operator;
GRANT SELECT, INSERT ON bottui.timed_events, bottui.timed_claims TO bottui_operator;
GRANT SELECT, INSERT ON bottui.timed_results TO bottui_operator;
"""


#: The advisory lock key of migrations ("bottui" in ASCII).
MIGRATION_LOCK: Final = 0x626F74747569


class Migrated(msgspec.Struct, frozen=True):
    """What one ``migrate`` did: the version before, after, and the steps applied."""

    before: int
    after: int
    applied: tuple[int, ...]


async def schema_version(conn: AsyncConnection[Any]) -> int:
    """The database's schema version; 0 when bottui's schema is not there."""
    cur = await conn.execute("SELECT to_regclass('bottui.schema_versions') IS NOT NULL")
    row = await cur.fetchone()
    if row is None or not row[0]:
        return 0
    cur = await conn.execute("SELECT coalesce(max(version), 0) FROM bottui.schema_versions")
    row = await cur.fetchone()
    return int(row[0]) if row is not None else 0


def too_new(version: int) -> SchemaTooNew:
    """The refusal of a schema newer than this bottui's."""
    return SchemaTooNew(
        f"The team store's schema (version {version}) is newer than this bottui's"
        f" ({SCHEMA_VERSION}): nothing is written",
        "Another operator upgraded bottui and migrated the shared database. Upgrade"
        " bottui (pip install -U 'bottui[team]') before using this store.",
    )


def check_version(version: int) -> None:
    """Refuse a schema this bottui does not write (missing, older or newer)."""
    if version > SCHEMA_VERSION:
        raise too_new(version)
    if version < SCHEMA_VERSION:
        state = "has no bottui schema" if version == 0 else f"is at schema version {version}"
        raise SchemaMissing(
            f"The team store {state} (this bottui needs {SCHEMA_VERSION})",
            "Run `bottui store migrate` as a role that owns the bottui schema (see the"
            " docs: docs/team.md).",
        )


async def migrate(conn: AsyncConnection[Any]) -> Migrated:
    """Apply every pending step, under the advisory lock; idempotent."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await conn.execute("CREATE SCHEMA IF NOT EXISTS bottui")
        await conn.execute(VERSIONS_TABLE)
        cur = await conn.execute("SELECT coalesce(max(version), 0) FROM bottui.schema_versions")
        row = await cur.fetchone()
        before = int(row[0]) if row is not None else 0
        if before > SCHEMA_VERSION:
            raise too_new(before)
        applied: list[int] = []
        for version in sorted(MIGRATIONS):
            if version <= before:
                continue
            for statement in MIGRATIONS[version]:
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO bottui.schema_versions (version) VALUES (%s)", (version,)
            )
            applied.append(version)
    return Migrated(before=before, after=max([before, *applied]), applied=tuple(applied))
