"""The collision warning inside the TUI's confirmation (#13): who, when, what and why."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import pytest
from msgspec.structs import replace
from textual.pilot import Pilot
from textual.widgets import Static

import bottui.ops.collisions
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.tui.screens.change_form import ConfirmDialog
from tests.fixtures.teammates import bob_change, migrated, push
from tests.tui.conftest import SNAP_BASE_URL, SNAP_SIZE
from tests.tui.helpers import settle
from tests.tui.test_journal import MakeApp, Snap, steady  # noqa: F401
from tests.tui.test_limiters import select

PROJ = "shop-prod"


def _fixed_ago(started: datetime, now: datetime) -> str:
    return "02:58:00 UTC, 2 min ago"


@pytest.mark.usefixtures("steady")
def test_snapshot_collision_in_the_confirmation(
    snap_compare: Snap, make_snap_app: MakeApp, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A teammate disabled rl-login 2 minutes ago: the confirmation says who, what and why."""
    monkeypatch.setattr(bottui.ops.collisions, "_ago", _fixed_ago)
    url = asyncio.run(migrated(pg_admin_url))
    events = bob_change(
        SNAP_BASE_URL, DEMO_ACCOUNT, PROJ, local_id=1, reason="INC-4312 [b]stuffing[/b]\x1b[2J"
    )
    asyncio.run(push(url, events))
    app = make_snap_app()
    app.session.update_settings(replace(app.session.settings, store_url=url))

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await select(pilot, "rl-login")
        await pilot.press("t")
        for _ in range(200):  # the plan and the check run in a worker
            if isinstance(pilot.app.screen, ConfirmDialog):
                break
            await pilot.pause(0.05)
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        shown = str(dialog.query_one("#recent-changes", Static).render())
        assert "bob@bastion-2 (role postgres) disabled rl-login on shop-prod" in shown
        assert "INC-4312 [b]stuffing[/b]\ufffd[2J" in shown

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)
