"""The command line of ``bottui``: every command, subcommand and option.

A bare ``bottui`` (and ``bottui demo``) skips building the parser: argparse
is imported only when there is something to parse (see :func:`parse`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

from bottui import __version__
from bottui.api.errors import RefusedError

if TYPE_CHECKING:
    import argparse

# Options every (sub)command accepts, before or after it. SUPPRESS keeps a
# subparser from overwriting a value given before the subcommand.
_COMMON_DEFAULTS: dict[str, Any] = {
    "profile": None,
    "base_url": None,
    "account": None,
    "project": None,
    "json": False,
    "dry_run": False,
    "read_only": False,
    "yes": False,
    "show_secrets": False,
}


#: The parsed command line. A plain namespace (argparse fills it in place),
#: so the shortcut of :func:`parse` needs no argparse: importing it costs ~2.5 ms
#: of the TUI's start-up.
Args: TypeAlias = SimpleNamespace


class UsageError(RefusedError):
    """Invalid flags or values (exit 2)."""


#: What ``bottui --version`` (and ``-V``) prints.
VERSION_LINE: str = f"bottui {__version__}"


def build_parser() -> argparse.ArgumentParser:
    """The whole command line.

    One call per module of commands. Each subcommand is made with
    :func:`~bottui.cli.help_text.command` (its purpose, examples, exit codes
    and the common options that apply to it).
    Positionals and option values are named one way: an UPPER_SNAKE metavar
    saying what the value is, ``..._ID`` for an id (LIMITER_ID, ENTRY_ID),
    ``FILE`` for a path, ``NAME`` for a profile.
    """
    import argparse

    from bottui.cli.doctor_parser import add_doctor
    from bottui.cli.help_text import ALL_COMMON, Formatter, add_common, top_epilog
    from bottui.cli.parser_changes import add_change_commands
    from bottui.cli.parser_completion import add_completion_parser
    from bottui.cli.parser_local import add_local_commands
    from bottui.cli.parser_playbook import add_playbook_parser
    from bottui.cli.parser_timed import add_timed

    class _Parser(argparse.ArgumentParser):
        """An ArgumentParser that raises instead of exiting, so main picks the code."""

        def error(self, message: str) -> NoReturn:
            raise UsageError("Invalid command line", f"{message} (see `{self.prog} --help`)")

    parser: argparse.ArgumentParser = _Parser(
        prog="bottui",
        description="Terminal console for the bot-protection management API.\n"
        "Without a command, starts the TUI on the current profile.",
        epilog=top_epilog(),
        formatter_class=Formatter,
    )
    parser.add_argument(
        "-V", "--version", action="version", version=VERSION_LINE, help="print the version"
    )
    add_common(parser, ALL_COMMON)
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=_Parser, title="commands"
    )
    add_change_commands(commands)  # limiter, revoke, thresholds, undo
    add_local_commands(commands)  # inventory, journal, token, store, profile, config, ...
    add_playbook_parser(commands)  # playbook list|show|run|revert
    add_completion_parser(commands)  # completion bash|zsh|fish
    add_timed(commands)  # --for on the changes; timed, run-due
    add_doctor(commands)  # doctor
    return parser


def parse(argv: Sequence[str] | None) -> Args:
    """The command line; a bare ``bottui`` or ``bottui demo`` skips building the parser.

    Building the parser of every command costs ~8 ms (argparse looks up a
    translation for each of its messages), a share of the TUI's start-up that
    buys nothing when there is nothing to parse; ``--version`` and ``-V``
    print without it too. ``test_cli`` checks that the shortcuts give what
    the parser gives. A refused command line is checked for a misspelt
    command or option (:mod:`~bottui.cli.suggest`): "did you mean".
    """
    words = list(sys.argv[1:] if argv is None else argv)
    if words == []:
        return with_defaults(Args(command=None))
    if words == ["demo"]:
        return with_defaults(Args(command="demo", team=False))
    if words in (["--version"], ["-V"]):
        # What argparse's "version" action does, without building the parser.
        from bottui.cli.closed_pipe import guard

        guard(sys.stdout).write(VERSION_LINE + "\n")  # a closed or full stdout: quietly
        raise SystemExit(0)
    parser = build_parser()
    try:
        return with_defaults(parser.parse_args(words, namespace=Args()))
    except UsageError:
        # Only a command line argparse refused is looked at again, for a
        # closer word: a valid one never pays for the suggestion.
        from bottui.cli.suggest import suggestion

        better = suggestion(parser, words)
        if better is None:
            raise
        raise UsageError(better) from None


def with_defaults(args: Args) -> Args:
    """``args`` with every common option set (its default when not given)."""
    for key, value in _COMMON_DEFAULTS.items():
        if not hasattr(args, key):
            setattr(args, key, value)
    return args
