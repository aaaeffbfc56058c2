"""The command line of timed changes: ``--for`` on the changes, ``timed``, ``run-due``.

:func:`add_timed` is called once by :func:`bottui.cli.parser.build_parser`:
it adds ``--for DURATION`` to ``limiter enable|disable``, ``thresholds set``
and ``revoke`` (which refuses it, saying why), the value to revert to when
the inventory does not know it (``--revert-to on|off``; ``--revert-to-block``
and ``--revert-to-challenge``), and the commands ``timed`` and ``run-due``.
"""

from __future__ import annotations

import argparse
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from bottui.cli.help_text import Exit

_FOR_HELP: Final = (
    "revert to the value before after this long: 90s, 30m, 2h, 1d, 1h30m (at most 7d; "
    "default: never). Refused (exit 2, nothing sent) when the value before is not known "
    "and not stated"
)
_REVERT_TO_HELP: Final = (
    "with --for: the state to revert to, when the inventory does not know the one before "
    "(journaled as stated by you); refused (exit 2) when the inventory knows another one "
    "(default: the known value before)"
)
_REVERT_TO_THRESHOLD_HELP: Final = (
    "with --for, and --revert-to-{other}: the {which} threshold to revert to, when the "
    "inventory does not know the one before (the revert keeps --name; journaled as stated "
    "by you; refused, exit 2, when the inventory knows other values; default: the known ones)"
)
#: The exit codes of sending reverts.
_EXITS: Final[list[Exit]] = [
    0,
    1,
    (
        2,
        "refused before sending: read-only, protected without --yes, no such id, "
        "superseded, late past the limit, or an outcome in doubt (a claim whose "
        "executor stopped: `bottui timed resolve ID`)",
    ),
    3,
    (4, "network failure, or an answer that never came (the revert's outcome is unknown)"),
    130,
]


