"""The command line of ``bottui doctor`` (added to the parser by :func:`add_doctor`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

PURPOSE = "check this machine: versions, terminal, keyring, tokens, API, team store, config"

EPILOG = """\
Each check ends ok, warning, problem or skipped, with a fix. Checks run at
once, each within a few seconds, so a dead network or a hanging keyring
cannot hold the doctor up. Tokens are named by where they come from (stored,
from environment, missing), never shown. The API check sends one request
with no token and the body {} to a made-up project: nothing can change.

examples:
  bottui doctor
  bottui doctor --profile prod
  bottui doctor --json | jq '.checks[] | select(.verdict == "problem")'

exit codes:
  0    no problem (warnings and skipped checks do not fail)
  1    at least one problem: something needed does not work
  2    invalid command line
  130  interrupted
"""


def add_doctor(commands: Any, common: argparse.ArgumentParser) -> None:
    """``bottui doctor`` on the ``commands`` subparsers (``common``: the shared options)."""
    import argparse

    commands.add_parser(
        "doctor",
        help=PURPOSE,
        description=PURPOSE[0].upper() + PURPOSE[1:] + ".",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )


__all__ = ["EPILOG", "PURPOSE", "add_doctor"]
