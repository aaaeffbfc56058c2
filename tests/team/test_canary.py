"""A canary: every table of the shared database, dumped, holds no token or password (#13)."""

from __future__ import annotations

import asyncio
import json

import psycopg
import pytest

from bottui.api.models import LimiterChange, LimiterStateSource, Project
from bottui.api.tokens import AccessToken
from bottui.ops import team_facts
from bottui.ops.team_push import open_team_store
from bottui.store.keyring_tokens import TokenStore
from bottui.store.team.push_events import Fact, FactKey
from tests.cli.helpers import cli
from tests.fixtures.postgres import PostgresServer
from tests.team.events import entry, outcome

PASSWORD = "canary-store-password-7Gq"
TOKEN = "pat_canary_token_5Kd"
SERVER_KEY = "sk_canary_server_key_3Zp"


async def test_no_secret_reaches_any_table(
    postgres_server: PostgresServer,
    pg_admin_url: str,
    pg_database: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    role = f"dora_{pg_database}"
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN SUPERUSER PASSWORD '{PASSWORD}'".encode())
    url = postgres_server.tcp_url(pg_database, role)
    monkeypatch.setenv("BOTTUI_STORE_URL", url)
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", TOKEN)
    stored = await asyncio.to_thread(cli, "token", "set", "store", stdin=PASSWORD + "\n")
    assert stored.code == 0, stored.err
    migrated = await asyncio.to_thread(cli, "store", "migrate", "--json")
    assert migrated.code == 0, migrated.err
    store = await open_team_store(None, {"BOTTUI_STORE_URL": url}, TokenStore())
    try:
        with pytest.raises(TypeError):
            await store.push([entry(1, request_body={"token": AccessToken(TOKEN)})])
        sent = entry(
            2,
            request_body={"serverKey": SERVER_KEY, "nested": [{"server_key": SERVER_KEY}]},
            previous={"ServerKey": SERVER_KEY},
        )
        await store.push([sent, outcome(sent, result={"serverKey": SERVER_KEY})])
        # The shared inventory: a token is refused before anything is sent, and
        # what a limiter change taught (its answer held the server key) is shared
        # without the key.
        key = FactKey("http://x", "a", "p", "limiter", "rl", "name")
        with pytest.raises(TypeError):
            await store.put_facts([Fact(key, AccessToken(TOKEN), "dora")])  # type: ignore[arg-type]
        answer = Project.from_json(
            {"name": "Shop", "serverKey": SERVER_KEY,
             "rateLimits": {"rateLimits": [{"id": "rl", "name": "n", "isActive": True}]}}
        )  # fmt: skip
        change = LimiterChange("rl", False, LimiterStateSource.RESPONSE, answer)
        taught = [
            Fact(FactKey("http://x", *item[:5]), item[5], "dora")
            for item in team_facts.limiter_change("a", "p", change)
        ]
        assert await store.put_facts(taught) > 0
        status = await asyncio.to_thread(cli, "store", "status", "--json")
        assert status.code == 0
        shown = status.json()
        assert shown["where"] == url and shown["waiting"] == 0 and shown["lastSync"] is None
    finally:
        await store.close()
    dumped = []
    with psycopg.connect(pg_admin_url) as conn:
        tables = conn.execute(
            "SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN"
            " ('pg_catalog', 'information_schema')"
        ).fetchall()
        assert ("bottui", "journal_entries") in tables
        assert ("bottui", "inventory_facts") in tables
        for schema, table in tables:
            with conn.cursor().copy(f'COPY "{schema}"."{table}" TO STDOUT'.encode()) as copy:
                dumped.append(b"".join(bytes(chunk) for chunk in copy).decode())
    text = "\n".join(dumped)
    assert "Shop" in text  # the facts are in the dump
    assert "***" in text  # the masked server keys are there
    for secret in (PASSWORD, TOKEN, SERVER_KEY):
        assert secret not in text
        assert json.dumps(secret)[1:-1] not in text
    assert PASSWORD not in migrated.out + migrated.err + status.out + status.err
