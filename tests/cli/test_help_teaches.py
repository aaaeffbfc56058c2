"""Every command's --help teaches (#16): purpose, options described, examples, exit codes.

The parser is walked, so a command or option added without these parts
fails here, not in a user's terminal.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bottui.cli import COMMON_OPTIONS
from bottui.cli.parser import build_parser, subcommands

ROOT = Path(__file__).resolve().parents[2]
EXIT_CODES = {0, 1, 2, 3, 4, 130}
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")


def walk(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every subcommand's parser, depth first (the top level excluded)."""
    for sub in subcommands(parser).values():
        yield sub
        yield from walk(sub)


PARSERS = {p.prog: p for p in walk(build_parser())}
LEAVES = {prog: p for prog, p in PARSERS.items() if not subcommands(p)}


def section(help_text: str, title: str) -> list[str]:
    """The indented lines under ``title:`` in a help text."""
    lines = help_text.split(f"\n{title}:\n", 1)[1].splitlines()
    taken = []
    for line in lines:
        if not line.startswith("  "):
            break
        taken.append(line.strip())
    return taken


def shown_options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        if action.help != argparse.SUPPRESS and not isinstance(
            action, (argparse._HelpAction, argparse._SubParsersAction)
        ):
            yield action


def test_every_command_is_walked() -> None:
    assert {"bottui revoke", "bottui limiter enable", "bottui help", "bottui store sync"} <= set(
        PARSERS
    )


@pytest.mark.parametrize("prog", sorted(PARSERS))
def test_purpose_examples_and_exit_codes(prog: str) -> None:
    parser = PARSERS[prog]
    text = parser.format_help()
    assert parser.description and "\n" not in parser.description.strip(), "one-line purpose"
    examples = section(text, "examples")
    assert len(examples) >= 2, f"{prog}: two or three examples"
    assert all(e.startswith(prog.split()[0] + " ") for e in examples)
    # An example runs a command that exists, with options it accepts.
    words = examples[0].split()[1:]
    if "--help" not in words:
        assert subcommands(build_parser())[words[0]]
    codes = [int(line.split()[0]) for line in section(text, "exit codes")]
    assert codes and set(codes) <= EXIT_CODES
    assert 0 in codes and 2 in codes, "every command can succeed and refuse a command line"


@pytest.mark.parametrize("prog", sorted(PARSERS))
def test_every_option_has_a_description_and_its_default(prog: str) -> None:
    parser = PARSERS[prog]
    for action in shown_options(parser):
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip(), f"{prog} {name}: no description"
        default = action.default
        if default not in (None, False, argparse.SUPPRESS):
            formatted = action.help % {"default": default}
            assert "default" in formatted and str(default) in formatted, (
                f"{prog} {name}: its default {default!r} is not said"
            )


@pytest.mark.parametrize("prog", sorted(PARSERS))
def test_values_are_named_one_way(prog: str) -> None:
    """An UPPER_SNAKE name saying what the value is; an id is ..._ID."""
    for action in shown_options(PARSERS[prog]):
        if action.nargs == 0:
            continue
        metavar = action.metavar or (action.dest.upper() if action.choices is None else None)
        if action.choices is not None and action.metavar is None and action.option_strings:
            continue  # shown as {a,b}: the choices are the name
        assert isinstance(metavar, str) and UPPER_SNAKE.match(metavar), (prog, action.dest)
        if action.dest.endswith("_id") and action.dest != "run_id":
            assert metavar.endswith("_ID"), (prog, action.dest, metavar)


def test_positionals_of_ids_end_in_id() -> None:
    positionals = {
        a.metavar for p in PARSERS.values() for a in p._actions if not a.option_strings
    } - {None, "COMMAND", "ACTION"}
    assert positionals == {
        "LIMITER_ID",
        "DIMENSION_ID",
        "FILE",
        "KIND",
        "NAME",
        "TOPIC",
        "RUN_ID",
        "TIMED_ID",
        "DURATION",
        "SHELL",
    }


@pytest.mark.parametrize(
    ("prog", "hidden", "shown"),
    [
        ("bottui profile list", "--dry-run", "--json"),
        ("bottui demo", "--account", "--team"),
        ("bottui sandbox", "--show-secrets", "--port"),
        ("bottui journal", "--dry-run", "--project"),
        ("bottui revoke", "--show-secrets", "--dry-run"),
        ("bottui limiter enable", "--concurrency", "--show-secrets"),
    ],
)
def test_a_command_offers_only_the_common_options_that_apply(
    prog: str, hidden: str, shown: str
) -> None:
    text = PARSERS[prog].format_help()
    assert re.search(rf"\s{shown}\b", text)
    assert not re.search(rf"\s{re.escape(hidden)}\b", text)


@pytest.mark.parametrize("prog", sorted(LEAVES))
def test_hidden_common_options_stay_accepted(prog: str) -> None:
    """CONVENTIONS: common options are accepted after the (sub)command, shown or not."""
    words = prog.split()[1:]
    sub = LEAVES[prog]
    # "1": a valid value of every positional (names, ids, run ids).
    args = [
        "1h" if a.metavar == "DURATION" else "1"
        for a in sub._actions
        if not a.option_strings and a.required
    ]
    for action in sub._actions:
        if action.required and action.option_strings:
            args += [action.option_strings[0], "1"]
        if not action.option_strings and action.choices:
            args[0] = next(iter(action.choices))
    for option, metavar, _ in COMMON_OPTIONS.values():
        extra = [option] if metavar is None else [option, "v"]
        parsed = build_parser().parse_args([*words, *args, *extra])
        dest = option[2:].replace("-", "_")
        assert getattr(parsed, dest) == (True if metavar is None else "v"), (prog, option)


def test_top_level_help_names_every_variable_and_the_topics() -> None:
    from bottui.cli.parser import TOPICS

    read = set()
    for path in (ROOT / "bottui").rglob("*.py"):
        read |= set(re.findall(r"\bBOTTUI_[A-Z][A-Z_]*[A-Z]\b", path.read_text()))
    assert {"BOTTUI_ACCESS_TOKEN", "BOTTUI_API_KEY", "BOTTUI_BASE_URL", "BOTTUI_STORE_URL"} <= read
    text = build_parser().format_help()
    missing = {name for name in read if name not in text}
    assert not missing, f"bottui --help does not name {missing}"
    assert "bottui help TOPIC" in text
    assert all(topic in text for topic in TOPICS)
    listed = {line.split()[0] for line in section(text, "commands")}
    assert set(subcommands(build_parser())) <= listed
