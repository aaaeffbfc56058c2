"""The playbook of docs/playbooks.md on a fresh set-up: ``show`` shows, ``config check`` warns.

``playbook run`` still refuses a step whose id the inventory has never seen
(it could not be reverted); showing the plan is not running it, and the
file itself is clean, so ``config check`` says it as a warning (exit 0).
"""

from __future__ import annotations

import re
from pathlib import Path

import platformdirs

from bottui.api.errors import EXIT_OK, EXIT_REFUSED
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope

#: The docs page with the playbook example (once in the README).
PLAYBOOKS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "playbooks.md"


def readme_playbook() -> str:
    """The ``playbooks/login-attack.toml`` example of docs/playbooks.md, as printed there."""
    text = PLAYBOOKS_PAGE.read_text(encoding="utf-8")
    found = re.search(r"```toml\n# playbooks/login-attack.toml\n(.*?)```", text, re.S)
    assert found is not None, "the playbook example of docs/playbooks.md moved"
    return found.group(1)


def write_example() -> Path:
    folder = Path(platformdirs.user_config_dir("bottui")) / "playbooks"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "login-attack.toml"
    path.write_text(readme_playbook(), encoding="utf-8")
    return path


def test_show_shows_and_config_check_warns_on_a_fresh_set_up(env: SandboxServer) -> None:
    path = write_example()
    shown = cli("playbook", "show", "login-attack", *scope())
    assert shown.code == EXIT_OK, shown.err
    assert "limiter rl-login: unknown -> ON" in shown.out
    assert "dimension bot-score: unknown -> " in shown.out
    assert "warning: step 1: the inventory has never seen limiter rl-login" in shown.err
    assert "playbook run refuses it" in shown.err

    checked = cli("config", "check", *scope())
    assert checked.code == EXIT_OK, checked.out + checked.err
    assert f"{path}:" in checked.out and "warning: step 2: the inventory has never seen" in (
        checked.out
    )
    assert "2 warnings" in checked.err
    as_json = cli("config", "check", "--json", *scope()).json()
    assert as_json["count"] == 0
    assert [w["message"][:6] for w in as_json["warnings"]] == ["step 1", "step 2"]

    refused = cli("playbook", "run", "login-attack", "--yes", *scope())
    assert refused.code == EXIT_REFUSED and "never seen limiter rl-login" in refused.err
    assert env.state.recorder.stats().requests == 0  # nothing was sent, nothing learnt


def test_config_check_is_quiet_once_the_inventory_knows(env: SandboxServer) -> None:
    write_example()
    assert cli("limiter", "disable", "rl-login", *scope()).code == EXIT_OK
    block = cli(
        "thresholds",
        "set",
        "bot-score",
        "--name",
        "Bot score",
        "--block",
        "0.8",
        "--challenge",
        "0.5",
        "--yes",
        *scope(),
    )
    assert block.code == EXIT_OK, block.err
    checked = cli("config", "check", "--json", *scope()).json()
    assert checked["warnings"] == []
