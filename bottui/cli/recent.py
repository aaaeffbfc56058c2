"""The collision warning on the command line: teammates' recent changes, before sending (#13).

Before a limiter or threshold change is sent, stderr says who else changed
the same target in the last 15 minutes (or that the check could not be
made: the change is never blocked by the team store). Under a protected
profile the warning must be seen before the change is confirmed, and
``--yes`` was typed before it could be: the question is asked again on the
terminal after the warning, and without a terminal nothing is sent (exit 2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bottui.cli.output import Output
from bottui.cli.parser import UsageError
from bottui.ops import collisions
from bottui.ops.confirmation import ConfirmKind

if TYPE_CHECKING:
    from bottui.ops.plan import PlannedChange
    from bottui.ops.session import Session


async def warn_recent(out: Output, session: Session, plan: PlannedChange[Any]) -> None:
    """Print the warning on stderr; under a protected profile, confirm after it."""
    from bottui.cli.changes import confirm_on_terminal

    found = await collisions.check(session, plan)
    if found is None or not found.warns:
        return
    for line in found.lines():
        out.message(f"warning: {line}")
    if found.changes and plan.confirmation.kind is ConfirmKind.TYPED:
        try:
            confirm_on_terminal(out, "Someone else changed it lately. Send anyway?")
        except UsageError as exc:
            raise UsageError(
                "Not confirmed",
                "changed by someone else in the last 15 minutes, and this profile is"
                " protected: confirm on a terminal after reading the warning; nothing was sent"
                if "not a terminal" in exc.details
                else exc.details,
            ) from None


__all__ = ["warn_recent"]
