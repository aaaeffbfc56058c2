"""The CLI against answers that cannot be used as they are (``hostileBody`` of the sandbox).

An unexpected status or a body that is not UTF-8 is quoted with its
serverKey masked (stderr and journal); NaN, infinities and huge integers are
data and the outcome is recorded; an answer that lists the limiter in the
other state than the one asked is said to contradict the request (exit 1).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import platformdirs
import pytest

from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import Result, cli
from tests.fixtures.sandbox import ACC, PROJ, scope

BOOK = '[[steps]]\nlimiter = "rl-login"\naction = "disable"\n'


def server_key(sandbox: SandboxServer) -> str:
    project = sandbox.state.project_json(ACC, PROJ)
    assert project is not None
    key = project["serverKey"]
    assert isinstance(key, str) and len(key) > 8
    return key


def journal_text() -> str:
    """Every entry of the journal, as ``journal --json --show-secrets`` would not: as stored."""
    done = cli("journal", "--json")
    assert done.code == 0, done.err
    return done.out


def playbook(name: str = "off") -> None:
    folder = Path(platformdirs.user_config_dir("bottui")) / "playbooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.toml").write_text(BOOK, encoding="utf-8")


def _at(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).isoformat()


@pytest.mark.parametrize("kind", ["status999", "not_utf8"])
def test_an_unusable_answer_is_quoted_without_the_server_key(env: SandboxServer, kind: str) -> None:
    key = server_key(env)
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0  # learned: ON
    env.faults.configure(hostile_body=kind)
    runs: list[Result] = [
        cli("limiter", "disable", "rl-login", *scope()),
        cli("limiter", "disable", "rl-login", *scope(), "--json"),
    ]
    playbook()
    runs.append(cli("playbook", "run", "off", "--yes", *scope()))
    env.faults.configure(hostile_body="off")
    assert cli("limiter", "disable", "rl-login", "--for", "10m", *scope()).code == 0
    env.faults.configure(hostile_body=kind)
    runs.append(cli("run-due", "--now", _at(timedelta(minutes=11)), *scope()))
    assert [r.code for r in runs] == [1, 1, 1, 1], [r.err for r in runs]
    assert "***" in runs[0].err  # the body was quoted, its key masked
    texts = [r.out + r.err for r in runs] + [journal_text()]
    assert not [text for text in texts if key in text]
    assert all("Traceback" not in text for text in texts)


@pytest.mark.parametrize("kind", ["nan", "huge_int"])
def test_odd_numbers_are_data_and_the_outcome_is_recorded(
    env: SandboxServer, tmp_path: Path, kind: str
) -> None:
    env.faults.configure(hostile_body=kind)
    limiter = cli("limiter", "disable", "rl-login", *scope(), "--json")
    revoke = cli("revoke", "--visitor-id", "vis_7Hq2kP9xLm", *scope(), "--json")
    thresholds = cli(
        "thresholds", "set", "bot-score", *scope(), "--name", "Bot score",
        "--block", "0.9", "--challenge", "0.5", "--json",
    )  # fmt: skip
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(f"v-{n}\n" for n in range(4)), encoding="utf-8")
    bulk = cli("revoke", "--from-file", str(ids), *scope(), "--json")
    for done in (limiter, revoke, thresholds, bulk):
        assert done.code == 0, done.err
        json.loads(done.out)  # one valid document
    odd = "NaN" if kind == "nan" else "7" * 100
    assert odd in limiter.out  # kept as text
    entries = cli("journal", "--json").json()["entries"]
    assert len(entries) == 7
    assert all(e["outcome"] and not e["unfinished"] for e in entries), entries


def test_the_opposite_state_contradicts_the_request(env: SandboxServer) -> None:
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0
    env.faults.configure(hostile_body="opposite")
    done = cli("limiter", "disable", "rl-login", *scope())
    assert done.code == 1
    assert "contradicts" in done.err and "asked OFF" in done.err and "lists it ON" in done.err
    as_json = cli("limiter", "disable", "rl-login", *scope(), "--json")
    assert as_json.code == 1
    assert as_json.json()["error"]["code"] == "contradicting_answer"
    last = cli("journal", "--json").json()["entries"][0]  # newest first
    assert last["outcome"] == "unusable-body"
    assert last["error"]["code"] == "contradicting_answer"


def test_run_due_says_when_the_answer_contradicts_the_revert(env: SandboxServer) -> None:
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0
    assert cli("limiter", "disable", "rl-login", "--for", "10m", *scope()).code == 0
    env.faults.configure(hostile_body="opposite")
    due = cli("run-due", "--now", _at(timedelta(minutes=11)), *scope())
    assert due.code == 1, (due.out, due.err)
    assert "back to ON" not in due.out
    assert "contradicts" in due.out + due.err


def test_playbook_run_says_when_the_answer_contradicts_a_step(env: SandboxServer) -> None:
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0
    playbook()
    env.faults.configure(hostile_body="opposite")
    done = cli("playbook", "run", "off", "--yes", *scope())
    assert done.code == 1
    assert "contradicts" in done.out + done.err
