"""The command line of ``bottui``: its commands, their shared options, the shape of ``--help``.

:data:`bottui.cli.COMMANDS` names every command, the module that holds it and its one
line of purpose. Each command module registers its own parser beside its
handler (``PARSERS``: name -> a function adding it to the subparsers) and
runs it with ``cmd_NAME``. :func:`parse` builds the parser of the one command
the command line names and no other: ``bottui limiter disable`` never imports
the journal or the playbooks, nor builds a parser for them. A command line
that names none (``bottui --help``) gets a one-line stub (name and purpose)
for each command. :func:`build_parser` with no argument builds every command
(``bottui help COMMAND``, the docs, the tests, a refused command line).
A bare ``bottui`` (and ``bottui demo``) does not even import this module
(:func:`bottui.cli.parse`): argparse and its translations cost ~2.5 ms of the
TUI's start-up.

Every subcommand is made with :func:`command`, so its help has the same
parts in the same order (a one-line purpose, its own options, the common
options that mean something for it, examples, exit codes)::

    sub = command(
        commands, "timed", "list the timed changes and when each reverts",
        examples=["bottui timed", "bottui timed --json"],
        exits=[0, 2, 130],
        common=SESSION | {"json"},
    )

The common options not in ``common`` stay accepted after the subcommand
(CONVENTIONS: "Common options are accepted after the (sub)command") but are
hidden from its help: an option that does nothing there should not be
offered. ``tests/cli/test_help_teaches.py`` walks the parser, so a
subcommand or option made without these parts fails it. Positionals and
option values are named one way: an UPPER_SNAKE metavar saying what the
value is, ``..._ID`` for an id (LIMITER_ID, ENTRY_ID), ``FILE`` for a path,
``NAME`` for a profile.

A refused command line is looked at again for a misspelt command or option
(:func:`suggestion`, "did you mean"): :func:`suggestion` walks a command line
the way argparse does (the top level, then the chosen command, then its
action), and names the first word that is neither a known option of where it
stands nor a known (sub)command, with the closest known one (difflib).
``bottui --acount acme journal`` is then "unknown option --acount; did you
mean --account?" rather than argparse's "invalid choice: 'acme'". This
module and :func:`bottui.cli.completion.tree` are the places that read
argparse's private attributes (``_actions``, ``_option_string_actions``):
argparse has no public way to list a parser's subcommands and options.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, Final, NoReturn, TypeAlias

from bottui import __version__
from bottui.cli import COMMANDS, COMMON_OPTIONS, with_defaults
from bottui.cli.argv_text import shown
from bottui.cli.output import UsageError
from bottui.ops.durations import parse_duration
from bottui.store.utc import parse_time

#: The topics of ``bottui help TOPIC`` (their texts: :mod:`bottui.cli.help_topics`).
TOPICS: Final[dict[str, str]] = {
    "exit-codes": "what each exit code means, and which wins in a bulk run",
    "tokens": "the two kinds of token, where they are kept, headless machines",
    "environment": "the BOTTUI_* variables, and what wins over what",
    "team": "team mode: one journal and inventory shared on PostgreSQL",
    "playbooks": "playbooks: several changes applied, and reverted, as one",
    "json": "the --json and --jsonl documents scripts can rely on",
}

#: Every variable bottui reads: name -> what it does (``bottui --help`` and
#: ``bottui help environment`` list them).
VARIABLES: Final[dict[str, str]] = {
    "BOTTUI_ACCESS_TOKEN": "personal access token (revoke, thresholds); wins over the keyring",
    "BOTTUI_API_KEY": "project API token (limiter); wins over the keyring",
    "BOTTUI_BASE_URL": "API base URL; wins over the profile's, --base-url wins over it",
    "BOTTUI_STORE_URL": "team store (PostgreSQL URL, no password); wins over the profile's",
    "BOTTUI_OPERATOR": "who is journaled as making a change; wins over the profile's operator",
}

#: The parsed command line. A plain namespace (argparse fills it in place),
#: so the shortcuts of :func:`bottui.cli.parse` need no parser.
Args: TypeAlias = SimpleNamespace


#: The scope the commands' examples name.
IDS: Final = "--account acme --project shop-prod"

#: What ``bottui --version`` (and ``-V``) prints.
VERSION_LINE: Final = f"bottui {__version__}"

#: What each exit code means (CONVENTIONS.md), as a command's help lists it.
EXIT_MEANINGS: Final[dict[int, str]] = {
    0: "done",
    1: "the API answered an error or an unusable body",
    2: "refused before sending: invalid options or values (nothing was sent)",
    3: "no usable credentials: no token, or the keyring absent, locked or not answering",
    4: "network failure or timeout after the retries (a change's outcome may be unknown)",
    130: "interrupted (Ctrl-C)",
}

#: A command's exit codes: a code (its meaning from EXIT_MEANINGS) or (code, meaning).
Exit = int | tuple[int, str]

#: Every common option: what the top-level help shows.
ALL_COMMON: Final = frozenset(COMMON_OPTIONS)
#: What every command that opens a session against a profile reads.
SESSION: Final = frozenset({"profile", "base_url", "account", "project", "json"})
#: A command that changes something at the API.
CHANGE: Final = SESSION | {"dry_run", "read_only", "yes"}


def add_common(parser: argparse.ArgumentParser, shown: Iterable[str]) -> None:
    """Add every common option to ``parser``; those not in ``shown`` are hidden from its help.

    ``default=SUPPRESS`` keeps a subparser from overwriting a value given
    before the subcommand (``bottui --json journal``).
    """
    visible = frozenset(shown)
    unknown = visible - ALL_COMMON
    if unknown:
        raise ValueError(f"not common options: {sorted(unknown)}")
    group = parser.add_argument_group("common options (also accepted before the command)")
    for dest, (option, metavar, text) in COMMON_OPTIONS.items():
        kwargs: dict[str, Any] = {"dest": dest, "default": argparse.SUPPRESS}
        kwargs["help"] = text if dest in visible else argparse.SUPPRESS
        if metavar is None:
            group.add_argument(option, action="store_true", **kwargs)
        else:
            group.add_argument(option, metavar=metavar, **kwargs)


#: The help's prose, kept as package data: ``help/TOPIC.txt`` (``bottui help TOPIC``)
#: and ``help/commands/NAME.txt`` (the notes some commands' ``--help`` begins its end with).
HELP_DIR: Final = os.path.join(os.path.dirname(__file__), "help")


def help_file(name: str) -> str:
    """The text of ``help/NAME.txt`` as written (read when asked for, never at import)."""
    with open(os.path.join(HELP_DIR, f"{name}.txt"), encoding="utf-8") as file:
        return file.read()


def epilog(examples: Sequence[str], exits: Sequence[Exit], notes: str | None = None) -> str:
    """The end of a command's help: its ``notes`` (``help/commands/NOTES.txt``), if any,
    then the examples and exit codes."""
    lines = [help_file(f"commands/{notes}"), "examples:"] if notes else ["examples:"]
    lines += [f"  {example}" for example in examples]
    lines += ["", "exit codes:"]
    for code_or_pair in exits:
        code, meaning = (
            code_or_pair
            if isinstance(code_or_pair, tuple)
            else (code_or_pair, EXIT_MEANINGS[code_or_pair])
        )
        lines.append(f"  {code:<4} {meaning}")
    lines += ["", "See `bottui help exit-codes` and `bottui help` for the other topics."]
    return "\n".join(lines)


def top_epilog() -> str:
    """The end of ``bottui --help``: the environment variables and the help topics."""
    lines = ["environment variables (an option wins over them, they over the profile):"]
    lines += [f"  {name:<23}{meaning}" for name, meaning in VARIABLES.items()]
    lines += [
        "",
        "exit codes: 0 done, 1 API error, 2 refused before sending, 3 no credentials,",
        "4 network failure, 130 interrupted (`bottui help exit-codes`).",
        "",
        f"More: `bottui COMMAND --help`, `bottui help TOPIC` ({', '.join(TOPICS)}).",
    ]
    return "\n".join(lines)


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples' and exit codes' lines as written; wraps option help as usual."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)

    def add_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[argparse._MutuallyExclusiveGroup],
        prefix: str | None = None,
    ) -> None:
        """The usage line with the command's own options first, the common ones after."""
        listed = list(actions)
        own = [a for a in listed if a.dest not in COMMON_OPTIONS]
        common = [a for a in listed if a.dest in COMMON_OPTIONS]
        super().add_usage(usage, own + common, groups, prefix)


