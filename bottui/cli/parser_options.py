"""The options and option types several command modules of the parser share.

The ``parser_*`` modules that :func:`bottui.cli.parser.build_parser` calls import them from
here, below the parser (not from it, which imports them); like them, imported only when
the parser is built.
"""

from __future__ import annotations

import argparse


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
    """A journal id as shown (``#1234``) or bare (argparse ``type``)."""
    return positive_int(text.strip().removeprefix("#"))


REASON_HELP = (
    "why (journaled with the change, e.g. an incident id); a profile with "
    "require_reason = true refuses a change without one (exit 2)"
)


def add_reason(parser: argparse.ArgumentParser) -> None:
    """``--reason TEXT`` on a command that changes something."""
    parser.add_argument("--reason", metavar="TEXT", default=None, help=REASON_HELP)


ACK_COLLISION_HELP = (
    "send even though a teammate changed the same target in the last 15 minutes, "
    "without asking on a terminal (a protected profile refuses a script otherwise, exit 2); "
    "the acknowledged changes are journaled with the reason (default: no)"
)


def add_ack_collision(parser: argparse.ArgumentParser) -> None:
    """``--ack-collision`` on a change the collision check warns about."""
    parser.add_argument("--ack-collision", action="store_true", help=ACK_COLLISION_HELP)


__all__ = [
    "ACK_COLLISION_HELP",
    "REASON_HELP",
    "add_ack_collision",
    "add_reason",
    "entry_id",
    "positive_int",
]
