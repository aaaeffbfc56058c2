"""The collision warning on the command line: teammates' recent changes, before sending (#13).

Before a limiter or threshold change is sent, stderr says who else changed
the same target in the last 15 minutes (or that the check could not be
made: the change is never blocked by the team store). Under a protected
profile the warning must be seen before the change is confirmed, and
``--yes`` was typed before it could be: the question is asked again on the
terminal after the warning, and without a terminal nothing is sent (exit 2).

A change that supersedes a pending timed revert says so first (#27: "warning:
This supersedes timed change 1 (...): its revert will not be sent.").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from bottui.cli import terminal_confirm
from bottui.cli.output import Output
from bottui.cli.parser import UsageError
from bottui.ops import collisions
from bottui.ops.confirmation import ConfirmKind
from bottui.ops.timed.schedule import warning_lines

if TYPE_CHECKING:
    from bottui.ops.plan import PlannedChange
    from bottui.ops.session import Session

T = TypeVar("T")

#: How an acknowledgement is journaled, by the means.
ACK_FLAG = "--ack-collision"
ACK_TERMINAL = "confirmed on a terminal after the warning"


async def warn_supersedes(out: Output, session: Session, plan: PlannedChange[T]) -> None:
    """Say on stderr which pending timed reverts ``plan`` supersedes (nothing when none)."""
    for line in await warning_lines(session, plan):
        out.message(f"warning: {line}")


async def warn_recent(
    out: Output, session: Session, plan: PlannedChange[T], *, ack: bool = False
) -> PlannedChange[T]:
    """Print the warning on stderr; under a protected profile, confirm after it (or
    ``ack``: ``--ack-collision`` did). The plan to send: with the acknowledgement."""
    await warn_supersedes(out, session, plan)
    found = await collisions.check(session, plan)
    if found is None or not found.warns:
        return plan
    for line in found.lines():
        out.message(f"warning: {line}")
    if not found.changes:
        return plan
    if ack:
        out.message(f"collision acknowledged ({ACK_FLAG}): journaled with the change")
        return collisions.acknowledge(plan, found, ACK_FLAG)
    if plan.confirmation.kind is not ConfirmKind.TYPED:
        return plan
    try:
        terminal_confirm.confirm_on_terminal(out, "Someone else changed it lately. Send anyway?")
    except UsageError as exc:
        raise UsageError(
            "Not confirmed",
            "changed by someone else in the last 15 minutes, and this profile is"
            " protected: confirm on a terminal after reading the warning, or acknowledge it"
            f" with {ACK_FLAG}; nothing was sent"
            if "not a terminal" in exc.details
            else exc.details,
        ) from None
    return collisions.acknowledge(plan, found, ACK_TERMINAL)


__all__ = ["ACK_FLAG", "ACK_TERMINAL", "warn_recent", "warn_supersedes"]
