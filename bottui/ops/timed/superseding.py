"""Which pending timed reverts a change would supersede, said before it is sent (#27 item 6).

A change of a rate limiter or dimension whose timed change has not reverted
yet makes that revert superseded: when due, it is skipped and nothing is
sent (:mod:`bottui.ops.revert`'s rule). The operator learns it in the
change's confirmation (TUI) or on stderr (CLI), not from a revert that
silently does not happen. :func:`pending_for` finds them;
:func:`lines` says it in plain, cleaned words.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from bottui.ops.journal_view import target_id
from bottui.ops.timed.model import TimedChange
from bottui.ops.timed.schedule import list_timed, now_of
from bottui.plaintext import clean
from bottui.store.errors import StoreError
from bottui.store.journal.records import EntryId

if TYPE_CHECKING:
    from bottui.ops.plan import PlannedChange
    from bottui.ops.session import Session


def _aim(plan: PlannedChange[Any]) -> tuple[str, str] | None:
    """``("rate limiter", id)`` or ``("dimension", id)``; None for a revocation."""
    target = plan.target
    limiter = getattr(target, "limiter_id", None)
    if isinstance(limiter, str):
        return "rate limiter", limiter
    dimension = getattr(target, "dimension_id", None)
    if isinstance(dimension, str):
        return "dimension", dimension
    return None


async def _aims_at(session: Session, timed: TimedChange, noun: str, aim: str) -> bool:
    if timed.what == f"{noun} {aim}":
        return True
    for local in timed.entry_ids:  # a playbook run's: each change of this journal
        if local is None:
            continue
        entry = await session.journal_store.entry(EntryId(local))
        if entry is not None and target_id(entry) == aim:
            return True
    return False


async def pending_for(session: Session, plan: PlannedChange[Any]) -> list[TimedChange]:
    """The timed changes still going to revert that ``plan`` would supersede.

    Never raises for the journal: one that cannot be read finds none (the
    change itself says what is wrong with the journal).
    """
    aim = _aim(plan)
    if aim is None:
        return []
    noun, aim_id = aim
    try:
        pending = [
            t
            for t in await list_timed(session)
            if t.pending and (t.account, t.project) == (plan.account, plan.project)
        ]
        return [t for t in pending if await _aims_at(session, t, noun, aim_id)]
    except StoreError:
        return []


def lines(found: list[TimedChange], now: datetime) -> list[str]:
    """``This supersedes timed change 1 (rate limiter rl-login -> ON in 27m): ...``."""
    out = []
    for timed in found:
        out.append(
            f"This supersedes timed change {clean(timed.id)} ({clean(timed.what)} -> "
            f"{clean(timed.revert_to)} {timed.when_text(now)}): its revert will not be sent."
        )
    return out


async def warning_lines(session: Session, plan: PlannedChange[Any]) -> list[str]:
    """:func:`lines` of :func:`pending_for`, at the session's now."""
    return lines(await pending_for(session, plan), now_of(session))


__all__ = ["lines", "pending_for", "warning_lines"]
