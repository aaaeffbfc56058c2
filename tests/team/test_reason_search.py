"""The reason search on an index (#13 scale: schema step 3, ``journal_entries_reason``).

The index is built into the schema (SQL trigrams, no extension: pgserver's
PostgreSQL has no pg_trgm), so a role that is no superuser still gets it; a
reason part finds the same rows as the plain ``ILIKE`` did, LIKE's wildcards
in it staying literal; and a rare reason is read through the index, not by
walking the whole journal.
"""

from __future__ import annotations

import time
from uuid import uuid4

import psycopg
import pytest

from bottui.store.team import page_query
from bottui.store.team.page_query import TeamQuery, page_plan, page_sql, reason_window
from bottui.store.team.pg_schema import MIGRATIONS, OPERATOR_GRANTS, SCHEMA_VERSION, VERSIONS_TABLE
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.store_target import check_store_url
from tests.fixtures.postgres import PostgresServer
from tests.team.events import T0, entry, outcome

INDEX = "journal_entries_reason"

HOSTILE = (
    "100% sure",
    "100 sure",
    "a_b",
    "axb",
    "back\\slash",
    "backslash",
    'it\'s "quoted"',
    "[bold red]markup[/]",
    "'; DROP TABLE bottui.journal_entries; --",
    "Ünïcödé ☃ 事件 INC-4312",
    "ünïcödé ☃ 事件 inc-4312",
    "x" * 255 + "ℤ",
    "%%%",
    "___",
    "\\\\\\",
)
PARTS = (
    "%",
    "% s",
    "0%",
    "_",
    "a_b",
    "_b",
    "\\",
    "\\sl",
    "k\\s",
    "'s \"",
    "[bold",
    "[/]",
    "'; drop",
    "ÜNÏ",
    "ünï",
    "☃ 事件",
    "事件",
    "x" * 200,
    "%%%",
    "___",
    "\\\\",
    "inc-4312",
    "no such text",
)


def _store(url: str) -> TeamStore:
    return TeamStore(check_store_url(url, {}), timeout=120)


def _index(url: str) -> str | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", (INDEX,))
        found = row.fetchone()
    return None if found is None else str(found[0])


async def _all(store: TeamStore, query: TeamQuery, limit: int) -> list[int]:
    found: list[int] = []
    cursor = None
    while True:
        page = await store.page(query, limit=limit, cursor=cursor)
        found += [e.local_id for e in page.entries]
        if page.next is None:
            return found
        cursor = page.next


def _plain(url: str, query: TeamQuery) -> list[int]:
    """What the one ``ILIKE`` statement of before finds (every row, newest first)."""
    sql, params = page_sql(query, None, 10_000)
    with psycopg.connect(url) as conn:
        return [int(row[2]) for row in conn.execute(sql.encode(), params)]


async def test_migrate_from_version_2_indexes_the_reasons_already_there(
    pg_admin_url: str,
) -> None:
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA bottui")
        conn.execute(VERSIONS_TABLE)
        with conn.transaction():
            for version in (1, 2):
                for statement in MIGRATIONS[version]:
                    conn.execute(statement.encode())
                conn.execute("INSERT INTO bottui.schema_versions (version) VALUES (%s)", (version,))
    assert _index(pg_admin_url) is None
    store = _store(pg_admin_url)
    try:
        with psycopg.connect(pg_admin_url, autocommit=True) as conn:
            # an entry written at version 2 (the app of then wrote this way)
            conn.execute(
                "INSERT INTO bottui.journal_entries (origin, local_id, started_at, operator,"
                " host, profile, reason, base_url, account, project, operation, target)"
                " VALUES (%s, 1, %s, 'bob', 'h', 'prod', 'INC-77 before the upgrade',"
                " 'u', 'acme', 'p', 'limiter.set-active', '{}')",
                (uuid4(), T0),
            )
        done = await store.migrate()
        assert (done.before, done.applied) == (2, tuple(range(3, SCHEMA_VERSION + 1)))
        definition = _index(pg_admin_url)
        assert definition is not None and "USING gin" in definition
        assert "reason_trigrams(reason)" in definition
        found = await store.page(TeamQuery(reason="inc-77 BEFORE"))
        assert [e.reason for e in found.entries] == ["INC-77 before the upgrade"]
    finally:
        await store.close()


async def test_migrate_from_empty_makes_the_index(pg_admin_url: str) -> None:
    store = _store(pg_admin_url)
    try:
        assert (await store.migrate()).before == 0
    finally:
        await store.close()
    definition = _index(pg_admin_url)
    assert definition is not None and "WHERE (reason IS NOT NULL)" in definition


