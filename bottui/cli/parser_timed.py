"""The command line of timed changes: ``--for`` on the changes, ``timed``, ``run-due``.

:func:`add_timed` is called once by :func:`bottui.cli.parser.build_parser`:
it adds ``--for DURATION`` to ``limiter enable|disable``, ``thresholds set``
and ``revoke`` (which refuses it, saying why), and the commands ``timed``
and ``run-due``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final

_FOR_HELP: Final = (
    "revert to the value before after this long: 90s, 30m, 2h, 1d, 1h30m (at most 7d; "
    "default: never). Refused (exit 2, nothing sent) when the value before is not known"
)
_EXIT_CODES: Final = (
    "exit codes: 0 done; 1 the API answered an error; 2 refused before sending "
    "(read-only, protected without --yes, no such id, late past the limit); "
    "3 no credentials; 4 network failure or an answer that never came"
)


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


def _subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:  # argparse keeps subparsers only there
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            found: argparse.ArgumentParser = action.choices[name]
            return found
    raise KeyError(name)


def add_timed(commands: Any, add: Callable[[Any, str, str], argparse.ArgumentParser]) -> None:
    """``--for`` on the changes that can be timed (and on revoke, to refuse it); the commands."""
    root = {"limiter": commands.choices["limiter"], "thresholds": commands.choices["thresholds"]}
    for sub in (
        _subcommand(root["limiter"], "enable"),
        _subcommand(root["limiter"], "disable"),
        _subcommand(root["thresholds"], "set"),
    ):
        sub.add_argument(
            "--for", dest="for_", metavar="DURATION", type=_duration, default=None, help=_FOR_HELP
        )
    commands.choices["revoke"].add_argument(
        "--for",
        dest="for_",
        metavar="DURATION",
        default=None,
        help="refused: a revocation cannot be timed (the API cannot give a grant back)",
    )

    timed = add(commands, "timed", "timed changes: what reverts when; extend, cancel, revert now")
    timed.formatter_class = argparse.RawDescriptionHelpFormatter
    timed.epilog = (
        "examples:\n"
        "  bottui limiter disable rl-login --for 2h   # a timed change\n"
        "  bottui timed                                # what reverts when\n"
        "  bottui timed extend 3 1h                    # revert an hour later\n"
        "  bottui timed cancel 3                       # keep the change\n\n" + _EXIT_CODES
    )
    timed.add_argument(
        "--all",
        action="store_true",
        help="list finished ones too (reverted, superseded, cancelled; default: no)",
    )
    actions = timed.add_subparsers(dest="action", metavar="ACTION")
    extend = add(actions, "extend", "revert later: from its due time (or now, when overdue)")
    extend.add_argument("timed_id", metavar="ID", help="the id `bottui timed` shows")
    extend.add_argument(
        "by",
        metavar="DURATION",
        type=_duration,
        help="how much later: 30m, 1h, 1h30m (at most 7d from now)",
    )
    cancel = add(actions, "cancel", "keep the change: its revert will not happen")
    cancel.add_argument("timed_id", metavar="ID", help="the id `bottui timed` shows")
    revert = add(actions, "revert", "revert now (protected profiles: --yes)")
    revert.add_argument("timed_id", metavar="ID", help="the id `bottui timed` shows")

    run_due = add(
        commands, "run-due", "perform the reverts that are due (for cron or a systemd timer)"
    )
    run_due.formatter_class = argparse.RawDescriptionHelpFormatter
    run_due.epilog = (
        "examples:\n"
        "  bottui run-due                                  # what a timer runs every minute\n"
        "  bottui run-due --late-ok                        # send reverts past the limit too\n"
        "  bottui run-due --now 2026-11-24T12:00:00Z --json  # as if at that time\n\n"
        "Tokens: the keyring, or systemd LoadCredential= files bottui-api-key and "
        "bottui-access-token in $CREDENTIALS_DIRECTORY (never Environment=).\n"
        + _EXIT_CODES.replace("0 done", "0 done (or nothing due)")
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
