"""One inventory in the TUI (#13): what a teammate taught shows "from bob's change 03:12".

A teammate's facts arrive through the real PostgreSQL (LISTEN/NOTIFY on the
inventory channel) while the TUI runs, and at start for what was written
before. Hostile operator names are shown literally and cut short.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import psycopg
import pytest
from msgspec.structs import replace
from textual.pilot import Pilot

from bottui.demo import prepare
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.push_events import Fact, FactKey
from bottui.store.team.store_target import check_store_url
from bottui.tui.app import BottuiApp
from bottui.tui.screens.thresholds_screen import DimensionTable
from bottui.tui.widgets.limiter_table import local_time
from tests.fixtures.teammates import migrated, wait_for
from tests.tui.conftest import FIXED_NOW, SNAP_BASE_URL, SNAP_SIZE
from tests.tui.helpers import settle
from tests.tui.test_limiters import row_of

PROJ = "shop-prod"
Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]


def limiter_fact(base_url: str, field: str, value: str, operator: str = "bob") -> Fact:
    return Fact(
        FactKey(base_url, DEMO_ACCOUNT, PROJ, "limiter", "rl-login", field), value, operator
    )


async def teammate_writes(url: str, facts: list[Fact]) -> None:
    """A teammate's bottui sharing what it learned (a connection of its own)."""
    store = TeamStore(check_store_url(url, {}), timeout=120)
    try:
        await store.put_facts(facts)
    finally:
        await store.close()


async def test_a_teammates_state_arrives_live_with_whose_change_taught_it(
    tmp_path: Any, sandbox: SandboxServer, pg_admin_url: str
) -> None:
    session = prepare(tmp_path / "demo", sandbox.base_url)
    url = await migrated(pg_admin_url)
    session.update_settings(replace(session.settings, store_url=url))
    app = BottuiApp(session, demo=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await wait_for(lambda: app.services.team_listening, what="the TUI listens")
        assert row_of(app, "rl-login")[2] == "ON"
        operator = "[b]mallory-the-very-long-name[/b]\x1b[2J"
        await teammate_writes(url, [limiter_fact(sandbox.base_url, "active", "false", operator)])
        await wait_for(lambda: row_of(app, "rl-login")[2] == "OFF", what="the teammate's state")
        how = row_of(app, "rl-login")[4]
        assert how.startswith("from [b]mallory-the-…'s change ")
        assert "\x1b" not in how


async def test_a_teammates_thresholds_show_on_the_thresholds_screen(
    tmp_path: Any, sandbox: SandboxServer, pg_admin_url: str
) -> None:
    session = prepare(tmp_path / "demo", sandbox.base_url)
    url = await migrated(pg_admin_url)
    session.update_settings(replace(session.settings, store_url=url))
    key = FactKey(sandbox.base_url, DEMO_ACCOUNT, PROJ, "dimension", "bot-score", "thresholds")
    doc = '{"name": "Bot score", "block": "0.97", "challenge": "0.66"}'
    await teammate_writes(url, [Fact(key, doc, "carol")])  # before the TUI starts
    app = BottuiApp(session, demo=True, start_mode="thresholds")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)

        def row() -> list[str]:
            grid = app.screen.query_one(DimensionTable)
            return [cell.plain for cell in grid.get_row("bot-score")]

        await wait_for(lambda: row()[2] == "0.97", what="carol's thresholds")
        assert row()[3] == "0.66"
        assert row()[6].startswith("from carol's change ")


def test_snapshot_limiters_with_a_teammates_state(
    snap_compare: Snap, make_snap_app: MakeApp, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rl-login OFF "from bob's change 03:12" (the server's time, local zone: UTC here)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    url = asyncio.run(migrated(pg_admin_url))
    # The server stamps every write with its own clock; to freeze the screen the
    # owner writes one fact at a fixed time, the stamp trigger off for that insert.
    at = FIXED_NOW.replace(minute=12)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ALTER TABLE bottui.inventory_facts DISABLE TRIGGER inventory_facts_stamp")
        conn.execute(
            "INSERT INTO bottui.inventory_facts (base_url, account, project, kind, item, field,"
            " value, operator, received_at) VALUES (%s, %s, %s, 'limiter', 'rl-login', 'active',"
            " 'false', 'bob', %s)",
            (SNAP_BASE_URL, DEMO_ACCOUNT, PROJ, at),
        )
        conn.execute("ALTER TABLE bottui.inventory_facts ENABLE TRIGGER inventory_facts_stamp")
    app = make_snap_app()
    app.session.update_settings(replace(app.session.settings, store_url=url))

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for(lambda: row_of(app, "rl-login")[2] == "OFF", what="bob's state")
        await settle(pilot)

    try:
        assert local_time(at.isoformat()) == "03:12"
        assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_local_time_is_in_the_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        assert local_time(datetime(2026, 11, 21, 3, 12).isoformat() + "Z") == "08:42"
        assert local_time("not a time\x1b") == "not a time\ufffd"
    finally:
        monkeypatch.undo()
        time.tzset()
