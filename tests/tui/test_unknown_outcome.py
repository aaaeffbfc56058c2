"""#10.11 in the TUI: a revocation whose connection dropped after sending is unknown.

The loopback sandbox drops every attempt after applying it: the grant is
withdrawn, the history says "unknown: may have been applied" (never
"failed") and the toast says to check before repeating.
"""

from __future__ import annotations

import asyncio

from textual.widgets import Input

from bottui.api.errors import UNKNOWN_NOTE
from bottui.sandbox.demo import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.widgets.revocation_history import RevocationHistory
from bottui.tui.widgets.revocation_result import UNKNOWN_FAILURE
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle

STANDING = "vis_7Hq2kP9xLm"


async def test_dropped_revocation_is_unknown(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    sandbox.faults.configure(drop_next=10, drop_mode="after")  # every attempt
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        screen = grants_app.screen
        screen.query_one("#visitor-id", Input).value = STANDING
        await pilot.pause()
        await pilot.click("#revoke")
        await pilot.pause()
        assert isinstance(grants_app.screen, ConfirmDialog)
        await pilot.press("tab", "enter")
        grid = grants_app.screen.query_one(RevocationHistory)
        for _ in range(400):  # the client retries with backoff: up to a few seconds
            await pilot.pause()
            if grid.row_count:
                break
            await asyncio.sleep(0.05)
        await pilot.pause()
        outcome = grid.get_row_at(0)[4].plain
        assert outcome == UNKNOWN_FAILURE and not outcome.startswith("failed")
        toast = next(n for n in grants_app._notifications if n.severity == "error")
        assert UNKNOWN_NOTE in toast.message
    assert sandbox.state.grant(DEMO_ACCOUNT, "shop-prod", "visitorId", STANDING) is None
