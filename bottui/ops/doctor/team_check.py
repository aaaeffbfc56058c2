"""The shared (team) store: reachable, its schema version, entries not yet shared.

Skipped in solo mode (no ``store`` in the profile, no ``BOTTUI_STORE_URL``).
The count of entries waiting is read from the local journal's outbox, and
only when a journal exists: the doctor creates no file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final

from bottui.ops.doctor.model import Check, Verdict
from bottui.store.errors import StoreError
from bottui.store.team.outbox import Scope
from bottui.store.tokens import TokenStore

_TITLE: Final = "Team store"


async def check_team_store(
    url: str | None,
    environ: Mapping[str, str],
    tokens: TokenStore,
    journal: Path,
    *,
    timeout: float,
    scope: Scope | None = None,
) -> Check:
    """Connect once, read the schema version, count what waits to be shared, and
    what was journaled here before the store (of ``scope``) and is not shared."""
    if not url:
        return Check(
            "team-store", _TITLE, Verdict.SKIPPED, "solo mode: no team store is configured"
        )
    from bottui.ops.team_push import TeamSync, open_team_store_url

    try:
        store = await open_team_store_url(url, environ, tokens, timeout=timeout)
    except StoreError as exc:
        return Check("team-store", _TITLE, Verdict.PROBLEM, f"refused: {_said(exc)}", _FIX_URL)
    team = TeamSync(journal, store) if journal.exists() else None
    try:
        status = await store.status()
        waiting = (await team.backlog()).waiting if team is not None else 0
        older = await team.not_shared(scope) if team is not None and scope is not None else 0
    except StoreError as exc:
        return Check(
            "team-store",
            _TITLE,
            Verdict.PROBLEM,
            f"{store.target.where}: {_said(exc)}",
            "check that the server runs and this machine may reach it; "
            "the password comes from ~/.pgpass, PGPASSWORD or bottui token set store",
        )
    finally:
        if team is not None:
            await team.close()
        else:
            await store.close()
    found = (
        f"{status.where}: reachable as {status.role} (PostgreSQL {status.server_version}), "
        f"schema version {status.schema_version} (this bottui: {status.app_schema_version}), "
        f"{waiting} entr{'y' if waiting == 1 else 'ies'} not yet shared"
    )
    if older:
        found += f", {older} journaled here before the store and not shared"
    if status.schema_version < status.app_schema_version:
        return Check("team-store", _TITLE, Verdict.PROBLEM, found, "bottui store migrate")
    if status.schema_version > status.app_schema_version:
        return Check(
            "team-store", _TITLE, Verdict.PROBLEM, found, "upgrade bottui: the store is newer"
        )
    if older:
        return Check(
            "team-store",
            _TITLE,
            Verdict.WARNING,
            found,
            "bottui store sync --backfill shares those of this base URL, account and project",
        )
    if waiting:
        return Check(
            "team-store",
            _TITLE,
            Verdict.WARNING,
            found,
            "bottui store sync (every command also pushes at its end)",
        )
    return Check("team-store", _TITLE, Verdict.OK, found)


_FIX_URL: Final = 'fix the store URL: store = "postgresql://user@host/db" (no password in it)'


def _said(exc: StoreError) -> str:
    """The error's title and the first line of its details (the cause, mostly)."""
    first = exc.details.split("\n", 1)[0].strip() if exc.details else ""
    return f"{exc.title}: {first}" if first else exc.title


__all__ = ["check_team_store"]
