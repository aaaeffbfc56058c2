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

Where a timed change's events, claims and results go: this journal, and the team store.
Without a team store (``store`` in the profile, ``BOTTUI_STORE_URL``) all of
it is this machine's journal. With one:

* events are written to this journal first (the outbox) and pushed to the
  team store with the rest of the outbox by :func:`push_events` (after
  scheduling, extending, cancelling, and before listing), each once;
* :func:`merged` lists everyone's: the team store's events and claims, and
  this journal's not yet pushed; a store that is down leaves this journal's
  alone, with a warning;
* :func:`claim` INSERTs the claim into the team store first: exactly one
  executor across every machine wins it, then it is mirrored here. A store
  that is down claims nothing, so nothing is sent (:class:`StoreError`);
* :func:`record` writes the result to the team store, then here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bottui.store.journal.journal_records import JournalEntry, local_host, local_operator
from bottui.store.journal.journal_rows import micros
from bottui.store.journal.journal_timed import TimedClaim, TimedEvent
from bottui.store.store_errors import StoreError
from bottui.store.utc import stamp, system_clock

if TYPE_CHECKING:
    from bottui.ops.planning import PlannedChange
    from bottui.ops.session import Session
    from bottui.store.journal.journal_records import JournalReader
    from bottui.store.team.pg_store import TeamStore


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


# -- the team store: everyone's events, one claim, the result --------------------------


async def _store(session: Session) -> TeamStore | None:
    if not session.settings.store_url:
        return None
    try:
        return await session.team_store()
    except StoreError as exc:
        session.warn(f"team store: {exc.title}")
        return None


async def merged(
    session: Session, events: list[TimedEvent], claims: dict[str, TimedClaim]
) -> tuple[list[TimedEvent], dict[str, TimedClaim]]:
    """This journal's events and claims with the team's (the team store's claims win)."""
    store = await _store(session)
    if store is None:
        return events, claims
    await push_events(session)
    try:
        theirs = await store.timed_events()
        their_claims = await store.timed_claims()
    except StoreError as exc:
        session.warn(f"team store down: only this machine's timed changes ({exc.title})")
        return events, claims
    by_id = {e.event_id: e for e in theirs}
    for event in events:
        by_id.setdefault(event.event_id, event)
    all_claims = dict(claims)
    all_claims.update({c.timed: c for c in their_claims})
    return sorted(by_id.values(), key=lambda e: (e.at, e.event_id)), all_claims


async def claim(session: Session, key: str, *, executor: str, at: int) -> bool:
    """Claim the revert of ``key``; False: another executor has it.

    Raises:
        StoreError: the team store (or this journal) could not be written:
            nothing is claimed, so nothing may be sent.
    """
    store = await _store(session)
    local = session.timed_store
    if store is None:
        if session.settings.store_url:
            raise StoreError("The team store is unavailable", "the revert was not claimed")
        return await local.write(lambda j: j.claim(key, at=at, executor=executor))
    if not await store.claim_timed(key, at=at, executor=executor):
        return False
    # Mirrored here so this journal shows it; the team store's claim is the one that counts.
    await local.write(lambda j: j.claim(key, at=at, executor=executor))
    return True


async def record(session: Session, key: str, state: str, detail: dict[str, Any], at: int) -> None:
    """Record how the claimed revert of ``key`` ended (team store first, then here).

    A store that cannot be written leaves a warning: the claim stays unfinished there.
    """
    store = await _store(session)
    if store is not None:
        try:
            await store.timed_result(key, state, detail, at=at)
        except StoreError as exc:
            session.warn(f"the revert's result is not shared with the team: {exc.title}")
    try:
        await session.timed_store.write(lambda j: j.result(key, state, detail, at=at))
    except StoreError as exc:
        session.warn(f"the revert's result is NOT journaled: {exc.title}")


async def entries(session: Session, event_ids: Sequence[str]) -> Mapping[str, JournalEntry]:
    """The team store's entries of these event ids (another machine's changes)."""
    store = await _store(session)
    if store is None:
        return {}
    from bottui.ops.shared_journal import from_team

    found = await store.entries_by_event(event_ids)
    return {event: from_team(entry) for event, entry in found.items()}


async def pages(session: Session) -> JournalReader | None:
    """Where newer changes are looked for: the team's shared journal (None: this journal)."""
    if not session.settings.store_url:
        return None
    team = await session.team()
    if team is None:
        return None
    from bottui.ops.shared_journal import SharedJournal

    await team.sync_within(5.0)
    return SharedJournal(session.journal_store, team)