def _duration(text: str) -> timedelta:
    from bottui.ops.durations import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _moment(text: str) -> datetime:
    from bottui.store.utc import parse_time

    try:
        return parse_time(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_timed(commands: Any) -> None:
    """``--for`` on the changes that can be timed (and on revoke, to refuse it); the commands."""
    from bottui.cli.help_text import CHANGE, SESSION, command
    from bottui.cli.suggest import subcommands

    limiter = subcommands(commands.choices["limiter"])
    thresholds_set = subcommands(commands.choices["thresholds"])["set"]
    for sub in (limiter["enable"], limiter["disable"], thresholds_set):
        sub.add_argument(
            "--for", dest="for_", metavar="DURATION", type=_duration, default=None, help=_FOR_HELP
        )
    for sub in (limiter["enable"], limiter["disable"]):
        sub.add_argument("--revert-to", choices=["on", "off"], default=None, help=_REVERT_TO_HELP)
    for which, other in (("block", "challenge"), ("challenge", "block")):
        thresholds_set.add_argument(
            f"--revert-to-{which}",
            metavar="NUMBER",
            default=None,
            help=_REVERT_TO_THRESHOLD_HELP.format(which=which, other=other),
        )
    commands.choices["revoke"].add_argument(
        "--for",
        dest="for_",
        metavar="DURATION",
        default=None,
        help="refused: a revocation cannot be timed (the API cannot give a grant back)",
    )

    timed = command(
        commands,
        "timed",
        "timed changes: what reverts when; extend, cancel or revert one now",
        examples=[
            "bottui timed",
            "bottui timed extend 3 1h",
            "bottui timed cancel 3",
        ],
        exits=[0, (2, "refused: no such timed change, or invalid options"), 130],
        common=SESSION,
    )
    timed.add_argument(
        "--all",
        action="store_true",
        help="list finished ones too (reverted, superseded, cancelled; default: no)",
    )
    timed.add_argument(
        "--now",
        metavar="ISO",
        type=_moment,
        default=None,
        help="list as if at this UTC time: what is due, late or in doubt (default: now)",
    )
    actions = timed.add_subparsers(
        dest="action", metavar="ACTION", parser_class=type(timed), title="actions"
    )
    extend = command(
        actions,
        "extend",
        "revert later: from its due time (or from now, when overdue)",
        examples=["bottui timed extend 3 1h", "bottui timed extend 3 30m --json"],
        exits=[0, (2, "no such timed change, or it is no longer scheduled"), 130],
        common=SESSION | {"dry_run"},
    )
    extend.add_argument("timed_id", metavar="TIMED_ID", help="the id `bottui timed` shows")
    extend.add_argument(
        "by",
        metavar="DURATION",
        type=_duration,
        help="how much later: 30m, 1h, 1h30m (at most 7d from now)",
    )
    cancel = command(
        actions,
        "cancel",
        "keep the change: its revert will not happen",
        examples=["bottui timed cancel 3", "bottui timed cancel 3 --json"],
        exits=[0, (2, "no such timed change, or it is no longer scheduled"), 130],
        common=SESSION | {"dry_run"},
    )
    cancel.add_argument("timed_id", metavar="TIMED_ID", help="the id `bottui timed` shows")
    revert = command(
        actions,
        "revert",
        "revert now, as its timer would (protected profiles: --yes)",
        examples=["bottui timed revert 3", "bottui timed revert 3 --yes --json"],
        exits=_EXITS,
        common=CHANGE,
    )
    revert.add_argument("timed_id", metavar="TIMED_ID", help="the id `bottui timed` shows")
    resolve = command(
        actions,
        "resolve",
        "a claim in doubt (its executor stopped, or someone else claimed it): check it, "
        "then mark it done or send the revert again",
        examples=[
            "bottui timed resolve 3",
            "bottui timed resolve 3 --done",
            "bottui timed resolve 3 --resend --yes",
        ],
        exits=[
            (0, "checked, marked done, or re-sent and reverted"),
            1,
            (
                2,
                "refused: no such timed change, not a claim in doubt, read-only, protected "
                "without --yes (--resend), or another operator is re-sending it",
            ),
            *_EXITS[3:],
        ],
        common=CHANGE,
    )
    resolve.add_argument("timed_id", metavar="TIMED_ID", help="the id `bottui timed` shows")
    resolve.add_argument(
        "--now",
        metavar="ISO",
        type=_moment,
        default=argparse.SUPPRESS,
        help="resolve as if at this UTC time (tests, catching up; default: now)",
    )
    how = resolve.add_mutually_exclusive_group()
    how.add_argument(
        "--done",
        action="store_true",
        help="you checked: the value is as it should be; settle the claim, send nothing",
    )
    how.add_argument(
        "--resend",
        action="store_true",
        help="send the revert again, deliberately (protected profiles: --yes)",
    )

    run_due = command(
        commands,
        "run-due",
        "perform the reverts that are due (for cron or a systemd timer)",
        examples=[
            "bottui run-due",
            "bottui run-due --late-ok",
            "bottui run-due --now 2026-11-24T12:00:00Z --json",
        ],
        exits=[(0, "done, or nothing due"), *_EXITS[1:]],
        common=SESSION | {"read_only", "dry_run"},
    )
    run_due.epilog = (
        "Tokens: the keyring, or systemd LoadCredential= files bottui-api-key and\n"
        "bottui-access-token in $CREDENTIALS_DIRECTORY (never Environment=).\n\n"
        + (run_due.epilog or "")
    )
    run_due.add_argument(
        "--now",
        metavar="ISO",
        type=_moment,
        default=None,
        help="run as if at this UTC time (tests, catching up; default: now)",
    )
    run_due.add_argument(
        "--late-ok",
        action="store_true",
        help="send reverts later than the profile's late_limit_minutes too "
        "(default: skip and report them)",
    )


__all__ = ["add_timed"]
