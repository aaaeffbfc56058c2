"""Local journal entries as the events a push carries (no database here).

An entry of the local journal becomes an :class:`~.events.EntryEvent` and,
when it has one, an :class:`~.events.OutcomeEvent`, both keyed by the file's
origin and the entry's id. Every JSON value passes through
:func:`bottui.store.redact.redacted_json` on the way (in ``row()``), so a
backfilled entry of an old journal reaches the store with ``serverKey``
masked whatever that journal held.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from uuid import UUID

from bottui.store.journal.records import JournalEntry
from bottui.store.team.events import EntryEvent, Event, OutcomeEvent
from bottui.store.utc import parse_time


def _object(value: Any) -> Mapping[str, Any] | None:
    """A JSON object as is; another JSON value wrapped (the store keeps objects)."""
    if value is None or isinstance(value, Mapping):
        return value
    return {"value": value}


def entry_event(entry: JournalEntry, origin: UUID) -> EntryEvent:
    """The *started* half of ``entry``."""
    return EntryEvent(
        origin=origin,
        local_id=entry.id,
        started_at=parse_time(entry.started_at),
        operator=entry.operator,
        host=entry.host or "",
        profile=entry.profile,
        base_url=entry.base_url,
        account=entry.account,
        project=entry.project,
        operation=entry.operation,
        target=_object(entry.target) or {},
        request_body=_object(entry.request_body),
        previous=_object(entry.previous),
        reason=entry.reason,
        undo_of=entry.undo_of,
        run_id=entry.run_id,
        item_key=entry.item_key,
    )


def outcome_event(entry: JournalEntry, origin: UUID) -> OutcomeEvent | None:
    """How ``entry`` ended (``None``: it has no outcome yet)."""
    if entry.outcome is None or entry.finished_at is None:
        return None
    return OutcomeEvent(
        origin=origin,
        local_id=entry.id,
        finished_at=parse_time(entry.finished_at),
        outcome=entry.outcome,
        status=entry.status,
        result=_object(entry.result),
        error=_object(entry.error),
        duration_ms=entry.duration_ms,
    )


def events_of(entries: Iterable[JournalEntry], outcomes: Iterable[JournalEntry]) -> list[Event]:
    """The events of new ``entries`` (with their outcomes) and of late ``outcomes``.

    Entries without an origin (impossible from a version-4 file) are skipped.
    """
    events: list[Event] = []
    for item in entries:
        if item.origin is None:
            continue
        origin = UUID(item.origin)
        events.append(entry_event(item, origin))
        done = outcome_event(item, origin)
        if done is not None:
            events.append(done)
    for item in outcomes:
        if item.origin is None:
            continue
        late = outcome_event(item, UUID(item.origin))
        if late is not None:
            events.append(late)
    return events


__all__ = ["entry_event", "events_of", "outcome_event"]