@pytest.mark.parametrize("limit", [2, 50])
@pytest.mark.parametrize("path", ["newest rows", "index"])
async def test_hostile_parts_find_what_ilike_found_and_wildcards_stay_literal(
    team_store: TeamStore, limit: int, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if path == "index":
        # a window of one row: every page that one row does not fill is read on the index
        monkeypatch.setattr(page_query, "REASON_WINDOW_MIN", 1)
        monkeypatch.setattr(page_query, "REASON_WINDOW_PER_ROW", 0)
    origin = uuid4()
    events = [entry(i + 1, origin, reason=r) for i, r in enumerate(HOSTILE)]
    events.append(entry(len(events) + 1, origin, reason=None))
    await team_store.push(events)
    url = team_store.target.url
    for part in PARTS:
        query = TeamQuery(reason=part)
        assert await _all(team_store, query, limit) == _plain(url, query), part
    by_reason = {e.local_id: e.reason for e in events}

    async def reasons(part: str) -> set[str | None]:
        return {by_reason[i] for i in await _all(team_store, TeamQuery(reason=part), limit)}

    assert await reasons("%") == {"100% sure", "%%%"}
    assert await reasons("a_b") == {"a_b"}
    assert await reasons("k\\s") == {"back\\slash"}
    assert await reasons("\\\\") == {"\\\\\\"}
    assert await reasons("ünï") == {"ünïcödé ☃ 事件 inc-4312"}  # lower() of the C locale: ASCII
    assert await reasons("'; drop") == {HOSTILE[8]}
    assert await reasons("INC-4312") == {HOSTILE[9], HOSTILE[10]}
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM bottui.journal_entries").fetchone() == (
            len(events),
        )


async def test_a_rare_reason_is_read_on_the_index_and_a_common_one_in_the_newest_rows(
    team_store: TeamStore,
) -> None:
    url = team_store.target.url
    origin = uuid4()
    rows = 3 * reason_window(51)
    with psycopg.connect(url, autocommit=True) as conn:
        # bulk SQL: every entry has a common reason; three old ones a rare one too
        conn.execute(
            "INSERT INTO bottui.journal_entries (origin, local_id, started_at, operator, host,"
            " profile, reason, base_url, account, project, operation, target)"
            " SELECT %s, i, %s + make_interval(secs => i), 'op' || (i %% 7), 'h', 'prod',"
            " CASE WHEN i IN (5, 6, 700) THEN 'INC-9 rare ' ELSE '' END || 'credential stuffing',"
            " 'u', 'acme', 'shop-' || (i %% 3), 'grant.revoke', '{}'"
            " FROM generate_series(1, %s) AS i",
            (origin, T0, rows),
        )
        conn.execute("ANALYZE bottui.journal_entries")
    before = _index_scans(url)
    rare = TeamQuery(reason="9 RARE")
    assert await _all(team_store, rare, 2) == [700, 6, 5]
    assert await _all(team_store, TeamQuery(reason="9 rare", project="shop-0"), 50) == [6]
    common = await team_store.page(TeamQuery(reason="Stuffing"), limit=50)
    assert [e.local_id for e in common.entries] == list(range(rows, rows - 50, -1))
    await team_store.close()  # a backend's index statistics are sent when it ends
    deadline = time.monotonic() + 30
    while _index_scans(url) < before + 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    # the first rare page and the rare one in shop-0 (the second rare page starts
    # among the last 5 entries: the window holds them all, no index needed)
    assert _index_scans(url) >= before + 2


def _index_scans(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT coalesce(sum(idx_scan), -1) FROM pg_stat_user_indexes WHERE indexrelname = %s",
            (INDEX,),
        ).fetchone()
    return int(row[0]) if row is not None else -1


def test_short_parts_and_outcome_filters_keep_the_one_statement() -> None:
    assert page_plan(TeamQuery(reason="ab"), None, 51).near is None
    assert page_plan(TeamQuery(reason="abc", unfinished=True), None, 51).near is None
    assert page_plan(TeamQuery(reason="abc", outcomes=frozenset({"ok"})), None, 51).near is None
    plan = page_plan(TeamQuery(reason="abc"), None, 51)
    assert plan.near is not None and plan.window == reason_window(51)
    assert "bottui.reason_trigrams(e.reason) @> bottui.reason_trigrams(%s)" in plan.sql


