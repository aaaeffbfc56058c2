"""A store URL is checked before anything connects: no password, verified TLS off loopback (#13)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from bottui.store.config.config_file import ConfigStore
from bottui.store.files import Locations
from bottui.store.store_errors import ConfigError
from bottui.store.team import resolve_store_url, store_target
from bottui.store.team.store_target import check_store_url
from bottui.store.team.team_errors import INSTALL_TEAM, StoreRefused, TeamModeNotInstalled
from tests.cli.helpers import cli

SECRET = "hunter2-Zq9"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://bottui:{SECRET}@db.internal/bottui?sslmode=verify-full",
        f"postgresql://bottui@db.internal/bottui?sslmode=verify-full&password={SECRET}",
        f"postgres://bottui:{SECRET}@127.0.0.1/bottui",
    ],
)
def test_a_url_carrying_a_password_is_refused_without_showing_it(url: str) -> None:
    with pytest.raises(StoreRefused) as refused:
        check_store_url(url, {})
    assert "password" in refused.value.title
    assert "bottui token set store" in refused.value.details
    assert SECRET not in refused.value.title + refused.value.details


def test_the_environment_url_with_a_password_is_refused_by_the_cli(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BOTTUI_STORE_URL", f"postgresql://bottui:{SECRET}@127.0.0.1/bottui")
    done = cli("store", "status")
    assert done.code == 2
    assert "carries a password" in done.err
    assert SECRET not in done.out + done.err


def test_a_config_store_with_a_password_is_refused_without_showing_it(
    isolated_home: Path,
) -> None:
    locations = Locations.default()
    locations.config_file.parent.mkdir(parents=True, exist_ok=True)
    locations.config_file.write_text(
        '[profiles.prod]\nbase_url = "https://api.example.com"\n'
        f'store = "postgresql://bottui:{SECRET}@db.internal/bottui?sslmode=verify-full"\n'
    )
    with pytest.raises(ConfigError) as refused:
        ConfigStore(locations).load()
    assert "cannot carry a password" in str(refused.value) + refused.value.details
    assert SECRET not in str(refused.value) + refused.value.details


@pytest.mark.parametrize(
    ("url", "environ"),
    [
        ("postgresql://bottui@db.internal/bottui", {}),
        ("postgresql://bottui@db.internal/bottui?sslmode=require", {}),
        ("postgresql://bottui@db.internal/bottui?sslmode=verify-ca", {}),
        ("postgresql://bottui@db.internal/bottui", {"PGSSLMODE": "require"}),
        ("postgresql://bottui@db.internal/bottui", {"PGSSLMODE": "disable"}),
        ("postgresql://bottui@db.internal/bottui?sslmode=prefer", {"PGSSLMODE": "verify-full"}),
        ("postgresql://bottui@/bottui", {"PGHOST": "db.internal"}),
        ("postgresql://bottui@127.0.0.1,db.internal/bottui", {}),
        ("postgresql://bottui@10.0.0.5/bottui", {}),
        ("postgresql://bottui@localhost/bottui?hostaddr=10.0.0.5", {}),
    ],
)
def test_off_loopback_anything_but_verify_full_is_refused(
    url: str, environ: dict[str, str]
) -> None:
    with pytest.raises(StoreRefused) as refused:
        check_store_url(url, environ)
    assert "verify-full is required" in refused.value.title


def test_a_service_file_counts_before_pgsslmode(tmp_path: Path) -> None:
    services = tmp_path / "services.conf"
    services.write_text("[team]\nhost=db.internal\nsslmode=disable\n")
    environ = {"PGSERVICEFILE": str(services), "PGSSLMODE": "verify-full"}
    with pytest.raises(StoreRefused):
        check_store_url("postgresql://bottui@/bottui?service=team", environ)
    with pytest.raises(StoreRefused):
        check_store_url("postgresql://bottui@/bottui", {**environ, "PGSERVICE": "team"})
    services.write_text("[team]\nhost=db.internal\nsslmode=verify-full\n")
    found = check_store_url("postgresql://bottui@/bottui", {**environ, "PGSERVICE": "team"})
    assert found.pinned == {"host": "db.internal", "sslmode": "verify-full"}


@pytest.mark.parametrize(
    ("url", "environ"),
    [
        ("postgresql://bottui@db.internal/bottui?sslmode=verify-full", {}),
        ("postgresql://bottui@db.internal/bottui", {"PGSSLMODE": "verify-full"}),
        ("postgresql://bottui@db.internal/bottui?sslmode=verify-full", {"PGSSLMODE": "disable"}),
    ],
)
def test_verify_full_off_loopback_is_accepted_and_pinned(url: str, environ: dict[str, str]) -> None:
    found = check_store_url(url, environ)
    assert not found.loopback
    assert found.pinned["sslmode"] == "verify-full"


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://bottui@127.0.0.1/bottui",
        "postgresql://bottui@127.8.0.1:6543/bottui?sslmode=disable",
        "postgresql://bottui@[::1]/bottui",
        "postgresql://bottui@localhost/bottui",
        "postgresql://bottui@/bottui",
        "postgresql://bottui@/bottui?host=/var/run/postgresql",
        "postgresql://bottui@db.internal/bottui?hostaddr=127.0.0.1",
    ],
)
def test_loopback_and_unix_sockets_need_no_tls(url: str) -> None:
    assert check_store_url(url, {}).loopback


def test_other_schemes_are_refused() -> None:
    with pytest.raises(StoreRefused, match="postgresql://"):
        check_store_url("mysql://bottui@127.0.0.1/bottui", {})


def test_the_environment_wins_and_the_demo_reads_neither() -> None:
    env = {"BOTTUI_STORE_URL": "postgresql://env@127.0.0.1/b"}
    assert resolve_store_url("postgresql://profile@127.0.0.1/b", env) == env["BOTTUI_STORE_URL"]
    assert resolve_store_url("postgresql://profile@127.0.0.1/b", {}) == (
        "postgresql://profile@127.0.0.1/b"
    )
    assert resolve_store_url("postgresql://profile@127.0.0.1/b", env, demo=True) is None
    assert resolve_store_url(None, {}) is None


def test_without_psycopg_the_message_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "psycopg" else real(name, *args)

    monkeypatch.setattr(store_target.importlib.util, "find_spec", find_spec)
    with pytest.raises(TeamModeNotInstalled) as refused:
        check_store_url("postgresql://bottui@127.0.0.1/bottui", {})
    assert INSTALL_TEAM in refused.value.details
    monkeypatch.setenv("BOTTUI_STORE_URL", "postgresql://bottui@127.0.0.1/bottui")
    done = cli("store", "status")
    assert done.code == 2 and "pip install 'bottui[team]'" in done.err


def test_the_keyring_username_is_the_url_without_password() -> None:
    found = check_store_url("postgresql://bottui@DB.internal/bottui?sslmode=verify-full", {})
    assert json.loads(found.keyring_username) == [
        "store",
        "postgresql://bottui@db.internal/bottui?sslmode=verify-full",
    ]
