"""Where a timed change's events, claims and results go: this journal, and the team store.

Without a team store (``store`` in the profile, ``BOTTUI_STORE_URL``) all of
it is this machine's journal. With one:

* events are written to this journal first (the outbox) and pushed to the
  team store with the rest of the outbox by
  :func:`bottui.ops.timed_record.push_events` (after scheduling, extending,
  cancelling, and before listing), each once;
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
from typing import TYPE_CHECKING, Any

from bottui.ops.timed_record import push_events
from bottui.store.journal.journal_records import JournalEntry
from bottui.store.journal.journal_timed import TimedClaim, TimedEvent
from bottui.store.store_errors import StoreError

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.store.journal.journal_records import JournalReader
    from bottui.store.team.pg_store import TeamStore


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
