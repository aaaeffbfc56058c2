"""``bottui doctor``'s team store check, against a real PostgreSQL (pgserver) (#16)."""

from __future__ import annotations

import pytest

from bottui.sandbox.server import SandboxServer
from bottui.store.team.pg_schema import SCHEMA_VERSION
from tests.cli.helpers import cli
from tests.cli.test_doctor import checks
from tests.fixtures.sandbox import scope


def test_a_migrated_store_is_ok_and_counts_what_waits(
    env: SandboxServer, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    fresh = checks(cli("doctor", "--json", *scope()))["team-store"]
    assert fresh["verdict"] == "problem"
    assert f"schema version 0 (this bottui: {SCHEMA_VERSION})" in fresh["detail"]
    assert fresh["fix"] == "bottui store migrate"
    assert cli("store", "migrate").code == 0
    done = cli("doctor", "--json", *scope())
    team = checks(done)["team-store"]
    assert team["verdict"] == "ok", team
    assert f"schema version {SCHEMA_VERSION} (this bottui: {SCHEMA_VERSION})" in team["detail"]
    assert "0 entries not yet shared" in team["detail"]
    assert done.code == 0


def test_entries_not_yet_shared_warn(
    env: SandboxServer, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    assert cli("store", "migrate").code == 0
    assert cli("store", "sync").code == 0  # registers this journal as the store's outbox
    monkeypatch.setenv("BOTTUI_STORE_URL", "postgresql://bottui@127.0.0.1:9/bottui")
    # Journaled while the store is down: waits to be shared.
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    team = checks(cli("doctor", "--json", *scope()))["team-store"]
    assert team["verdict"] == "warning", team
    assert "bottui store sync" in team["fix"]


def test_an_unreachable_store_is_a_problem(
    env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """How fast: ``python -m tests.bench.doctor_timeouts``."""
    monkeypatch.setenv("BOTTUI_STORE_URL", "postgresql://bottui@127.0.0.1:9/bottui")
    done = cli("doctor", "--json", *scope())
    team = checks(done)["team-store"]
    assert team["verdict"] == "problem"
    assert "127.0.0.1:9" in team["detail"]
    assert done.code == 1


def test_solo_mode_skips_the_store(env: SandboxServer) -> None:
    team = checks(cli("doctor", "--json", *scope()))["team-store"]
    assert team["verdict"] == "skipped" and "solo mode" in team["detail"]
