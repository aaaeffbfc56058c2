"""``bottui thresholds set`` checks what the TUI checks, with the same code.

A challenge that can never be reached: a warning on stderr, and the update
is sent. A threshold outside the project's range (config.toml, default 0 to
1): refused with exit 2 and nothing sent, unless ``--force``.
"""

from __future__ import annotations

import json

import pytest

from bottui.ops.thresholds import OutOfRange, check_rules
from bottui.sandbox.server import SandboxServer
from bottui.store.config.config_file import ConfigStore
from bottui.store.config.config_model import Profile, ProjectSettings
from bottui.store.files import Locations
from bottui.store.inventory.inventory_records import DimensionEntry
from bottui.tui.screens.thresholds_screen import check_words
from tests.cli.helpers import cli
from tests.fixtures.sandbox import ACC, PROJ, scope


def set_thresholds(block: str, challenge: str, *extra: str) -> tuple[int, str, str]:
    r = cli(
        "thresholds",
        "set",
        "bot-score",
        *scope(),
        "--name",
        "Bot score",
        "--block",
        block,
        "--challenge",
        challenge,
        *extra,
    )
    assert "Traceback" not in r.err
    return r.code, r.out, r.err


def sent_bodies(env: SandboxServer) -> list[dict[str, object]]:
    return [json.loads(rec.body) for rec in env.state.recorder.log if rec.method == "PUT"]


def configure(env: SandboxServer, settings: ProjectSettings) -> None:
    ConfigStore(Locations.default()).add_profile(
        Profile(name="p", base_url=env.base_url, projects={(ACC, PROJ): settings})
    )
    ConfigStore(Locations.default()).use("p")


def test_out_of_range_is_refused_and_nothing_is_sent(env: SandboxServer) -> None:
    code, out, err = set_thresholds("5", "-3")
    assert code == 2, err
    assert "outside the project's range" in err
    assert "block threshold 5 and challenge threshold -3" in err
    assert "between 0 and 1" in err and "--force" in err
    assert out == ""
    assert env.stats.requests == 0


def test_force_sends_out_of_range_and_says_so(env: SandboxServer) -> None:
    code, _, err = set_thresholds("5", "-3", "--force")
    assert code == 0, err
    assert "warning: block threshold 5 and challenge threshold -3 outside" in err
    assert sent_bodies(env) == [
        {"name": "Bot score", "blockThreshold": 5, "challengeThreshold": -3}
    ]


def test_dry_run_is_refused_too(env: SandboxServer) -> None:
    code, _, err = set_thresholds("0.5", "1.5", "--dry-run")
    assert code == 2 and "challenge threshold 1.5" in err
    assert env.stats.requests == 0


def test_a_challenge_never_reached_warns_on_stderr_and_sends(env: SandboxServer) -> None:
    code, out, err = set_thresholds("0.5", "0.7")
    assert code == 0, err
    assert "warning: challenge >= block" in err and "never reached" in err
    assert "never reached" not in out
    assert len(sent_bodies(env)) == 1


def test_a_reachable_challenge_in_range_is_silent(env: SandboxServer) -> None:
    code, _, err = set_thresholds("0.8", "0.5")
    assert code == 0 and err == ""


def test_the_project_range_and_direction_come_from_the_config(env: SandboxServer) -> None:
    configure(env, ProjectSettings(threshold_min=-10, threshold_max=10, higher_is_riskier=False))
    code, _, err = set_thresholds("5", "-3")  # in range; lower is riskier: never reached
    assert code == 0, err
    assert "warning: challenge <= block" in err
    code, _, err = set_thresholds("-5", "20")
    assert code == 2 and "between -10 and 10" in err
    assert len(sent_bodies(env)) == 1


def test_json_mode_warning_on_stderr_refusal_as_error_document(env: SandboxServer) -> None:
    code, out, err = set_thresholds("0.5", "0.7", "--json")
    assert code == 0
    assert json.loads(out)["challengeThreshold"] == 0.7
    assert "never reached" in err
    code, out, err = set_thresholds("2", "0.5", "--json")
    assert code == 2
    assert json.loads(out)["error"]["code"] == "OutOfRange"
    assert len(sent_bodies(env)) == 1


@pytest.mark.parametrize(
    ("block", "challenge", "higher", "words"),
    [
        ("0.8", "0.5", True, ""),
        ("0.5", "0.5", True, "challenge never reached"),
        ("0.5", "0.8", False, ""),
        ("1.5", "0.5", True, "out of range"),
    ],
)
def test_tui_and_cli_judge_alike(block: str, challenge: str, higher: bool, words: str) -> None:
    """The TUI's check column and the CLI's rule are one rule."""
    settings = ProjectSettings(higher_is_riskier=higher)
    entry = DimensionEntry(ACC, PROJ, "d", "n", block, challenge, "2025-01-01T00:00:00Z", "user")
    assert check_words(entry, settings) == words
    from bottui.api.client import build_thresholds

    thresholds = build_thresholds("n", block, challenge)
    if words == "out of range":
        with pytest.raises(OutOfRange):
            check_rules(thresholds, settings, force=False)
    else:
        warned = check_rules(thresholds, settings, force=False)
        assert bool(warned) == (words == "challenge never reached")
