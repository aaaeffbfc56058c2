"""The command line of ``bottui doctor`` (added to the parser by :func:`add_doctor`)."""

from __future__ import annotations

from typing import Any

PURPOSE = "check this machine: versions, terminal, keyring, tokens, API, team store, config"

ABOUT = """\
Each check ends ok, warning, problem or skipped, with a fix. Checks run at
once, each within a few seconds, so a dead network or a hanging keyring
cannot hold the doctor up. Tokens are named by where they come from (stored,
from environment, missing), never shown. The API check sends one request
with no token and the body {} to a made-up project: nothing can change."""


def add_doctor(commands: Any) -> None:
    """``bottui doctor`` on the ``commands`` subparsers."""
    from bottui.cli.help_text import SESSION, command

    sub = command(
        commands,
        "doctor",
        PURPOSE,
        examples=[
            "bottui doctor",
            "bottui doctor --profile prod",
            "bottui doctor --json | jq '.checks[] | select(.verdict == \"problem\")'",
        ],
        exits=[
            (0, "no problem (warnings and skipped checks do not fail)"),
            (1, "at least one problem: something needed does not work"),
            (2, "invalid command line"),
            130,
        ],
        common=SESSION,
    )
    sub.epilog = f"{ABOUT}\n\n{sub.epilog}"


__all__ = ["ABOUT", "PURPOSE", "add_doctor"]
