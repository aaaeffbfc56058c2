"""One inventory (#13) from the command line: two operators, two homes, one PostgreSQL.

Alice disables a limiter; bob, whose home has never seen the project,
lists his inventory and finds the limiter OFF "from alice's change", in the
text and in ``--json`` (``taught_by``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import ACC, scope


def at_home(root: Path, who: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on the CLI runs as ``who``, in a home of their own."""
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        monkeypatch.setenv(var, str(root / who / sub))
    monkeypatch.setenv("BOTTUI_OPERATOR", who)


def limiter(doc: dict[str, Any], limiter_id: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [r for r in doc["limiters"] if r["id"] == limiter_id]
    assert len(found) == 1
    return found[0]


def test_bob_lists_the_state_alice_taught(
    tmp_path: Path, env: SandboxServer, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    at_home(tmp_path, "alice", monkeypatch)
    assert cli("store", "migrate").code == 0
    done = cli("limiter", "disable", "rl-login", *scope())
    assert done.code == 0, done.err
    assert done.err == ""
    at_home(tmp_path, "bob", monkeypatch)
    listed = cli("inventory", "list", "--json", "--account", ACC)
    assert listed.code == 0, listed.err
    doc = listed.json()
    seen = limiter(doc, "rl-login")
    assert seen["is_active"] is False
    assert seen["taught_by"] == "alice" and seen["source"] == "team:alice"
    assert [p["project"] for p in doc["projects"]] == ["shop-prod"]
    text = cli("inventory", "list", "--account", ACC)
    assert "limiter rl-login (Login bursts): OFF  (from alice's change, " in text.out
    # Alice's own list says nothing of a teammate: she taught it herself.
    at_home(tmp_path, "alice", monkeypatch)
    mine = limiter(cli("inventory", "list", "--json", "--account", ACC).json(), "rl-login")
    assert mine["taught_by"] is None


def test_a_store_that_is_down_lists_the_local_inventory_with_a_warning(
    tmp_path: Path, env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_STORE_URL", "postgresql://bottui@127.0.0.1:9/nowhere")
    at_home(tmp_path, "bob", monkeypatch)
    listed = cli("inventory", "list", "--account", ACC)
    assert listed.code == 0
    assert "warning: shared inventory: " in listed.err
    assert "Traceback" not in listed.err
