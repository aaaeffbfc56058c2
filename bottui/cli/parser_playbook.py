"""The command line of ``bottui playbook``: list, show, run, revert.

Kept apart from :mod:`bottui.cli.parser` (one call from ``build_parser``)
so the playbook commands and their help change without touching it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from bottui.cli.help_text import Exit

#: The exit codes of running or reverting a playbook.
_CHANGE_EXITS: Final[list[Exit]] = [
    (0, "done (every step sent; also every --dry-run)"),
    (1, "the API answered an error on a step (the steps after it were not sent)"),
    (
        2,
        "refused before sending: a playbook file with a problem (FILE:LINE named), an id "
        "the inventory does not know, read-only, protected without --yes, not confirmed, "
        "or a revert refused (superseded)",
    ),
    3,
    (4, "network failure or timeout on a step (its outcome may be unknown)"),
    130,
]
_READ_EXITS: Final[list[Exit]] = [0, (2, "a playbook file with a problem (FILE:LINE named)"), 130]


def _run_id(text: str) -> int:
    import argparse

    try:
        value = int(text.strip().removeprefix("#"))
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a run id (a positive integer)")
    return value


def add_playbook_parser(commands: Any) -> None:
    """Add ``playbook`` and its actions to ``commands`` (the top-level subparsers)."""
    from bottui.cli.help_text import CHANGE, SESSION, command, group_of
    from bottui.cli.parser_options import add_reason

    actions = group_of(
        commands,
        "playbook",
        "named lists of changes, run and reverted as one (playbooks/NAME.toml)",
        examples=[
            "bottui playbook list",
            'bottui playbook run login-attack --for 2h --reason "INC-4711"',
            "bottui playbook revert 12 --yes",
        ],
        exits=[0, 1, 2, 3, 4, 130],
    )
    command(
        actions,
        "list",
        "list the playbooks of the config directory (name, steps, duration, description)",
        examples=["bottui playbook list", "bottui playbook list --json"],
        exits=_READ_EXITS,
        common={"profile", "json"},
    )
    show = command(
        actions,
        "show",
        "show a playbook's plan: each step's target, known value now -> new value, source",
        examples=["bottui playbook show login-attack", "bottui playbook show login-attack --json"],
        exits=_READ_EXITS,
        common=SESSION,
    )
    show.add_argument("name", metavar="NAME", help="the playbook (playbooks/NAME.toml)")
    run = command(
        actions,
        "run",
        "plan every step, confirm once, send the steps in order (stop at the first failure)",
        examples=[
            "bottui playbook run login-attack --reason INC-4711",
            "bottui playbook run login-attack --for 30m --yes",
            "bottui playbook run login-attack --dry-run --json",
        ],
        exits=_CHANGE_EXITS,
        common=CHANGE,
    )
    run.add_argument("name", metavar="NAME", help="the playbook (playbooks/NAME.toml)")
    run.add_argument(
        "--for",
        dest="revert_after",
        metavar="DURATION",
        default=None,
        help="revert every step this long after the run (90s, 30m, 2h, 1d, 1h30m; "
        "at most 7d); default: the playbook's duration, or none",
    )
    run.add_argument(
        "--no-revert",
        action="store_true",
        help="no timed revert even if the playbook has a duration (default: off)",
    )
    add_reason(run)
    revert = command(
        actions,
        "revert",
        "revert a playbook run's steps in reverse order, each back to its previous value "
        "(a step whose object changed since is not sent: superseded)",
        examples=["bottui playbook revert 12", "bottui playbook revert '#12' --yes --reason done"],
        exits=_CHANGE_EXITS,
        common=CHANGE,
    )
    revert.add_argument("run_id", metavar="RUN_ID", type=_run_id, help="the run id a run printed")
    add_reason(revert)


__all__ = ["add_playbook_parser"]
