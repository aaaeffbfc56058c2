"""``thresholds set`` with only what changes: the rest from the inventory, said (#27)."""

from __future__ import annotations

from bottui.api.errors import EXIT_OK, EXIT_REFUSED
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope


def puts(env: SandboxServer) -> list[object]:
    return [r.json for r in env.state.recorder.log if r.method == "PUT"]


def test_one_number_changes_the_others_are_taken_from_the_inventory(
    env: SandboxServer,
) -> None:
    first = cli(
        "thresholds", "set", "bot-score", "--name", "Bot score", "--block", "0.8",
        "--challenge", "0.5", *scope(),
    )  # fmt: skip
    assert first.code == EXIT_OK, first.err
    done = cli("thresholds", "set", "bot-score", "--block", "0.9", *scope(), "--json")
    assert done.code == EXIT_OK, done.err
    assert puts(env)[-1] == {"name": "Bot score", "blockThreshold": 0.9, "challengeThreshold": 0.5}
    assert "taken from the inventory" in done.err
    assert "name 'Bot score', challenge 0.5" in done.err
    assert "block" not in done.err.split("taken from the inventory")[1]


def test_a_value_the_inventory_does_not_know_is_refused_and_named(env: SandboxServer) -> None:
    done = cli("thresholds", "set", "never-seen", "--block", "0.9", *scope())
    assert done.code == EXIT_REFUSED
    assert "give --name, --challenge" in done.err
    nothing = cli("thresholds", "set", "bot-score", *scope())
    assert nothing.code == EXIT_REFUSED and "--name, --block and/or --challenge" in nothing.err
    assert puts(env) == []
