"""Fixtures of the team store tests: a migrated fresh database and its store."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bottui.store.team.pg_store import TeamStore
from bottui.store.team.store_target import check_store_url


@pytest.fixture
async def team_store(pg_admin_url: str) -> AsyncIterator[TeamStore]:
    """A :class:`TeamStore` (as the database owner) on a fresh, migrated database."""
    store = TeamStore(check_store_url(pg_admin_url, {}), timeout=120)
    await store.migrate()
    try:
        yield store
    finally:
        await store.close()
