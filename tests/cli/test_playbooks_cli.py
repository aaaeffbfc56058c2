"""``bottui playbook``: dry run with every step's request and curl, refusals with file:line, run."""

from __future__ import annotations

import json
from pathlib import Path

import platformdirs

from bottui.api.errors import EXIT_OK, EXIT_REFUSED
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope

BOOK = (
    '[[steps]]\nlimiter = "rl-search"\naction = "enable"\n\n'
    '[[steps]]\nlimiter = "rl-api"\naction = "enable"\n'
)


def learn() -> None:
    """The inventory learns both limiters from a change's answer (docs/playbooks.md's remedy)."""
    for limiter in ("rl-search", "rl-api"):
        assert cli("limiter", "disable", limiter, *scope()).code == EXIT_OK


def write(name: str, text: str) -> Path:
    folder = Path(platformdirs.user_config_dir("bottui")) / "playbooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.toml").write_text(text, encoding="utf-8")
    return folder / f"{name}.toml"


def test_a_bad_file_is_refused_with_file_and_line(env: SandboxServer) -> None:
    path = write("bad", BOOK.replace('action = "enable"\n\n', 'action = "enabel"\n\n'))
    done = cli("playbook", "show", "bad", *scope())
    assert done.code == EXIT_REFUSED
    assert f"{path}:3: step 1: action must be" in done.err
    listed = cli("playbook", "list", "--json")
    assert listed.code == EXIT_OK and "bad.toml:3" in listed.json()["playbooks"][0]["error"]


def test_dry_run_prints_every_request_and_curl(env: SandboxServer) -> None:
    write("scrape", BOOK)
    learn()
    done = cli("playbook", "run", "scrape", "--dry-run", *scope())
    assert done.code == EXIT_OK, done.err
    assert done.out.count("curl ") == 2 and "step 2: limiter rl-api" in done.out
    assert "nothing was sent" in done.err
    as_json = cli("playbook", "run", "scrape", "--dry-run", "--json", *scope()).json()
    assert [len(s["requests"]) for s in as_json["steps"]] == [1, 1]
    assert env.state.recorder.stats().requests == 2  # the two of learn()


def test_run_with_yes_and_revert(env: SandboxServer) -> None:
    write("scrape", BOOK)
    learn()
    done = cli("playbook", "run", "scrape", "--yes", "--json", "--reason", "INC-9", *scope())
    assert done.code == EXIT_OK, done.err
    run_id = done.json()["runId"]
    assert [s["state"] for s in done.json()["steps"]] == ["done", "done"]
    journal = cli("journal", "--run", str(run_id), "--json", *scope())
    assert journal.code == EXIT_OK and len(json.dumps(journal.json())) > 0
    back = cli("playbook", "revert", str(run_id), "--yes", "--json", *scope())
    assert back.code == EXIT_OK, back.err
    assert [s["what"] for s in back.json()["steps"]] == [
        "rate limiter rl-api",
        "rate limiter rl-search",
    ]


def test_without_a_terminal_or_yes_nothing_is_sent(env: SandboxServer) -> None:
    write("scrape", BOOK)
    learn()
    done = cli("playbook", "run", "scrape", *scope())
    assert done.code == EXIT_REFUSED and "pass --yes" in done.err
    assert env.state.recorder.stats().requests == 2  # the two of learn()
