"""No two operators fighting over one switch: who changed this target lately (#13).

Before a limiter or dimension change is confirmed, :func:`check` asks the
team store who else (another operator, or another machine's journal)
changed the same target in the last :data:`WINDOW` seconds, by the
database server's clock. The answer is shown inside the TUI's confirmation
and on stderr before the CLI sends. A store that cannot be asked never
blocks the change: the check says it could not be made.

Under a protected profile a face must have the operator confirm after the
warning; a script (no terminal) is refused unless it acknowledged the
collision beforehand (``--ack-collision``). :func:`acknowledge` records an
acknowledgement on the plan: the change's journal entry carries it after the
reason (:attr:`~bottui.ops.planning.PlannedChange.journal_reason`), naming each
teammate's change acknowledged.

The lines are built from the database's strings, which are untrusted: each
is cleaned here (``plaintext.clean``) and shown as plain text.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

import msgspec
from msgspec.structs import replace

from bottui.ops.journal_view import own_origin, what, who
from bottui.ops.planning import LimiterTarget, ThresholdsTarget
from bottui.plaintext import clean
from bottui.store.journal.journal_records import dimension_target, limiter_target
from bottui.store.store_errors import StoreError

if TYPE_CHECKING:
    from uuid import UUID

    from bottui.ops.planning import PlannedChange
    from bottui.ops.session import Session
    from bottui.store.team.read_rows import TeamEntry

#: The window of the warning, in seconds.
WINDOW: Final = 15 * 60
#: Seconds the check may take: a store that does not answer must not hold up the change.
CHECK_TIMEOUT: Final = 3.0
#: How many acknowledged changes are named in the journal (then "and N more").
ACK_NAMED: Final = 3

T = TypeVar("T")


class RecentCheck(msgspec.Struct, frozen=True):
    """What the check found: others' recent changes, or why it could not be made."""

    changes: tuple[TeamEntry, ...] = ()
    #: Why the check could not be made (None: it was).
    unchecked: str | None = None

    @property
    def warns(self) -> bool:
        """True when there is something to show before confirming."""
        return bool(self.changes) or self.unchecked is not None

    def lines(self, now: datetime | None = None) -> list[str]:
        """The warning in plain, cleaned lines (empty: nothing to say)."""
        if self.unchecked is not None:
            return [f"Could not check for teammates' recent changes: {clean(self.unchecked)}"]
        if not self.changes:
            return []
        moment = now or datetime.now(UTC)
        out = [f"Changed by someone else in the last {WINDOW // 60} minutes:"]
        for entry in self.changes:
            out.append("  " + _line(entry, moment))
        return out


def _ago(started: datetime, now: datetime) -> str:
    seconds = max(0, int((now - started).total_seconds()))
    stamp = started.astimezone(UTC).strftime("%H:%M:%S UTC")
    if seconds < 60:
        return f"{stamp}, {seconds} s ago"
    return f"{stamp}, {seconds // 60} min ago"


def _line(entry: TeamEntry, now: datetime) -> str:
    role = clean(entry.db_role)
    line = f"{who(entry)} (role {role}) {what(entry)} at {_ago(entry.started_at, now)}"
    line += f", {clean(entry.outcome)}" if entry.outcome else ", outcome not known yet"
    reason = clean(entry.reason) if entry.reason else "no reason given"
    return f"{line} · {reason}"


def _target(plan: PlannedChange[Any]) -> dict[str, str] | None:
    target = plan.target
    if isinstance(target, LimiterTarget):
        return limiter_target(target.limiter_id)
    if isinstance(target, ThresholdsTarget):
        return dimension_target(target.dimension_id)
    return None


def _mine(entry: TeamEntry, origin: UUID | None, operator: str | None) -> bool:
    # Ours: written by this machine's journal under this operator name.
    same_operator = operator is None or entry.operator == operator
    return origin is not None and entry.origin == origin and same_operator


def acknowledgement(found: RecentCheck, how: str) -> str | None:
    """What is journaled when the operator acknowledges ``found`` (None: nothing to
    acknowledge): ``collision acknowledged (--ack-collision): bob@bastion-2 disabled
    rl-login on shop-prod at 12:03:04 UTC (ORIGIN:17)``. ``how`` names the means."""
    if not found.changes:
        return None
    named = [
        f"{who(e)} {what(e)} at {e.started_at.astimezone(UTC).strftime('%H:%M:%S UTC')} "
        f"({e.origin}:{e.local_id})"
        for e in found.changes[:ACK_NAMED]
    ]
    more = len(found.changes) - ACK_NAMED
    if more > 0:
        named.append(f"and {more} more")
    return f"collision acknowledged ({clean(how)}): " + "; ".join(named)


def acknowledge(plan: PlannedChange[T], found: RecentCheck, how: str) -> PlannedChange[T]:
    """``plan`` with ``found``'s teammates' changes acknowledged by ``how``
    (``--ack-collision``, ``the confirmation dialog``), journaled with its reason.
    The plan as it is when ``found`` holds no change."""
    text = acknowledgement(found, how)
    return plan if text is None else replace(plan, acknowledged=text)


async def check(session: Session, plan: PlannedChange[Any]) -> RecentCheck | None:
    """Others' changes of ``plan``'s target lately; None: no team store, or not a
    limiter or dimension change. Never raises for the store: it says it could not check."""

    target = _target(plan)
    if target is None or not session.settings.store_url:
        return None
    try:
        store = await session.team_store()
        if store is None:
            return None
        async with asyncio.timeout(CHECK_TIMEOUT):
            found = await store.recent(
                session.base_url, plan.account, plan.project, target, seconds=WINDOW
            )
    except StoreError as exc:
        return RecentCheck(unchecked=clean(exc.title))
    except TimeoutError:
        return RecentCheck(unchecked=f"the team store did not answer within {CHECK_TIMEOUT:g} s")
    if not found:
        return RecentCheck()
    origin = await own_origin(session)
    operator = session.settings.operator
    return RecentCheck(tuple(e for e in found if not _mine(e, origin, operator)))
