"""Journaling the schedule of a timed change: the events a change made with ``revert_after``
writes as it is sent.

:func:`schedule_plan` (the ``schedule`` event, right after the change's *started* record
and before its request is sent), :func:`unschedule` (a ``cancel`` when the change
changed nothing) and :func:`push_events` (after the change: the events to the team
store, when there is one) are what :func:`bottui.ops.mutations.apply` calls; the rest of
the timed changes' life (list, extend, cancel, a playbook's revert) is
:mod:`bottui.ops.timed.schedule`, which writes and pushes its events here too. Outside the package
``bottui.ops.timed``, whose ``__init__`` gathers the whole of timed changes (the run of
due reverts, the revert rule, which applies through ``mutations``): sending a change
imports only this.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bottui.store.journal.journal_records import local_host, local_operator
from bottui.store.journal.journal_rows import micros
from bottui.store.store_errors import StoreError
from bottui.store.utc import stamp, system_clock

if TYPE_CHECKING:
    from bottui.ops.planning import PlannedChange
    from bottui.ops.session import Session


def now_of(session: Session, now: datetime | None = None) -> datetime:
    """``now`` if given, else the session's clock (tests inject one), else the system's."""
    if now is not None:
        return now
    return (session.clock or system_clock)()


def _operator(session: Session) -> str:
    return session.settings.operator or local_operator()


async def append_event(
    session: Session, kind: str, key: str | None, detail: dict[str, Any], now: datetime
) -> str:
    """Journal one timed event (``schedule``, ``extend``, ``cancel``...); its key."""
    operator, host = _operator(session), local_host()
    return await session.timed_store.write(
        lambda j: j.append(kind, key, detail, at=micros(now), operator=operator, host=host)
    )


async def schedule_plan(
    session: Session, plan: PlannedChange[Any], entry_id: int, *, confirmed: bool
) -> str:
    """Journal the schedule of ``plan``'s revert (its started record is ``entry_id``).

    Called before the request is sent; returns the timed change's key. A value
    to revert to that the operator stated is recorded as such (``revert_to_stated``).
    """
    assert plan.revert_after is not None and plan.previous is not None
    origin = await session.timed_store.read(lambda j: j.origin())
    due = now_of(session) + plan.revert_after
    aim = aimed_at(plan)
    assert aim is not None  # timed: a rate limiter or a dimension, never a revocation
    detail = detail_of(
        session,
        entries=[(f"{origin}:{entry_id}", entry_id)],
        run_id=None,
        account=plan.account,
        project=plan.project,
        what=" ".join(aim),
        revert_to=plan.previous.text,
        due=due,
        confirmed=confirmed,
    )
    if plan.previous.stated:
        # Not known to the inventory: the operator stated it (bottui.ops.revert).
        detail["revert_to_stated"] = True
    return await append_event(session, "schedule", None, detail, now_of(session))


def aimed_at(plan: PlannedChange[Any]) -> tuple[str, str] | None:
    """``("rate limiter", id)`` or ``("dimension", id)``; None for a revocation."""
    target = plan.target
    limiter = getattr(target, "limiter_id", None)
    if isinstance(limiter, str):
        return "rate limiter", limiter
    dimension = getattr(target, "dimension_id", None)
    if isinstance(dimension, str):
        return "dimension", dimension
    return None


def detail_of(
    session: Session,
    *,
    entries: Sequence[tuple[str, int | None]],
    run_id: int | None,
    account: str,
    project: str,
    what: str,
    revert_to: str,
    due: datetime,
    confirmed: bool,
) -> dict[str, Any]:
    return {
        "entries": [event for event, _ in entries],
        "local": [local for _, local in entries],
        "run_id": run_id,
        "profile": session.settings.inventory_scope,
        "base_url": session.base_url,
        "account": account,
        "project": project,
        "what": what,
        "revert_to": revert_to,
        "due_at": stamp(due),
        "confirmed": confirmed,
    }


async def unschedule(session: Session, key: str, why: str) -> None:
    """Cancel the schedule ``key`` because its change changed nothing (a warning if it cannot)."""
    try:
        await append_event(session, "cancel", key, {"why": why}, now_of(session))
    except StoreError as exc:
        session.warn(f"the failed change's revert is still scheduled: {exc.title}")


# The team side is imported where a store is configured: a solo change, `bottui run-due` or
# TUI does without it (the timed package's import is 11 ms with it lazy, 37 ms without, on
# the busy 2-core machine: `python -X importtime -c "import bottui.ops.timed"`).


async def push_events(session: Session) -> None:
    """Push this machine's outbox now, its timed events with the rest (no store: nothing)."""
    if not session.settings.store_url:
        return
    from bottui.ops.team_push import share_now

    down = await share_now(session)
    if down is not None:
        session.warn(f"timed changes not yet shared with the team: {down}")
