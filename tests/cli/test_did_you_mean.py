"""Did you mean (#16): a misspelt command or option is named with the closest one.

Exit 2, one line on stderr, nothing on stdout, nothing sent or read.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from bottui.cli import help_topics
from tests.cli.helpers import cli, cli_process


@pytest.mark.parametrize(
    ("argv", "wrong", "meant"),
    [
        (["revok"], "'revok'", "'revoke'"),
        (["jurnal", "--limit", "3"], "'jurnal'", "'journal'"),
        (["--acount", "acme", "journal"], "'--acount'", "'--account'"),
        (["--acount=acme", "journal"], "'--acount'", "'--account'"),
        (["journal", "--acount", "acme"], "'--acount'", "'--account'"),
        (["revoke", "--visiter-id", "v", "--account", "a"], "'--visiter-id'", "'--visitor-id'"),
        (["limiter", "enabel", "rl-login"], "'enabel'", "'enable'"),
        (["sandbox", "--prot", "9000"], "'--prot'", "'--port'"),
        (["profile", "list", "--jsn"], "'--jsn'", "'--json'"),
    ],
)
def test_the_closest_word_is_suggested(argv: list[str], wrong: str, meant: str) -> None:
    r = cli(*argv)
    assert r.code == 2
    assert r.out == ""
    lines = r.err.splitlines()
    assert len(lines) == 1, r.err
    assert wrong in lines[0] and f"did you mean {meant}?" in lines[0]


def test_the_message_says_where_the_option_was_unknown() -> None:
    r = cli("journal", "--acount", "acme")
    assert "for `bottui journal`" in r.err and "`bottui journal --help`" in r.err


def test_nothing_close_names_the_word_and_no_guess() -> None:
    r = cli("zzzzqq")
    assert r.code == 2 and "'zzzzqq'" in r.err and "did you mean" not in r.err


def test_a_valid_abbreviation_is_not_a_typo() -> None:
    """argparse takes a unique prefix: --acc is --account, and stays accepted."""
    from bottui.cli import parse

    assert parse(["--acc", "acme", "help"]).account == "acme"


def test_other_refusals_keep_argparse_words() -> None:
    r = cli("journal", "--limit", "-1")
    assert r.code == 2 and "positive integer" in r.err and "did you mean" not in r.err


def test_with_json_the_error_is_the_one_document() -> None:
    r = cli("revok", "--json")
    assert r.code == 2
    assert "did you mean 'revoke'" in json.loads(r.out)["error"]["message"]


def test_a_real_process_exits_2_with_one_line() -> None:
    r = cli_process("--acount", "acme", "journal")
    assert r.code == 2 and r.out == ""
    assert r.err == (
        "error: unknown option '--acount'; did you mean '--account'? (see `bottui --help`)\n"
    )


def test_version_short_and_long_without_argparse() -> None:
    """-V is --version; neither builds the parser (argparse is not even imported)."""
    from bottui import __version__

    for flag in ("-V", "--version"):
        r = cli_process(flag)
        assert (r.code, r.out) == (0, f"bottui {__version__}\n")
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bottui", "-V"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()}
    assert "argparse" not in imported and "asyncio" not in imported


def test_the_parser_knows_minus_v_too() -> None:
    from bottui.cli.parser import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["-V", "journal"])


def test_help_lists_the_topics() -> None:
    r = cli("help")
    assert r.code == 0
    for name in help_topics.TOPICS:
        assert f"  {name} " in r.out
    assert {"exit-codes", "tokens", "environment", "team", "playbooks", "json"} <= set(
        help_topics.TOPICS
    )


@pytest.mark.parametrize("name", sorted(help_topics.TOPICS))
def test_each_topic_prints_its_text(name: str) -> None:
    r = cli("help", name)
    assert r.code == 0 and r.out.strip() == help_topics.text(name).strip()
    assert len(r.out.splitlines()) >= 5


def test_the_json_topic_is_the_schemas_text() -> None:
    text = help_topics.text("json")
    assert text == help_topics.json_text() and text.startswith("JSON output")


def test_help_of_a_command_is_its_help() -> None:
    from bottui.cli.parser import build_parser, subcommands

    r = cli("help", "revoke")
    assert r.code == 0
    assert r.out.strip() == subcommands(build_parser())["revoke"].format_help().strip()


def test_an_unknown_topic_suggests_the_closest() -> None:
    r = cli("help", "exit-code")
    assert r.code == 2 and r.out == ""
    assert r.err.splitlines() == [
        "error: no help topic or command 'exit-code'; did you mean 'exit-codes'? "
        "(`bottui help` lists the topics)"
    ]


def test_help_with_json_is_one_document() -> None:
    assert [t["topic"] for t in cli("help", "--json").json()["topics"]] == list(help_topics.TOPICS)
    assert cli("help", "tokens", "--json").json() == {
        "topic": "tokens",
        "text": help_topics.text("tokens"),
    }
    assert cli("help", "undo", "--json").json()["command"] == "undo"


def test_the_help_texts_and_shell_scripts_ship_in_the_wheel() -> None:
    """Every data file of ``bottui/cli`` (the help's prose, the completion scripts,
    the command tree) is named by pyproject's package-data: an installed bottui has it."""
    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    package = root / "bottui"
    shipped = {
        path.relative_to(package).as_posix()
        for pattern in config["tool"]["setuptools"]["package-data"]["bottui"]
        for path in package.glob(pattern)
    }
    data = {
        path.relative_to(package).as_posix()
        for path in (package / "cli").rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc")
    }
    assert {
        "cli/help/tokens.txt",
        "cli/help/commands/doctor.txt",
        "cli/shell/completion.fish",
    } <= data
    assert data - shipped == set()
