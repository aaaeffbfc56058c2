"""Playbook files: the schema, and every refusal naming the file and the line."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bottui.ops.playbooks import library
from bottui.ops.playbooks.library import LimiterStep, PlaybookFileError, ThresholdsStep
from bottui.store.config.config_model import key_lines
from bottui.store.files import Locations

GOOD = """\
# Credential stuffing on /login
description = "Login attack: rate-limit logins, tighten bot score"
duration = "2h"
project = "shop-prod"

[[steps]]
limiter = "rl-login"
action = "enable"

[[steps]]
dimension = "bot-score"
block = 0.9
challenge = "0.60"
"""


def write(tmp_path: Path, name: str, text: str) -> Locations:
    locations = Locations.under(tmp_path)
    folder = library.directory(locations)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.toml").write_text(text, encoding="utf-8")
    return locations


def refusal(tmp_path: Path, text: str) -> PlaybookFileError:
    locations = write(tmp_path, "bad", text)
    with pytest.raises(PlaybookFileError) as caught:
        library.read_playbook(locations, "bad")
    assert caught.value.path == library.directory(locations) / "bad.toml"
    return caught.value


def test_a_good_playbook(tmp_path: Path) -> None:
    book = library.read_playbook(write(tmp_path, "login", GOOD), "login")
    assert book.duration == timedelta(hours=2)
    assert book.project == "shop-prod" and book.account is None
    assert book.steps == (
        LimiterStep(1, "rl-login", True, 6),
        ThresholdsStep(2, "bot-score", None, "0.9", "0.60", 10),
    )


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (GOOD.replace('action = "enable"', 'action = "on"'), 8, "action must be"),
        (GOOD.replace('action = "enable"', 'actoin = "enable"'), 8, "unknown key 'actoin'"),
        (GOOD.replace("block = 0.9", 'block = "high"'), 12, "'high' is not a number"),
        (GOOD.replace("block = 0.9", "block = true"), 12, "block must be a number"),
        (GOOD.replace('duration = "2h"', 'duration = "3 weeks"'), 3, "not a duration"),
        (GOOD.replace('duration = "2h"', 'duration = "8d"'), 3, "longer than 7d"),
        (GOOD.replace('project = "shop-prod"', "project = 7"), 4, "project must be a string"),
        (GOOD.replace('limiter = "rl-login"', 'limiter = ".."'), 7, "cannot be a path segment"),
        (GOOD.replace('limiter = "rl-login"', 'limiter = "a\\u001bb"'), 7, "control character"),
        (GOOD + "colour = 'red'\n", 14, "unknown key 'colour'"),
        ("owner = 'me'\n" + GOOD, 1, "unknown key 'owner'"),
        (GOOD.replace('limiter = "rl-login"\n', ""), 6, "neither a limiter nor"),
        (GOOD.replace('challenge = "0.60"\n', ""), 10, "challenge is missing"),
        ('description = "x"\n', None, "has no steps"),
        ("[[steps]\n", 1, ""),
    ],
)
def test_refused_with_file_and_line(
    tmp_path: Path, text: str, line: int | None, words: str
) -> None:
    error = refusal(tmp_path, text)
    assert error.line == line, error.title
    assert words in error.reason
    shown = f"bad.toml:{line}" if line is not None else "bad.toml"
    assert shown in error.title


def test_a_name_that_is_no_path_segment_is_refused(tmp_path: Path) -> None:
    locations = write(tmp_path, "ok", GOOD)
    with pytest.raises(PlaybookFileError, match="playbook name"):
        library.read_playbook(locations, "../ok")


def test_check_playbooks_names_every_problem(tmp_path: Path) -> None:
    locations = write(tmp_path, "good", GOOD)
    write(tmp_path, "bad", GOOD.replace('action = "enable"', 'action = "maybe"'))
    write(tmp_path, "bad name!", GOOD)
    problems = library.check_playbooks(locations)
    texts = sorted(p.text() for p in problems)
    assert len(texts) == 2
    assert texts[0].endswith(
        "bad name!.toml: the name is not a playbook name (letters, digits, . _ -)"
    )
    assert "bad.toml:8: step 1: action must be" in texts[1]


def test_key_lines_follow_tables_and_quotes() -> None:
    lines = key_lines('a = 1\n[[steps]]\n"limiter" = "x" # c\n[[steps]]\n  dimension="d"\n')
    assert lines[("a",)] == 1
    assert lines[("steps", 0)] == 2 and lines[("steps", 0, "limiter")] == 3
    assert lines[("steps", 1, "dimension")] == 5
