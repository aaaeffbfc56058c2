"""The team journal in the TUI (#13): the header's state and the push after a change.

A real PostgreSQL (the fixture's, stopped and started) and the loopback
sandbox. With the store down a change still goes ahead and the header says
how many entries wait; once the store is back they are pushed (here by the
next change: the TUI also pushes every 30 s) and the header clears.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psycopg
import pytest
from msgspec.structs import replace
from textual.pilot import Pilot
from textual.widgets import Static

from bottui.ops.session import Session
from bottui.ops.team_push import SyncState
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.store_target import check_store_url
from bottui.tui import services
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.ui_rules import ContextBar
from tests.fixtures.postgres import PostgresServer
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import keys_closing, plain, settle
from tests.tui.test_journal import PROJ, rows, to_journal
from tests.tui.test_limiters import select


def shared_count(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM bottui.journal_outcomes").fetchone()
    return 0 if row is None else int(row[0])


async def until(pilot: Pilot[Any], what: Any, timeout: float = 60.0) -> None:
    """Wait (generously: a busy machine) for ``what()`` while the app runs."""
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)
        await pilot.pause()


async def toggle(pilot: Pilot[Any], app: BottuiApp, limiter: str) -> None:
    await select(pilot, limiter)
    await pilot.press("t")
    await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
    await keys_closing(pilot, "tab", "enter")  # Confirm


async def reread_until(pilot: Pilot[Any], app: BottuiApp, what: Any) -> None:
    """Read the Journal screen again until ``what()`` (the push may still be under way)."""
    deadline = time.monotonic() + 60
    while True:
        app.screen.refresh_data()  # type: ignore[attr-defined]
        await settle(pilot)
        if what():
            return
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.1)


def header(app: BottuiApp) -> str:
    return app.screen.query_one(ContextBar).team


async def test_store_down_the_header_says_so_and_the_change_goes_ahead(
    flow_session: Session,
    pg_admin_url: str,
    postgres_server: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = TeamStore(check_store_url(pg_admin_url, {}), timeout=120)
    await store.migrate()
    await store.close()
    flow_session.update_settings(replace(flow_session.settings, store_url=pg_admin_url))
    app = BottuiApp(flow_session, demo=True)
    postgres_server.stop()
    try:
        async with app.run_test(size=SNAP_SIZE) as pilot:
            await settle(pilot)
            await toggle(pilot, app, "rl-search")
            await until(pilot, lambda: header(app) == "team journal: store down, 1 not yet shared")
            postgres_server.start()
            await toggle(pilot, app, "rl-search")
            await until(pilot, lambda: header(app) == "")
            assert shared_count(pg_admin_url) == 2
            app.services.stop_sharing()
    finally:
        if not postgres_server.running():
            postgres_server.start()


async def test_the_journal_screen_reads_the_shared_journal_and_falls_back_when_down(
    flow_session: Session,
    pg_admin_url: str,
    postgres_server: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = TeamStore(check_store_url(pg_admin_url, {}), timeout=120)
    await store.migrate()
    await store.close()
    # A teammate's entry, only in the shared journal, under his own profile
    # name (profile names are local: the shared journal is not filtered by ours).
    with psycopg.connect(pg_admin_url) as conn:
        conn.execute(
            "INSERT INTO bottui.journal_entries (origin, local_id, started_at, operator, host,"
            " profile, reason, base_url, account, project, operation, target) VALUES"
            " (gen_random_uuid(), 1, now() - interval '1 minute', 'bob', 'bastion-2', %s,"
            " 'INC-9', 'http://x', %s, %s, 'limiter.set-active', '{\"limiterId\": \"rl-x\"}')",
            ("theirs", DEMO_ACCOUNT, PROJ),
        )
    flow_session.update_settings(replace(flow_session.settings, store_url=pg_admin_url))
    app = BottuiApp(flow_session, demo=True)
    try:
        async with app.run_test(size=SNAP_SIZE) as pilot:
            await settle(pilot)
            await toggle(pilot, app, "rl-search")
            await until(pilot, lambda: shared_count(pg_admin_url) == 1)
            await to_journal(pilot)
            await reread_until(pilot, app, lambda: len(rows(app)) == 2)
            assert any("bob" in cell for row in rows(app) for cell in row)
            postgres_server.stop()
            await reread_until(pilot, app, lambda: len(rows(app)) == 1)
            assert DOWN_NOTE in filters_line(app)
            # A push with nothing to send does not reach the store, and says so by
            # saying nothing is down: the failed read still holds (no read, fail,
            # push loop), and the note stays.
            app.services._team_state(SyncState(0, None, None))
            await reread_until(pilot, app, lambda: len(rows(app)) == 1)
            assert DOWN_NOTE in filters_line(app)
            assert app.services.journal_pages() is flow_session.journal_store
            # Back: a later read tries the store again (READ_RETRY) and the note goes.
            postgres_server.start()
            monkeypatch.setattr(services, "READ_RETRY", 0.0)
            await reread_until(pilot, app, lambda: len(rows(app)) == 2)
            assert DOWN_NOTE not in filters_line(app)
            app.services.stop_sharing()
    finally:
        if not postgres_server.running():
            postgres_server.start()


DOWN_NOTE = "team store down: this machine's journal only"


def filters_line(app: BottuiApp) -> str:
    return plain(app.screen.query_one("#journal-filters", Static))
