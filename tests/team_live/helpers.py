"""Teammates for the live tests: their changes put into PostgreSQL with ``TeamStore.push``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

from bottui.store.team.events import EntryEvent, OutcomeEvent
from bottui.store.team.store import TeamStore
from bottui.store.team.target import check_store_url

BOB = uuid4()


def bob_change(
    base_url: str,
    account: str,
    project: str,
    *,
    local_id: int,
    limiter: str = "rl-login",
    active: bool = False,
    operator: str = "bob",
    host: str = "bastion-2",
    reason: str | None = "INC-4312",
    origin: UUID = BOB,
) -> list[EntryEvent | OutcomeEvent]:
    """A teammate's limiter change that succeeded, started now."""
    now = datetime.now(UTC)
    entry = EntryEvent(
        origin=origin,
        local_id=local_id,
        started_at=now,
        operator=operator,
        host=host,
        profile="theirs",
        base_url=base_url,
        account=account,
        project=project,
        operation="limiter.set-active",
        target={"rate_limiter_id": limiter},
        request_body={"isActive": active},
        previous={"isActive": not active},
        reason=reason,
    )
    done = OutcomeEvent(origin=origin, local_id=local_id, finished_at=now, outcome="ok", status=200)
    return [entry, done]


async def push(url: str, events: list[EntryEvent | OutcomeEvent]) -> None:
    """Push ``events`` as a teammate would (a connection of its own)."""
    store = TeamStore(check_store_url(url, {}), timeout=20)
    try:
        await store.push(events)
    finally:
        await store.close()


async def migrated(url: str) -> str:
    """``url``, its database migrated."""
    store = TeamStore(check_store_url(url, {}), timeout=20)
    try:
        await store.migrate()
    finally:
        await store.close()
    return url


async def wait_for(check: Callable[[], Any], timeout: float = 30, what: str = "") -> None:
    """Until ``check()`` is true (generous: a busy 2-core machine), else fail."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.05)
