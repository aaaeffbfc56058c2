"""Schema step 2 (#13 collision warning): from version 1, the target index is added."""

from __future__ import annotations

import psycopg

from bottui.store.team.pg_schema import MIGRATIONS, SCHEMA_VERSION, VERSIONS_TABLE
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.store_target import check_store_url


async def test_migrate_from_version_1_adds_the_target_index(pg_admin_url: str) -> None:
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA bottui")
        conn.execute(VERSIONS_TABLE)
        with conn.transaction():
            for statement in MIGRATIONS[1]:
                conn.execute(statement)
            conn.execute("INSERT INTO bottui.schema_versions (version) VALUES (1)")
    store = TeamStore(check_store_url(pg_admin_url, {}), timeout=120)
    try:
        done = await store.migrate()
    finally:
        await store.close()
    assert (done.before, done.after, done.applied) == (
        1,
        SCHEMA_VERSION,
        tuple(range(2, SCHEMA_VERSION + 1)),
    )
    with psycopg.connect(pg_admin_url) as conn:
        found = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'journal_entries_target'"
        ).fetchone()
    assert found is not None and "WHERE (run_id IS NULL)" in found[0]


async def test_recent_changes_are_read_on_the_target_index(team_store: TeamStore) -> None:
    from datetime import UTC, datetime
    from uuid import uuid4

    from bottui.store.team.page_query import recent_sql
    from tests.team.events import entry

    origin = uuid4()
    now = datetime.now(UTC)
    await team_store.push(
        [
            entry(1, origin, started_at=now),
            entry(2, origin, started_at=now, target={"rate_limiter_id": "rl-other"}),
            entry(3, origin, started_at=now, run_id=7, item_key="k"),
        ]
    )
    found = await team_store.recent(
        "https://api.example.com", "acme", "shop-prod", {"rate_limiter_id": "rl-login"}, seconds=900
    )
    assert [e.local_id for e in found] == [1]
    sql, params = recent_sql(
        "https://api.example.com", "acme", "shop-prod", {"rate_limiter_id": "rl-login"}, 900
    )
    with psycopg.connect(team_store.target.url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(r[0] for r in conn.execute(("EXPLAIN " + sql).encode(), params))
    assert "journal_entries_target" in plan
