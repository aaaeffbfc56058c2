"""Schema step 2 (#13 collision warning): from version 1, the target index is added."""

from __future__ import annotations

import psycopg

from bottui.store.team.schema import MIGRATIONS, SCHEMA_VERSION, VERSIONS_TABLE
from bottui.store.team.store import TeamStore
from bottui.store.team.target import check_store_url


async def test_migrate_from_version_1_adds_the_target_index(pg_admin_url: str) -> None:
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA bottui")
        conn.execute(VERSIONS_TABLE)
        with conn.transaction():
            for statement in MIGRATIONS[1]:
                conn.execute(statement)
            conn.execute("INSERT INTO bottui.schema_versions (version) VALUES (1)")
    store = TeamStore(check_store_url(pg_admin_url, {}), timeout=20)
    try:
        done = await store.migrate()
    finally:
        await store.close()
    assert (done.before, done.after, done.applied) == (1, SCHEMA_VERSION, (2,))
    with psycopg.connect(pg_admin_url) as conn:
        found = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'journal_entries_target'"
        ).fetchone()
    assert found is not None and "WHERE (run_id IS NULL)" in found[0]
