"""What ``--help`` teaches: purpose, examples, exit codes, the common options that apply.

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
subcommand or option made without these parts fails it.

Imported only when the parser is built: never on the ``bottui``,
``bottui demo`` or ``bottui --version`` paths.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from typing import Any, Final

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

#: The common options: dest -> (option, metavar or None for a flag, help).
COMMON_OPTIONS: Final[dict[str, tuple[str, str | None, str]]] = {
    "profile": ("--profile", "NAME", "profile from config.toml (default: the current one)"),
    "base_url": (
        "--base-url",
        "URL",
        "API base URL (default: BOTTUI_BASE_URL, else the profile's base_url)",
    ),
    "account": ("--account", "ACCOUNT_ID", "account id (default: the profile's account)"),
    "project": ("--project", "PROJECT_ID", "project id (default: the profile's project)"),
    "json": ("--json", None, "one JSON document on stdout; messages go to stderr"),
    "dry_run": ("--dry-run", None, "print the request(s) and an equivalent curl; send nothing"),
    "read_only": ("--read-only", None, "refuse every change (exit 2)"),
    "yes": ("--yes", None, "confirm a change on a protected profile"),
    "show_secrets": (
        "--show-secrets",
        None,
        "show the project's serverKey in the output (masked as *** otherwise)",
    ),
}

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


def epilog(examples: Sequence[str], exits: Sequence[Exit]) -> str:
    """The examples and exit codes that end a command's help."""
    lines = ["examples:"]
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
    from bottui.cli.topics import TOPICS
    from bottui.cli.topics.environment import VARIABLES

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
    purpose: str,
    *,
    examples: Sequence[str],
    exits: Sequence[Exit],
    common: Iterable[str] = (),
) -> argparse.ArgumentParser:
    """A subcommand ``name`` of ``group`` (an argparse subparsers action) that teaches.

    ``purpose`` is one line (the command list shows it too); ``examples``
    two or three complete command lines; ``exits`` the codes the command can
    give; ``common`` the common options that mean something for it (the
    others are accepted but hidden).
    """
    sub: argparse.ArgumentParser = group.add_parser(
        name,
        help=purpose,
        description=purpose[:1].upper() + purpose[1:] + ".",
        epilog=epilog(examples, exits),
        formatter_class=Formatter,
    )
    add_common(sub, common)
    return sub


def group_of(
    group: Any,
    name: str,
    purpose: str,
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
