"""Journal events for the team store tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

from bottui.store.team.push_events import EntryEvent, OutcomeEvent

T0 = datetime(2026, 11, 24, 3, 0, tzinfo=UTC)


def entry(local_id: int, origin: UUID | None = None, **fields: Any) -> EntryEvent:
    """An entry event with defaults; ``fields`` override them."""
    values: dict[str, Any] = {
        "origin": origin or uuid4(),
        "local_id": local_id,
        "started_at": T0 + timedelta(seconds=local_id),
        "operator": "alice@laptop",
        "host": "laptop",
        "profile": "prod",
        "base_url": "https://api.example.com",
        "account": "acme",
        "project": "shop-prod",
        "operation": "limiter.set-active",
        "target": {"rate_limiter_id": "rl-login"},
        "request_body": {"isActive": False},
        "previous": {"isActive": True},
        "reason": "INC-4312 credential stuffing",
    }
    values.update(fields)
    return EntryEvent(**values)


def outcome(event: EntryEvent, word: str = "ok", **fields: Any) -> OutcomeEvent:
    """The outcome event of ``event``."""
    values: dict[str, Any] = {
        "origin": event.origin,
        "local_id": event.local_id,
        "finished_at": event.started_at + timedelta(milliseconds=120),
        "outcome": word,
        "status": 200,
        "result": {"isActive": False},
        "duration_ms": 120.5,
    }
    values.update(fields)
    return OutcomeEvent(**values)
