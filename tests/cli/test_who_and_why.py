"""Who and why on the command line (issue #13): operator, --reason, require_reason, filters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bottui.demo import inventory_toml
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope

HOSTILE = "INC-4312 \x1b[2J[bold]x[/bold] '; DROP TABLE segments; -- " + "ü" * 200


def configure(base_url: str, *, require_reason: bool, operator: str | None = "alice") -> None:
    """A config with a top-level operator, and a profile (current) that may override it."""
    path = Locations.default().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ['operator = "team@top"', 'current = "prod"', "", '[profiles."prod"]']
    lines.append(f'base_url = "{base_url}"')
    if operator is not None:
        lines.append(f'operator = "{operator}"')
    if require_reason:
        lines.append("require_reason = true")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def journal(*argv: str) -> list[dict[str, Any]]:
    r = cli("journal", "--json", *argv)
    assert r.code == 0, r.err
    found: list[dict[str, Any]] = r.json()["entries"]
    return found


def test_a_reason_and_the_operator_reach_the_journal(env: SandboxServer) -> None:
    configure(env.base_url, require_reason=False)
    r = cli("limiter", "disable", "rl-login", *scope(), "--reason", HOSTILE)
    assert r.code == 0, r.err
    (entry,) = journal()
    assert entry["reason"] == HOSTILE and entry["operator"] == "alice"
    assert entry["host"] and entry["event_id"].endswith(f":{entry['id']}")
    # The table shows both, cleaned and cut short.
    shown = cli("journal").out
    assert "alice" in shown and "why: INC-4312 " in shown and "\x1b" not in shown
    assert "…" in shown and "ü" * 100 not in shown


def test_bottui_operator_wins_over_the_profile_and_the_profile_over_the_config(
    env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(env.base_url, require_reason=False, operator=None)
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0
    configure(env.base_url, require_reason=False)
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0
    monkeypatch.setenv("BOTTUI_OPERATOR", "bob@bastion-2")
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0
    assert [e["operator"] for e in journal()] == ["bob@bastion-2", "alice", "team@top"]
    assert [e["id"] for e in journal("--operator", "alice")] == [journal()[1]["id"]]
    assert journal("--operator", "ALICE") == []  # exact


@pytest.mark.parametrize(
    "argv",
    [
        ("limiter", "disable", "rl-login"),
        ("revoke", "--visitor-id", "v-1"),
        ("thresholds", "set", "bot-score", "--name", "B", "--block", "0.9", "--challenge", "0.5"),
    ],
)
def test_require_reason_refuses_before_sending(env: SandboxServer, argv: tuple[str, ...]) -> None:
    configure(env.base_url, require_reason=True)
    before = len(env.state.recorder.log)
    for reason in ((), ("--reason", "   ")):
        r = cli(*argv, *scope(), *reason)
        assert r.code == 2, r.err
        assert "Reason required" in r.err and "--reason" in r.err
    assert len(env.state.recorder.log) == before and journal() == []
    # A dry run shows the request and says it would be refused (exit 0, as every dry run).
    r = cli(*argv, *scope(), "--dry-run")
    assert r.code == 0 and "would be refused" in r.err and "curl" in r.out
    r = cli(*argv, *scope(), "--dry-run", "--json")
    assert r.code == 0 and "Reason required" in r.json()["wouldBeRefused"]
    assert len(env.state.recorder.log) == before
    r = cli(*argv, *scope(), "--reason", "INC-1")
    assert r.code == 0, r.err
    assert [e["reason"] for e in journal()] == ["INC-1"]


def test_undo_and_bulk_carry_the_reason_and_are_refused_without_one(
    env: SandboxServer, tmp_path: Path
) -> None:
    configure(env.base_url, require_reason=True)
    seed = tmp_path / "team.toml"
    seed.write_text(inventory_toml(), encoding="utf-8")
    assert cli("inventory", "import", str(seed)).code == 0  # the value before: undoable
    assert cli("limiter", "disable", "rl-login", *scope(), "--reason", "INC-1").code == 0
    before = len(env.state.recorder.log)
    r = cli("undo", "--yes")
    assert r.code == 2 and "Reason required" in r.err
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(f"v-{n}\n" for n in range(300)), encoding="utf-8")
    for extra in ((), ("--resume",)):
        r = cli("revoke", *scope(), "--from-file", str(ids), *extra)
        assert r.code == 2 and "Reason required" in r.err, r.err
    r = cli("revoke", *scope(), "--from-file", str(ids), "--dry-run")
    assert r.code == 0 and "would be refused" in r.err
    assert len(env.state.recorder.log) == before
    r = cli("undo", "--yes", "--reason", "INC-1 rollback")
    assert r.code == 0, r.err
    r = cli("revoke", *scope(), "--from-file", str(ids), "--reason", "INC-2 bulk")
    assert r.code == 0, r.err
    r = cli("revoke", *scope(), "--from-file", str(ids), "--resume", "--reason", "INC-2 again")
    assert r.code == 0, r.err
    bulk = journal("--reason", "inc-2 BULK", "--all")
    assert len(bulk) == 300 and {e["operator"] for e in bulk} == {"alice"}
    assert len({e["event_id"] for e in bulk}) == 300
    assert [e["reason"] for e in journal("--reason", "rollback")] == ["INC-1 rollback"]
    assert journal("--reason", "no such reason") == []
