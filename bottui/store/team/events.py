"""What a push carries: journal entries and their outcomes, each an event with its own id.

An event id is ``(origin, local_id)``: the UUID of the local journal file
that wrote the entry and the entry's id there. An outcome is keyed to its
entry by the same pair (an entry has at most one outcome). Pushing is
at-least-once; the database stores each event once.

Rows are built here, never from a ``str()`` of anything: JSON values pass
through :func:`bottui.store.redact.redacted_json` (``serverKey`` masked, a
token object refused), text through :func:`db_text` (a token object refused,
lone surrogates and NUL, which PostgreSQL's text cannot hold, become U+FFFD;
every other character, control characters included, is kept exactly).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final
from uuid import UUID

from bottui.plaintext import REPLACEMENT, repair_surrogates
from bottui.store.journal.records import outcome_word, text
from bottui.store.redact import redacted_json
from bottui.store.team.schema import MAX_STORED_REASON

#: Columns of ``journal_entries`` a push writes, in row order.
ENTRY_COLUMNS: Final = (
    "origin",
    "local_id",
    "started_at",
    "operator",
    "host",
    "profile",
    "reason",
    "base_url",
    "account",
    "project",
    "operation",
    "target",
    "request_body",
    "previous",
    "undo_of",
    "run_id",
    "item_key",
)
#: Columns of an outcome a push sends (the entry's server id is looked up).
OUTCOME_COLUMNS: Final = (
    "origin",
    "local_id",
    "finished_at",
    "outcome",
    "status",
    "result",
    "error",
    "duration_ms",
)


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
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"{field} must be a JSON object")
    found = redacted_json(value, sort_keys=sort_keys)
    # JSON escapes NUL; a lone surrogate would not encode as UTF-8.
    return None if found is None else repair_surrogates(found)


def _aware(field: str, moment: datetime) -> datetime:
    if not isinstance(moment, datetime):
        raise TypeError(f"{field} must be a datetime")
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _int(field: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{field} must be an integer")
    return value


@dataclass(frozen=True)
class EntryEvent:
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
            _int("local_id", self.local_id),
            _aware("started_at", self.started_at),
            db_text("operator", self.operator),
            db_text("host", self.host),
            db_text("profile", self.profile),
            _bounded_reason(self.reason),
            db_text("base_url", self.base_url),
            db_text("account", self.account),
            db_text("project", self.project),
            db_text("operation", self.operation),
            target,
            _json("request_body", self.request_body),
            _json("previous", self.previous),
            _int("undo_of", self.undo_of),
            _int("run_id", self.run_id),
            _optional_text("item_key", self.item_key),
        )


@dataclass(frozen=True)
class OutcomeEvent:
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
        duration = self.duration_ms
        if duration is not None and (
            isinstance(duration, bool) or not isinstance(duration, int | float)
        ):
            raise TypeError("duration_ms must be a number")
        return (
            self.origin,
            _int("local_id", self.local_id),
            _aware("finished_at", self.finished_at),
            outcome_word(self.outcome),
            _int("status", self.status),
            _json("result", self.result),
            _json("error", self.error),
            None if duration is None else float(duration),
        )


#: One event of a push.
Event = EntryEvent | OutcomeEvent


def load_json(value: str | None) -> Any:
    """A stored JSON text back as a value (``None`` stays ``None``)."""
    return None if value is None else json.loads(value)


__all__ = [
    "ENTRY_COLUMNS",
    "OUTCOME_COLUMNS",
    "EntryEvent",
    "Event",
    "OutcomeEvent",
    "db_text",
    "load_json",
]
