"""The y/N question on a terminal that a protected change, a playbook run or a warned change asks.

Its own module so that the commands asking it (``changes``, ``recent``, ``playbooks``)
import it from below rather than from each other; they call it through the module
(``terminal_confirm.confirm_on_terminal``), so a test can answer it.
"""

from __future__ import annotations

import sys

from bottui.cli.output import Output
from bottui.cli.parser import UsageError


def confirm_on_terminal(out: Output, question: str) -> None:
    """Ask y/N on a terminal; refuse (exit 2) when there is none or the answer is not yes."""
    if not sys.stdin.isatty():
        raise UsageError(
            "Not confirmed", "stdin is not a terminal: pass --yes to confirm; nothing was sent"
        )
    out.err.write(f"{question} [y/N] ")
    out.err.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise UsageError("Not confirmed", "nothing was sent")


__all__ = ["confirm_on_terminal"]
