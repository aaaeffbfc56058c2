"""What a push carries: the typed events of the one outbox, each with its own id.

Four kinds, all pushed by one :meth:`~bottui.store.team.pg_store.TeamStore.push`:

* :class:`EntryEvent` and :class:`OutcomeEvent`: a journal entry and how it
  ended. An event id is ``(origin, local_id)``: the UUID of the local journal
  file that wrote the entry and the entry's id there. An outcome is keyed to
  its entry by the same pair (an entry has at most one outcome). Pushing is
  at-least-once; the database stores each event once. :func:`events_of` makes
  them from local journal entries.
* :class:`~bottui.store.journal.journal_timed.TimedEvent`: a timed change's schedule,
  extend or cancel, keyed the same way (``ORIGIN:eID``).
* :class:`Fact`: one field of the shared inventory, one value per (base URL,
  account, project, kind, item, field). Per field the newest write wins, by
  the **server's** clock: a write carries no time of its own; the table's
  trigger (``stamp_writer``, BEFORE INSERT OR UPDATE) sets ``received_at`` to
  ``clock_timestamp()`` and ``db_role`` to ``session_user`` on the insert and
  on the ``ON CONFLICT DO UPDATE`` alike, so a laptop whose clock is wrong
  cannot make an old value look new.

Fact kinds, items and fields (``item`` is ``""`` for the project itself):

* ``project``: ``exists`` (``yes``/``no``: a removal is ``no``), ``name``;
* ``limiter``/``dimension``: ``exists``, ``name``; a limiter's ``active``
  (``true``/``false``); a dimension's ``thresholds`` (JSON ``{"name",
  "block", "challenge"}``, the literals sent).

Rows are built here, never from a ``str()`` of anything: JSON values pass
through :func:`bottui.store.redact.redacted_json` (``serverKey`` masked, a
token object refused; a backfilled entry of an old journal reaches the store
masked whatever that journal held), text through :func:`db_text` (a token
object refused, lone surrogates and NUL, which PostgreSQL's text cannot
hold, become U+FFFD; every other character, control characters included, is
kept exactly). Every value is a bound parameter.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypeAlias
from uuid import UUID

import msgspec

from bottui.api.tokens import Secret
from bottui.plaintext import REPLACEMENT, repair_surrogates
from bottui.store.journal.journal_records import (
    JournalEntry,
    duration,
    object_json,
    optional_int,
    outcome_word,
    text,
)
from bottui.store.journal.journal_rows import from_micros
from bottui.store.team.pg_schema import MAX_STORED_REASON
from bottui.store.utc import parse_time

if TYPE_CHECKING:
    from bottui.store.journal.journal_timed import TimedEvent


def db_text(field: str, value: object) -> str:
    """``value`` as PostgreSQL text: exact, but NUL and lone surrogates as U+FFFD."""
    if isinstance(value, str):
        value = repair_surrogates(value)
    checked = text(field, value)
    return checked.replace("\x00", REPLACEMENT) if "\x00" in checked else checked


def _optional_text(field: str, value: object) -> str | None:
    return None if value is None else db_text(field, value)


def _bounded_reason(reason: str | None) -> str | None:
    """The reason as stored: at most :data:`MAX_STORED_REASON` characters (the database
    refuses a longer one; an old journal's may be), the cut marked with an ellipsis."""
    found = _optional_text("reason", reason)
    if found is None or len(found) <= MAX_STORED_REASON:
        return found
    return found[: MAX_STORED_REASON - 1] + "…"


def _json(field: str, value: Mapping[str, Any] | None, *, sort_keys: bool = False) -> str | None:
    found = object_json(field, value, sort_keys=sort_keys)
    # JSON escapes NUL; a lone surrogate would not encode as UTF-8.
    return None if found is None else repair_surrogates(found)


def _aware(field: str, moment: datetime) -> datetime:
    if not isinstance(moment, datetime):
        raise TypeError(f"{field} must be a datetime")
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class EntryEvent(msgspec.Struct, frozen=True):
    """A journal entry as it is shared (its *started* half)."""

    origin: UUID
    local_id: int
    started_at: datetime
    operator: str
    host: str
    profile: str
    base_url: str
    account: str
    project: str
    operation: str
    target: Mapping[str, Any]
    request_body: Mapping[str, Any] | None = None
    previous: Mapping[str, Any] | None = None
    reason: str | None = None
    #: The local id of the entry this one undoes (same origin).
    undo_of: int | None = None
    #: The local id of the bulk run (same origin).
    run_id: int | None = None
    item_key: str | None = None

    def row(self) -> tuple[object, ...]:
        """The row in :data:`ENTRY_COLUMNS` order; raises TypeError on a token or bad type."""
        if not isinstance(self.origin, UUID):
            raise TypeError("origin must be a UUID")
        target = _json("target", self.target, sort_keys=True)
        if target is None:
            raise TypeError("target must be a JSON object")
        return (
            self.origin,
            optional_int("local_id", self.local_id),
            _aware("started_at", self.started_at),
            db_text("operator", self.operator),
            db_text("host", self.host),
            db_text("profile", self.profile),
            db_text("base_url", self.base_url),
            db_text("account", self.account),
            db_text("project", self.project),
            db_text("operation", self.operation),
            target,
            _json("request_body", self.request_body),
            _json("previous", self.previous),
            _bounded_reason(self.reason),
            optional_int("undo_of", self.undo_of),
            optional_int("run_id", self.run_id),
            _optional_text("item_key", self.item_key),
        )


class OutcomeEvent(msgspec.Struct, frozen=True):
    """How an entry ended, keyed to it by ``(origin, local_id)``."""

    origin: UUID
    local_id: int
    finished_at: datetime
    outcome: str
    status: int | None = None
    result: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    duration_ms: float | None = None

    def row(self) -> tuple[object, ...]:
        """The row in :data:`OUTCOME_COLUMNS` order."""
        if not isinstance(self.origin, UUID):
            raise TypeError("origin must be a UUID")
        return (
            self.origin,
            optional_int("local_id", self.local_id),
            _aware("finished_at", self.finished_at),
            outcome_word(self.outcome),
            optional_int("status", self.status),
            _json("result", self.result),
            _json("error", self.error),
            duration(self.duration_ms),
        )


#: Columns of ``journal_entries`` a push writes, in row order: the event's fields.
ENTRY_COLUMNS: Final = EntryEvent.__struct_fields__
#: Columns of an outcome a push sends (the entry's server id is looked up).
OUTCOME_COLUMNS: Final = OutcomeEvent.__struct_fields__


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


def events_of(
    entries: Iterable[JournalEntry], outcomes: Iterable[JournalEntry]
) -> list[EntryEvent | OutcomeEvent]:
    """The events of new ``entries`` (with their outcomes) and of late ``outcomes``.

    Entries without an origin (impossible from a version-4 file) are skipped.
    """
    events: list[EntryEvent | OutcomeEvent] = []
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


class FactKey(NamedTuple):
    """Which field a fact sets: the table's primary key."""

    base_url: str
    account: str
    project: str
    kind: str
    item: str
    field: str


class Fact(NamedTuple):
    """One field's value as written (``operator``, ``origin``) and as stored
    (``received_at`` and ``db_role``, the server's; None before it is stored)."""

    key: FactKey
    value: str | None
    operator: str
    origin: str | None = None
    received_at: datetime | None = None
    db_role: str | None = None


def fact_row(fact: Fact) -> tuple[object, ...]:
    """The ``inventory_facts`` row of ``fact``; raises TypeError on a token or a non-text value."""
    row = (*fact.key, fact.value, fact.operator, fact.origin)
    if any(isinstance(v, Secret) for v in row):
        raise TypeError("a token must never be shared")
    if not all(v is None or isinstance(v, str) for v in row):
        raise TypeError("a fact holds text only")
    return row


def storable(fact: Fact) -> bool:
    """PostgreSQL's text cannot hold NUL: such a fact (only a name an answer gave can
    have one; ids cannot) is not shared, rather than blocking every push after it."""
    return not any(
        isinstance(v, str) and "\x00" in v for v in (*fact.key, fact.value, fact.operator)
    )


def timed_row(event: TimedEvent) -> tuple[object, ...]:
    """The ``timed_events`` row of a local timed event (its id ``ORIGIN:eID``)."""
    origin, _, local = event.event_id.rpartition(":e")
    detail = json.dumps(event.detail, ensure_ascii=False, sort_keys=True)
    return (
        UUID(origin),
        int(local),
        from_micros(event.at),
        event.kind,
        event.timed,
        detail,
        event.operator,
        event.host,
    )


#: One event of a push.
Event: TypeAlias = "EntryEvent | OutcomeEvent | TimedEvent | Fact"
