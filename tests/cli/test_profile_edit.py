"""``bottui profile add`` has the TUI form's options; ``profile edit`` changes some (#27)."""

from __future__ import annotations

import tomllib

import pytest

from bottui.api.errors import EXIT_OK, EXIT_REFUSED
from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_PROJECT_TOKENS
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from tests.cli.helpers import cli
from tests.fixtures.sandbox import ACC, PROJ


def profile_table(name: str) -> dict[str, object]:
    text = Locations.default().config_file.read_text(encoding="utf-8")
    table: dict[str, object] = tomllib.loads(text)["profiles"][name]
    return table


def test_add_with_every_option_of_the_form_then_edit_some(
    sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", DEMO_ACCESS_TOKEN)
    monkeypatch.setenv("BOTTUI_API_KEY", DEMO_PROJECT_TOKENS[PROJ])
    added = cli(
        "profile", "add", "lab", "--base-url", sandbox.base_url,
        "--account", ACC, "--project", PROJ,
        "--require-reason", "--operator", "alice",
        "--store", "postgresql://bottui@db.example.com/team",
    )  # fmt: skip
    assert added.code == EXIT_OK, added.err
    table = profile_table("lab")
    assert table["require_reason"] is True and table["operator"] == "alice"
    assert table["store"] == "postgresql://bottui@db.example.com/team"

    # A password in the store URL is refused, as in the form.
    bad = cli("profile", "edit", "lab", "--store", "postgresql://bob:pw@db/x")
    assert bad.code == EXIT_REFUSED
    assert profile_table("lab")["store"] == "postgresql://bottui@db.example.com/team"

    # One option changes; every other one stays.
    edited = cli("profile", "edit", "lab", "--store", "", "--json")
    assert edited.code == EXIT_OK, edited.err
    doc = edited.json()
    assert doc["store"] is None and doc["operator"] == "alice" and doc["requireReason"]
    assert (doc["account"], doc["project"], doc["baseUrl"]) == (ACC, PROJ, sandbox.base_url)

    # require_reason works over loopback: refused without a reason, sent with one.
    refused = cli("limiter", "enable", "rl-api")
    assert refused.code == EXIT_REFUSED and "reason" in refused.err.lower()
    assert cli("limiter", "enable", "rl-api", "--reason", "INC-1").code == EXIT_OK
    cli("profile", "edit", "lab", "--no-require-reason", "--protected")
    table = profile_table("lab")
    assert table.get("require_reason", False) is False and table["protected"] is True
    assert cli("limiter", "disable", "rl-api", "--yes").code == EXIT_OK


def test_edit_refuses_an_unknown_profile_and_contradicting_flags() -> None:
    cli("profile", "add", "lab", "--base-url", "https://api.example.com")
    unknown = cli("profile", "edit", "lba", "--protected")
    assert unknown.code == EXIT_REFUSED and "did you mean 'lab'" in unknown.err
    both = cli("profile", "edit", "lab", "--protected", "--no-protected")
    assert both.code == EXIT_REFUSED
