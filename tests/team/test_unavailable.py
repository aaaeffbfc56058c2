"""A database that goes away is one clear error, and the store recovers by itself (#13)."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from bottui.api.tokens import StorePassword
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.store_target import check_store_url
from bottui.store.team.team_errors import StoreUnavailable
from tests.cli.helpers import cli
from tests.fixtures.postgres import PostgresServer
from tests.team.events import entry


def _plain(error: BaseException) -> None:
    # never psycopg's exception, not even as the context a traceback would show
    assert error.__cause__ is None
    assert error.__suppress_context__


async def test_a_stopped_server_is_unavailable_then_recovers(
    team_store: TeamStore, postgres_server: PostgresServer
) -> None:
    await team_store.push([entry(1)])
    postgres_server.stop()
    try:
        for call in (team_store.push([entry(2)]), team_store.page(), team_store.status()):
            with pytest.raises(StoreUnavailable) as lost:
                await call
            _plain(lost.value)
            assert lost.value.title.startswith("The team store is unavailable")
        # no store configured: a refusal, not a crash
        done = await asyncio.to_thread(cli, "store", "status")
        assert done.code == 2
    finally:
        postgres_server.start()
    pushed = await team_store.push([entry(3)])
    assert pushed.entries == 1
    assert len((await team_store.page()).entries) == 2


async def test_a_stopped_server_through_the_cli_is_one_line(
    team_store: TeamStore, postgres_server: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_STORE_URL", team_store.target.url)
    await team_store.close()
    postgres_server.stop()
    try:
        done = await asyncio.to_thread(cli, "store", "status")
    finally:
        postgres_server.start()
    assert done.code == 2
    assert "The team store is unavailable" in done.err
    assert "Traceback" not in done.err


async def test_wrong_credentials_are_unavailable_without_the_password(
    team_store: TeamStore, postgres_server: PostgresServer, pg_database: str
) -> None:
    with psycopg.connect(team_store.target.url, autocommit=True) as conn:
        role = f"carol_{pg_database}"
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'right-one'".encode())
        conn.execute(f"GRANT USAGE ON SCHEMA bottui TO {role}".encode())
        conn.execute(f"GRANT SELECT ON bottui.schema_versions TO {role}".encode())
    url = postgres_server.tcp_url(pg_database, f"carol_{pg_database}")
    wrong = TeamStore(check_store_url(url, {}), password=StorePassword("wrong-pw-XYZ"))
    with pytest.raises(StoreUnavailable) as refused:
        await wrong.page()
    _plain(refused.value)
    assert "password authentication failed" in refused.value.title
    assert "wrong-pw-XYZ" not in refused.value.title + refused.value.details
    right = TeamStore(check_store_url(url, {}), password=StorePassword("right-one"))
    try:
        assert (await right.status()).role == f"carol_{pg_database}"
    finally:
        await right.close()