def command(
    group: Any,
    name: str,
    purpose: str | None = None,
    *,
    examples: Sequence[str],
    exits: Sequence[Exit],
    common: Iterable[str] = (),
    notes: str | None = None,
) -> argparse.ArgumentParser:
    """A subcommand ``name`` of ``group`` (an argparse subparsers action) that teaches.

    ``purpose`` is one line (the command list shows it too); ``examples``
    two or three complete command lines; ``exits`` the codes the command can
    give; ``common`` the common options that mean something for it (the
    others are accepted but hidden); ``notes`` names the prose that precedes the
    examples (:func:`epilog`). A command's ``purpose`` is its line of
    :data:`bottui.cli.COMMANDS` unless given.
    """
    purpose = purpose or COMMANDS[name][1]
    sub: argparse.ArgumentParser = group.add_parser(
        name,
        help=purpose,
        description=purpose[:1].upper() + purpose[1:] + ".",
        epilog=epilog(examples, exits, notes),
        formatter_class=Formatter,
    )
    add_common(sub, common)
    return sub


def group_of(
    group: Any,
    name: str,
    purpose: str | None = None,
    *,
    examples: Sequence[str],
    exits: Sequence[Exit],
) -> Any:
    """A command ``name`` made of actions (``bottui token set|status|delete``).

    Returns its subparsers action, to which each action is added with
    :func:`command`. Its help shows no common option:
    each action's help shows those that apply to it.
    """
    sub = command(group, name, purpose, examples=examples, exits=exits)
    return sub.add_subparsers(
        dest="action",
        metavar="ACTION",
        required=True,
        parser_class=type(sub),
        title="actions (see `bottui " + name + " ACTION --help`)",
    )


