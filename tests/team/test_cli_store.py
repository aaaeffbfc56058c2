"""``bottui store migrate|status`` and ``bottui token set|delete store`` (#13)."""

from __future__ import annotations

import json

import pytest
from keyring.backends import fail

from bottui.store.team.pg_schema import SCHEMA_VERSION
from bottui.store.token_sources import SERVICE
from tests.cli.helpers import cli
from tests.fixtures.keyrings import InMemoryKeyring, installed


def test_migrate_twice_then_status(pg_admin_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    first = cli("store", "migrate")
    assert first.code == 0, first.err
    assert f"from version 0 to {SCHEMA_VERSION}" in first.out
    again = cli("store", "migrate", "--json")
    assert again.json()["applied"] == []
    status = cli("store", "status")
    assert status.code == 0
    assert f"schema version: {SCHEMA_VERSION} (this bottui: {SCHEMA_VERSION})" in status.out
    assert "entries waiting to be shared: 0" in status.out
    assert "last sync: never" in status.out


def test_status_without_a_store_says_how_to_name_one() -> None:
    done = cli("store", "status")
    assert done.code == 2
    assert "No team store is configured" in done.err


def test_the_store_password_is_kept_under_the_url(
    memory_keyring: InMemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = "postgresql://alice@DB.internal/bottui?sslmode=verify-full"
    monkeypatch.setenv("BOTTUI_STORE_URL", url)
    stored = cli("token", "set", "store", stdin="pw-abc-123\n")
    assert stored.code == 0, stored.err
    assert "pw-abc-123" not in stored.out + stored.err
    username = json.dumps(["store", "postgresql://alice@db.internal/bottui?sslmode=verify-full"])
    assert memory_keyring.get_password(SERVICE, username) == "pw-abc-123"
    assert cli("token", "delete", "store").out.strip() == "deleted the store password"
    assert memory_keyring.get_password(SERVICE, username) is None


def test_no_keyring_leaves_the_password_to_libpq(
    pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An SSH host without a keyring backend still reaches its store (~/.pgpass & co.)."""
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    with installed(fail.Keyring()):  # type: ignore[no-untyped-call]
        assert cli("store", "migrate").code == 0
        status = cli("store", "status")
    assert status.code == 0, status.err
    assert "keyring" not in status.err.lower()
