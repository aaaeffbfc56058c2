"""What the team store hands back: entries read, what a push did, its status."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from bottui.store.paging import Cursor


@dataclass(frozen=True)
class TeamEntry:
    """One shared journal entry with its outcome (``None`` fields: none yet).

    ``operator`` is who the writer claimed to be; ``db_role`` the database role
    that wrote it (recorded by the server); ``received_at`` the server's clock.
    """

    id: int
    origin: UUID
    local_id: int
    db_role: str
    received_at: datetime
    started_at: datetime
    operator: str
    host: str
    profile: str
    reason: str | None
    base_url: str
    account: str
    project: str
    operation: str
    target: dict[str, Any]
    request_body: dict[str, Any] | None
    previous: dict[str, Any] | None
    undo_of: int | None
    run_id: int | None
    item_key: str | None
    finished_at: datetime | None = None
    outcome: str | None = None
    status: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    duration_ms: float | None = None
    outcome_db_role: str | None = None
    outcome_received_at: datetime | None = None


@dataclass(frozen=True)
class TeamPage:
    """One page of shared entries, newest first, and the next page's cursor (``None``: end)."""

    entries: tuple[TeamEntry, ...]
    next: Cursor | None


@dataclass(frozen=True)
class Pushed:
    """What one push did.

    ``entries``/``outcomes``: events stored now; ``duplicates``: events the
    store held already (an earlier push whose answer was lost);
    ``orphans``: outcomes whose entry the store does not hold yet (not
    stored: push them again after their entry).
    """

    entries: int = 0
    outcomes: int = 0
    duplicates: int = 0
    orphans: int = 0


@dataclass(frozen=True)
class StoreStatus:
    """``bottui store status``: where, which schema, and the outbox's state.

    ``waiting`` and ``last_sync`` describe this machine's outbox (entries not
    yet shared, the last successful push); until the outbox exists they
    read 0 and never.
    """

    where: str
    schema_version: int
    app_schema_version: int
    server_version: str
    role: str
    waiting: int = 0
    last_sync: datetime | None = None


@dataclass(frozen=True)
class Change:
    """A notification from the store: rows were added to ``table``.

    ``last`` is the newest server id among them (journal tables), ``count``
    how many (one COPY of many rows is one notification).
    """

    channel: str
    table: str
    count: int = 0
    last: int | None = None


__all__ = ["Change", "Pushed", "StoreStatus", "TeamEntry", "TeamPage"]
