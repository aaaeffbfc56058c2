"""Each CLI change is planned once, and what is sent or shown is that plan (issue #11).

Every request the client prepares and every plan :mod:`bottui.ops.planning`
makes is counted: ``limiter``, ``revoke``, ``thresholds set`` and ``undo``
plan exactly one change, with or without ``--dry-run``; the bytes the
sandbox receives are the plan's request, and ``--dry-run`` prints the
plan's own :meth:`~bottui.ops.planning.PlannedChange.dry_run_lines`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bottui.demo import inventory_toml
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.plan_spy import Spy
from tests.fixtures.sandbox import scope

COMMANDS: dict[str, list[str]] = {
    "limiter": ["limiter", "disable", "rl-login", *scope()],
    "revoke": ["revoke", "--visitor-id", "vis_7Hq2kP9xLm", *scope()],
    "thresholds": [
        "thresholds",
        "set",
        "bot-score",
        *scope(),
        "--name",
        "Bot score",
        "--block",
        "0.9",
        "--challenge",
        "0.6",
    ],
    "undo": ["undo", "--yes"],
}


def _prepare_undo(kind: str, tmp_path: Path, spy: Spy, env: SandboxServer) -> None:
    """For ``undo``: a known limiter state, then a change to undo."""
    if kind != "undo":
        return
    seed = tmp_path / "team.toml"
    seed.write_text(inventory_toml(), encoding="utf-8")
    assert cli("inventory", "import", str(seed)).code == 0
    assert cli(*COMMANDS["limiter"]).code == 0
    spy.reset()
    env.state.recorder.reset()


@pytest.mark.parametrize("kind", sorted(COMMANDS))
def test_a_change_is_planned_once_and_the_plan_is_sent(
    kind: str, env: SandboxServer, spy: Spy, tmp_path: Path
) -> None:
    _prepare_undo(kind, tmp_path, spy, env)
    r = cli(*COMMANDS[kind])
    assert r.code == 0, r.err
    [plan] = spy.plans
    assert spy.prepared == [plan.request]
    [received] = env.state.recorder.log
    assert received.method == plan.request.method
    assert received.body == plan.request.body
    assert plan.request.url.endswith(received.raw_path)


@pytest.mark.parametrize("kind", sorted(COMMANDS))
def test_a_dry_run_prints_the_one_plan(
    kind: str, env: SandboxServer, spy: Spy, tmp_path: Path
) -> None:
    _prepare_undo(kind, tmp_path, spy, env)
    argv = [a for a in COMMANDS[kind] if a != "--yes"]
    r = cli(*argv, "--dry-run")
    assert r.code == 0, r.err
    [plan] = spy.plans
    assert spy.prepared == [plan.request]
    assert env.state.recorder.log == []
    printed = r.out.splitlines()
    lines = plan.dry_run_lines()
    assert printed[-len(lines) :] == lines
