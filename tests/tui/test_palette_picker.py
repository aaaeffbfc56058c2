"""The palette's row picker lists every row with its state, not what the filter shows (#27)."""

from __future__ import annotations

from textual.widgets import OptionList

from bottui.sandbox.server import SandboxServer
from bottui.tui import key_registry
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import TargetPicker
from bottui.tui.widgets.limiter_table import LimiterTable
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import keys_closing, sent, settle, until


async def test_disable_picks_among_every_limiter_with_its_state(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"rl-api", "enter")  # the table shows rl-api alone
        await settle(pilot)
        grid = flow_app.screen.query_one(LimiterTable)
        assert [key for key, _ in grid.keyed_entries] == ["rl-api"]
        command = next(
            c for c in key_registry.commands(flow_app) if c.title == "Rate limiters: Disable…"
        )
        command.run()
        await until(lambda: isinstance(flow_app.screen, TargetPicker), pilot)
        picker = flow_app.screen
        assert isinstance(picker, TargetPicker)
        options = picker.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert len(labels) == grid.total > 1
        login = next(label for label in labels if label.startswith("rl-login"))
        assert login.endswith("· ON") or login.endswith("· OFF") or "state unknown" in login
        await pilot.press(*"login", "enter")
        await settle(pilot)
        assert isinstance(flow_app.screen, ConfirmDialog)
        await keys_closing(pilot, "tab", "enter")
        assert sent(sandbox) == [("PATCH", "rl-login", {"isActive": False})]
