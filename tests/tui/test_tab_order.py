"""Tab from a dialog's last field never lands on Cancel with typing to lose (#14, item 12).

Left to the DOM order, Tab from the last field reached Cancel, so Tab then
Enter (the way one leaves a form) discarded what was typed. Now Tab goes to
the primary button when it can be pressed, or back to the field to fix; with
nothing typed the order is as before, and Shift+Tab still reaches Cancel.
"""

from __future__ import annotations

from msgspec.structs import replace
from textual.widgets import Input

from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog, TypedConfirmDialog
from bottui.tui.screens.limiter_dialogs import AddLimiterDialog
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle


def focused_id(app: BottuiApp) -> str | None:
    return None if app.focused is None else app.focused.id


async def test_tab_from_a_typed_reason_goes_to_confirm(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(flow_app.screen, ConfirmDialog)
        assert focused_id(flow_app) == "cancel"
        await pilot.press("tab", "tab")  # Confirm, then the reason
        assert focused_id(flow_app) == "reason"
        # The duration of a timed change (#15) is the last field now.
        await pilot.press("tab", "tab")  # nothing typed: Cancel, as before
        assert focused_id(flow_app) == "cancel"
        await pilot.press("shift+tab", "shift+tab")
        assert focused_id(flow_app) == "reason"
        await pilot.press(*"INC-7", "tab", "tab")
        assert focused_id(flow_app) == "confirm"  # not Cancel: the reason is kept
        await pilot.press("enter")
        await settle(pilot)
        assert sandbox.stats.requests == 1
        with journal_of(flow_app.session) as journal:
            assert [entry.reason for entry in journal.entries()] == ["INC-7"]


async def test_tab_from_the_reason_under_protection_goes_back_to_the_project_id(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    session = flow_app.session
    session.settings = replace(session.settings, protected=True)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(flow_app.screen, TypedConfirmDialog)
        assert focused_id(flow_app) == "reason"  # the first field (#24)
        # The reason, the duration (#15), then the project id: the last field.
        await pilot.press(*"INC-7", "tab", "tab", *"shop", "tab")
        assert focused_id(flow_app) == "typed"  # Confirm cannot be pressed yet
        await pilot.press("end", *"-prod", "tab")
        assert focused_id(flow_app) == "confirm"
        assert flow_app.screen.query_one("#reason", Input).value == "INC-7"
        assert sandbox.stats.requests == 0


async def test_tab_from_a_form_s_last_field_goes_to_its_primary_button(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(flow_app.screen, AddLimiterDialog)
        await pilot.press(*"rl-new", "tab", *"New one", "tab")
        assert focused_id(flow_app) == "add"
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(flow_app.screen, AddLimiterDialog)
        assert sandbox.stats.requests == 0
