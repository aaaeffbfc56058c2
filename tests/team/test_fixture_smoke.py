"""The PostgreSQL fixture gives a server, a fresh database, and can stop and start it."""

from __future__ import annotations

import psycopg

from tests.fixtures.postgres import PostgresServer


def test_fresh_database_and_restart(postgres_server: PostgresServer, pg_admin_url: str) -> None:
    with psycopg.connect(pg_admin_url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname='public'").fetchone() == (0,)
    postgres_server.stop()
    assert not postgres_server.running()
    postgres_server.start()
    with psycopg.connect(pg_admin_url) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
