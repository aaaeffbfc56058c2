"""#10.11 in the TUI: a revocation whose connection dropped after sending is unknown.

The loopback sandbox drops every attempt after applying it: the grant is
withdrawn, the history says "unknown: may have been applied" (never
"failed") and the toast says to check before repeating.
"""

from __future__ import annotations

from textual.widgets import Input

from bottui.api.errors import UNKNOWN_NOTE
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.widgets.result_panels import UNKNOWN_FAILURE, RevocationHistory
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle, until

STANDING = "vis_7Hq2kP9xLm"


async def test_dropped_revocation_is_unknown(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    sandbox.faults.configure(drop_next=10, drop_mode="after")  # every attempt
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        screen = grants_app.screen
        screen.query_one("#visitor-id", Input).value = STANDING
        await pilot.pause()
        await pilot.click("#revoke")
        await until(lambda: isinstance(grants_app.screen, ConfirmDialog), pilot)
        await pilot.press("tab", "enter")
        grid = grants_app.screen.query_one(RevocationHistory)
        # The client retries with backoff (a few seconds); 120 s is a hang guard.
        await until(lambda: bool(grid.row_count), pilot, timeout=120)
        await pilot.pause()
        outcome = grid.get_row_at(0)[4].plain
        assert outcome == UNKNOWN_FAILURE and not outcome.startswith("failed")
        toast = next(n for n in grants_app._notifications if n.severity == "error")
        assert UNKNOWN_NOTE in toast.message
    assert sandbox.state.grant(DEMO_ACCOUNT, "shop-prod", "visitorId", STANDING) is None
