"""Ids that look the same are told apart in text output, and kept exact in data (#10.5)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from bottui.plaintext import INVISIBLE, show_id
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import ACC, PROJ, scope

PLAIN = "rl-login"
LOOKALIKE = "rl-\u200blogin"  # a zero-width space after the dash
DIMENSION = "bot\u2060score\ufeff"  # a word joiner and a BOM


@pytest.fixture
def lookalikes(env: SandboxServer) -> SandboxServer:
    env.state.add_rate_limiter(ACC, PROJ, LOOKALIKE, "Look-alike")
    env.state.add_dimension(ACC, PROJ, DIMENSION, "Look-alike dimension")
    return env


def test_text_output_shows_invisible_characters(lookalikes: SandboxServer) -> None:
    r = cli("limiter", "disable", LOOKALIKE, *scope())
    assert r.code == 0, r.err
    assert "rate limiter rl-\\u200blogin: OFF" in r.out
    assert "limiter rl-\\u200blogin (Look-alike): OFF" in r.out
    assert "  limiter rl-login (" in r.out  # the plain one stays plain
    assert "\u200b" not in r.out
    r = cli(
        "thresholds", "set", DIMENSION, *scope(), "--name", "n", "--block", "0.9",
        "--challenge", "0.5",
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "dimension bot\\u2060score\\ufeff (n)" in r.out
    journal = cli("journal")
    assert "rl-\\u200blogin" in journal.out and "\u200b" not in journal.out
    listing = cli("inventory", "list")
    assert "limiter rl-\\u200blogin (Look-alike)" in listing.out
    assert "limiter rl-login" in listing.out


def test_data_outputs_keep_ids_exact(lookalikes: SandboxServer, tmp_path: Path) -> None:
    doc = cli("limiter", "disable", LOOKALIKE, *scope(), "--json").json()
    assert LOOKALIKE in [limiter["id"] for limiter in doc["rateLimits"]["rateLimits"]]
    entries = cli("journal", "--json").json()["entries"]
    assert entries[0]["target"] == {"rate_limiter_id": LOOKALIKE}
    inventory = cli("inventory", "list", "--json").json()
    assert LOOKALIKE in [limiter["id"] for limiter in inventory["limiters"]]
    toml = tmp_path / "inventory.toml"
    assert cli("inventory", "export", str(toml)).code == 0
    assert LOOKALIKE in toml.read_text(encoding="utf-8") or LOOKALIKE in json.dumps(
        tomllib.loads(toml.read_text(encoding="utf-8")), ensure_ascii=False
    )


@pytest.mark.parametrize("char", list(INVISIBLE))
def test_show_id_reveals_each_invisible_character(char: str) -> None:
    shown = show_id(f"a{char}b")
    assert shown == f"a\\u{ord(char):04x}b"
    assert show_id("a\\u200bb") != show_id("a\u200bb")  # the text of an escape stays apart
    assert show_id("C:\\dir") == "C:\\dir"
