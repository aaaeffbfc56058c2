"""The TUI against rows an INSERT-only role wrote, a NOTIFY bomb, and claims in doubt (#26)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable

from bottui.ops.session import Session
from bottui.ops.shared_journal import SharedJournal
from bottui.ops.timed.schedule import list_timed
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_rows import micros
from bottui.store.team.page_query import target_text
from bottui.tui.app import BottuiApp
from tests.fixtures import moving_clock
from tests.fixtures.insert_only import Hostile
from tests.fixtures.moving_clock import MovingClock
from tests.fixtures.teammates import bob_change, push, wait_for
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle
from tests.tui.test_journal import rows, to_journal
from tests.tui.test_team_live import Toasts, listening, team_app
from tests.tui.test_timed import open_timed, timed_limiter

__all__ = ["team_app"]  # fixture
clock = moving_clock.clock
session = moving_clock.session

PROJ = "shop-prod"
BAD = "0badbad0-0000-4000-8000-000000000000"


def _plant(hostile: Hostile, base_url: str) -> None:
    target = target_text({"rate_limiter_id": "rl-login"})
    common = {"base_url": base_url, "account": DEMO_ACCOUNT, "project": PROJ, "target": target}
    hostile.entry(BAD, 1, **{**common, "target": "[" * 4000}, started_at="now")
    hostile.entry(BAD, 2, **common, started_at="infinity")


async def test_the_journal_screen_reads_on_and_says_what_it_skipped(
    team_app: BottuiApp,
    sandbox: SandboxServer,
    pg_admin_url: str,
    pg_database: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    toasts = Toasts(team_app, monkeypatch)
    async with team_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await listening(team_app)
        _plant(Hostile(pg_admin_url, f"mallory_{pg_database}"), sandbox.base_url)
        await push(pg_admin_url, bob_change(sandbox.base_url, DEMO_ACCOUNT, PROJ, local_id=1))
        await wait_for(
            lambda: isinstance(team_app.services.journal_pages(), SharedJournal),
            what="the Journal screen reads the shared journal",
        )
        await to_journal(pilot)
        await wait_for(
            lambda: any("bob" in " ".join(row) for row in rows(team_app)), what="bob's row"
        )
        await wait_for(
            lambda: toasts.has(f"{BAD}:1") and toasts.has(f"{BAD}:2"), what="the skipped rows"
        )
        assert toasts.has("mallory")


async def test_the_tui_listener_survives_a_notify_bomb(
    team_app: BottuiApp,
    sandbox: SandboxServer,
    pg_admin_url: str,
    pg_database: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    toasts = Toasts(team_app, monkeypatch)
    hostile = Hostile(pg_admin_url, f"mallory_{pg_database}")
    async with team_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await listening(team_app)
        for payload in ("[" * 3000, "{" * 3000, "x" * 7000):
            hostile.notify("bottui_journal", payload)
            hostile.notify("bottui_inventory", payload)
        _plant(hostile, sandbox.base_url)
        await push(pg_admin_url, bob_change(sandbox.base_url, DEMO_ACCOUNT, PROJ, local_id=7))
        await wait_for(lambda: toasts.has("bob@bastion-2 disabled rl-login"), what="bob's toast")
        await wait_for(lambda: toasts.has(f"{BAD}:1"), what="the skipped row said")
        assert team_app.services.live_down is None and team_app.services.team_listening


async def test_the_timed_screen_shows_a_claim_in_doubt_and_tells_it_once(
    session: Session, sandbox: SandboxServer, clock: MovingClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None
        await timed_limiter(pilot, "rl-login", "30m")
        [change] = await list_timed(session)
        # Its executor claimed it and was killed: no result, ever.
        await session.timed_store.write(
            lambda j: j.claim(change.key, at=micros(clock.now), executor="timer on gone")
        )
        clock.move(minutes=31)
        told: list[Any] = []
        monkeypatch.setattr(runner, "tell", lambda reports: told.extend(reports))
        [report] = await runner.tick()
        assert report.action == "in-doubt"
        await runner.tick()
        assert [r.action for r in told] == ["in-doubt"]  # said once, shown always
        screen = await open_timed(pilot)
        grid: DataTable[Any] = screen.query_one("#timed-table", DataTable)
        await wait_for(lambda: grid.row_count == 1, what="the row")
        cells = [cell.plain for cell in grid.get_row_at(0)]
        # State and executor come first: at 80 columns the last columns are cut (#27).
        assert cells[1] == "in doubt" and cells[3] == "timer on gone"