# -- option types and options several commands share ------------------------------------


def duration(text: str) -> timedelta:
    """A duration option value: 90s, 30m, 2h, 1d, 1h30m (argparse ``type``)."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def moment(text: str) -> datetime:
    """A UTC time option value, ISO 8601 (argparse ``type``)."""
    try:
        return parse_time(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(text: str) -> int:
    """A positive integer option value (argparse ``type``)."""
    try:
        value = int(text.strip())
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


def entry_id(text: str) -> int:
    """A journal entry's or run's id as shown (``#1234``) or bare (argparse ``type``)."""
    return positive_int(text.strip().removeprefix("#"))


REASON_HELP: Final = (
    "why (journaled with the change, e.g. an incident id); a profile with "
    "require_reason = true refuses a change without one (exit 2)"
)


def add_reason(parser: argparse.ArgumentParser) -> None:
    """``--reason TEXT`` on a command that changes something."""
    parser.add_argument("--reason", metavar="TEXT", default=None, help=REASON_HELP)


def add_overwrite(parser: argparse.ArgumentParser, replace: str) -> None:
    """``--overwrite`` on a command that writes a file: ``replace`` says which."""
    parser.add_argument(
        "--overwrite", action="store_true", help=f"{replace} if it exists (never a symbolic link)"
    )


ACK_COLLISION_HELP: Final = (
    "send even though a teammate changed the same target in the last 15 minutes, "
    "without asking on a terminal (a protected profile refuses a script otherwise, exit 2); "
    "the acknowledged changes are journaled with the reason (default: no)"
)


def add_ack_collision(parser: argparse.ArgumentParser) -> None:
    """``--ack-collision`` on a change the collision check warns about."""
    parser.add_argument("--ack-collision", action="store_true", help=ACK_COLLISION_HELP)


# -- the parser --------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting, so main picks the code."""

    def error(self, message: str) -> NoReturn:
        raise UsageError("Invalid command line", f"{message} (see `{self.prog} --help`)")


def build_parser(wanted: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The command line: every command, or only those ``wanted``; none wanted, stubs.

    A stub has the command's name and purpose (``bottui --help`` lists it) and
    nothing else; importing its module would cost far more. A command line
    naming its command needs no stub of the others: each is an ArgumentParser
    that asks gettext for its messages' translations (17 stubs: 1.9 ms of CPU,
    0.87 ms for the parser of ``limiter`` alone; in-process, the busy 2-core
    machine, 2026-11-28).
    """
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
    for name, (module, purpose) in COMMANDS.items():
        if wanted is None or name in wanted:
            importlib.import_module(f"bottui.cli.{module}").PARSERS[name](commands)
        elif not wanted:
            commands.add_parser(name, help=purpose)
    return parser


#: The top-level options that take a value (their value is not the command).
_VALUED: Final = tuple(option for option, metavar, _ in COMMON_OPTIONS.values() if metavar)
_TOP_OPTIONS: Final = (*(option for option, _, _ in COMMON_OPTIONS.values()), "--help", "--version")


def command_named(words: Sequence[str]) -> frozenset[str] | None:
    """The command ``words`` run, as argparse reads them: none (an empty set), one, or
    None when unsure (an unknown word or option first): then every command is built."""
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word in ("-h", "-V"):
            continue
        if not word.startswith("-"):
            return frozenset({word}) if word in COMMANDS else None
        name, equals, _ = word.partition("=")
        # argparse takes a unique prefix (--acc for --account).
        found = [name] if name in _TOP_OPTIONS else [o for o in _TOP_OPTIONS if o.startswith(name)]
        if not name.startswith("--") or len(found) != 1:
            return None
        if found[0] in _VALUED and not equals:
            index += 1
    return frozenset()


def parse_words(words: Sequence[str]) -> Args:
    """The command line (``bottui.cli.parse`` takes the shortcuts that need no parser).

    Only a command line argparse refused is looked at again, for a closer
    word (:func:`suggestion`, with every command built): a valid one never
    pays for the suggestion.
    """
    wanted = command_named(words)
    parser = build_parser(wanted)
    try:
        return with_defaults(parser.parse_args(words, namespace=Args()))
    except UsageError:
        if wanted is not None:
            parser = build_parser()
        better = suggestion(parser, words)
        if better is None:
            raise
        raise UsageError(better) from None


# -- did you mean ------------------------------------------------------------------------


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name (empty when it has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``word``, if one is close enough to be a likely typo."""
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def suggestion(parser: argparse.ArgumentParser, words: Sequence[str]) -> str | None:
    """One line naming the first unknown command or option in ``words``, or None."""
    current = parser
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            return None
        if word.startswith("--"):
            name, equals, _ = word.partition("=")
            known = current._option_string_actions  # every option, shown or hidden
            action = known.get(name)
            if action is None:
                # argparse takes a unique prefix (--acc for --account).
                starting = {known[o] for o in known if o.startswith(name)}
                if len(starting) > 1:
                    return None
                action = next(iter(starting), None)
            if action is None:
                near = closest(name, [o for o in known if o.startswith("--")])
                return _unknown("option", name, near, current)
            if not equals and action.nargs != 0:
                index += 1  # its value, whatever it looks like
            continue
        if word.startswith("-"):
            continue  # -h, -V, or a value argparse will judge
        commands = subcommands(current)
        if commands:
            if word not in commands:
                kind = "command" if current is parser else "action"
                return _unknown(kind, word, closest(word, commands), current)
            current = commands[word]
    return None


def _unknown(kind: str, word: str, near: str | None, where: argparse.ArgumentParser) -> str:
    place = "" if where.prog == "bottui" else f" for `{where.prog}`"
    hint = f"; did you mean '{near}'?" if near else ""
    return f"unknown {kind} '{shown(word)}'{place}{hint} (see `{where.prog} --help`)"