async def test_a_role_that_cannot_create_extensions_migrates_and_operators_search(
    postgres_server: PostgresServer, pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(page_query, "REASON_WINDOW_MIN", 1)  # the operator reads on the index
    monkeypatch.setattr(page_query, "REASON_WINDOW_PER_ROW", 0)
    owner, alice = f"own_{pg_database}", f"alice_{pg_database}"
    postgres_server.execute(f'CREATE ROLE "{owner}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE')
    postgres_server.execute(f'ALTER DATABASE "{pg_database}" OWNER TO "{owner}"')
    # a hardened database: new functions are not executable by PUBLIC by default
    postgres_server.execute(
        f'ALTER DEFAULT PRIVILEGES FOR ROLE "{owner}" REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC',
        database=pg_database,
    )
    base = postgres_server.admin_url(pg_database)
    as_owner = f"{base}&user={owner}" if "?" in base else f"{base}?user={owner}"
    store = _store(as_owner)
    try:
        done = await store.migrate()
        assert done.after == SCHEMA_VERSION
        e = entry(1, reason="INC-4312 credential stuffing")
        f = entry(2, reason="something else")
        await store.push([e, outcome(e), f])
    finally:
        await store.close()
    assert _index(base) is not None
    grants = OPERATOR_GRANTS.replace("bottui_operator", f"op_{pg_database}")
    for statement in grants.strip().splitlines():
        postgres_server.execute(statement, database=pg_database)
    postgres_server.execute(f'CREATE ROLE "{alice}" LOGIN IN ROLE "op_{pg_database}"')
    as_alice = f"{base}&user={alice}" if "?" in base else f"{base}?user={alice}"
    reader = _store(as_alice)
    try:
        found = await reader.page(TeamQuery(reason="4312 CRED"))
        assert [x.local_id for x in found.entries] == [1]
    finally:
        await reader.close()


async def test_the_index_is_usable_for_the_page_statement(team_store: TeamStore) -> None:
    plan = page_plan(TeamQuery(reason="inc-4312"), None, 51)
    with psycopg.connect(team_store.target.url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")
        lines = conn.execute(("EXPLAIN " + plan.sql).encode(), plan.params)
        assert INDEX in "\n".join(str(r[0]) for r in lines)


async def test_migrate_from_version_5_rebuilds_the_index_with_linear_trigrams(
    pg_admin_url: str,
) -> None:
    """Schema 6 (#26): the function replaced, its index rebuilt, the reason bounded; a
    reason stored before, longer than the bound, stays and is still found in its tail."""
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA bottui")
        conn.execute(VERSIONS_TABLE)
        with conn.transaction():
            for version in range(1, 6):
                for statement in MIGRATIONS[version]:
                    conn.execute(statement.encode())
                conn.execute("INSERT INTO bottui.schema_versions (version) VALUES (%s)", (version,))
        long = "INC-88 " + "z" * 5000 + " Tail-Of-A-Long-One"
        conn.execute(
            "INSERT INTO bottui.journal_entries (origin, local_id, started_at, operator,"
            " host, profile, reason, base_url, account, project, operation, target)"
            " VALUES (%s, 1, %s, 'bob', 'h', 'prod', %s,"
            " 'u', 'acme', 'p', 'limiter.set-active', '{}')",
            (uuid4(), T0, long),
        )
    store = _store(pg_admin_url)
    try:
        done = await store.migrate()
        assert (done.before, done.applied) == (5, (6,))
        with psycopg.connect(pg_admin_url) as conn:
            language = conn.execute(
                "SELECT l.lanname FROM pg_proc AS p JOIN pg_language AS l ON l.oid = p.prolang"
                " WHERE p.oid = 'bottui.reason_trigrams(text)'::regprocedure"
            ).fetchone()
        assert language is not None and language[0] == "sql"
        # the index is searched (the trigram plan) and holds the old row's every trigram
        found = await store.page(TeamQuery(reason="tail-of-a-LONG"), limit=1)
        assert [e.local_id for e in found.entries] == [1]
        with psycopg.connect(pg_admin_url) as conn:
            conn.execute("SET enable_seqscan = off")
            sql = (
                "SELECT local_id FROM bottui.journal_entries WHERE reason IS NOT NULL"
                " AND bottui.reason_trigrams(reason) @> bottui.reason_trigrams(%s)"
            )
            plan = " ".join(r[0] for r in conn.execute(f"EXPLAIN {sql}", ("tail-of-a-long",)))
            assert "journal_entries_reason" in plan
            assert conn.execute(sql, ("tail-of-a-long",)).fetchall() == [(1,)]
        with psycopg.connect(pg_admin_url) as conn, pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                "INSERT INTO bottui.journal_entries (origin, local_id, started_at, operator,"
                " host, profile, reason, base_url, account, project, operation, target)"
                " VALUES (%s, 2, %s, 'bob', 'h', 'prod', %s,"
                " 'u', 'acme', 'p', 'limiter.set-active', '{}')",
                (uuid4(), T0, long),
            )
    finally:
        await store.close()
