"""Each TUI change is planned once: the dialog, the dry run and the bytes sent share one plan.

For the four flows that change something (switch a rate limiter, revoke a
grant, set thresholds, undo from the journal) the ``spy`` fixture counts
every request the client prepares and every plan made: exactly one of each
per confirmed change, and the body the loopback sandbox receives is the
plan's request (issue #11).
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace
from textual.pilot import Pilot
from textual.widgets import Input, Static

from bottui.ops import mutations
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog, TypedConfirmDialog
from bottui.tui.screens.dialogs import DryRunDialog
from bottui.tui.screens.journal import JournalScreen
from bottui.tui.screens.threshold_dialogs import ThresholdEditor
from bottui.tui.screens.thresholds_screen import ThresholdsScreen
from tests.fixtures.plan_spy import Spy
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import keys_closing, plain, settle, until

PROJ = "shop-prod"


def sent_once_as_planned(spy: Spy, sandbox: SandboxServer) -> None:
    """One plan, one prepared request (the plan's), and those bytes on the wire."""
    [plan] = spy.plans
    assert spy.prepared == [plan.request]
    [received] = sandbox.state.recorder.log
    assert received.method == plan.request.method
    assert received.body == plan.request.body
    assert plan.request.url.endswith(received.raw_path)


async def confirm(pilot: Pilot[Any]) -> None:
    """The confirmation is up: move from Cancel to the confirm button, press it."""
    await until(lambda: isinstance(pilot.app.screen, ConfirmDialog), pilot)
    await keys_closing(pilot, "tab", "enter")


async def select_limiter(pilot: Pilot[Any], limiter_id: str) -> None:
    await settle(pilot)
    grid = pilot.app.screen.query_one("#limiters-table")
    grid.move_cursor(row=grid.get_row_index(limiter_id), animate=False)  # type: ignore[attr-defined]
    await pilot.pause()


async def test_a_limiter_switch_is_planned_once(
    flow_app: BottuiApp, sandbox: SandboxServer, spy: Spy
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await select_limiter(pilot, "rl-login")
        await pilot.press("f")
        await confirm(pilot)
        sent_once_as_planned(spy, sandbox)


async def test_a_limiter_dry_run_shows_the_one_plan(
    flow_app: BottuiApp, sandbox: SandboxServer, spy: Spy
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await select_limiter(pilot, "rl-login")
        await pilot.press("D", "f")
        await settle(pilot)
        dialog = flow_app.screen
        assert isinstance(dialog, DryRunDialog)
        [plan] = spy.plans
        assert spy.prepared == [plan.request]
        shown = plain(dialog.query_one("#dry-run", Static))
        assert "\n".join(plan.dry_run_lines()) in shown
        assert sandbox.state.recorder.log == []


async def test_a_revocation_is_planned_once(
    grants_app: BottuiApp, sandbox: SandboxServer, spy: Spy
) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        grants_app.screen.query_one("#visitor-id", Input).value = "vis_7Hq2kP9xLm"
        await pilot.pause()
        await pilot.click("#revoke")
        await confirm(pilot)
        sent_once_as_planned(spy, sandbox)


async def test_a_threshold_update_is_planned_once(
    flow_app: BottuiApp, sandbox: SandboxServer, spy: Spy
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert isinstance(flow_app.screen, ThresholdsScreen)
        await pilot.press("enter")  # the first row: bot-score
        await until(lambda: isinstance(flow_app.screen, ThresholdEditor), pilot)
        await pilot.click("#submit")
        await confirm(pilot)
        assert isinstance(flow_app.screen, ThresholdsScreen)
        sent_once_as_planned(spy, sandbox)


async def test_an_undo_is_planned_once(
    flow_app: BottuiApp, sandbox: SandboxServer, spy: Spy
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mutations.set_limiter(flow_app.session, DEMO_ACCOUNT, PROJ, "rl-login", False)
        spy.reset()
        sandbox.state.recorder.reset()
        await pilot.press("5")
        await settle(pilot)
        assert isinstance(flow_app.screen, JournalScreen)
        await pilot.press("u")
        await confirm(pilot)
        sent_once_as_planned(spy, sandbox)
        [plan] = spy.plans
        assert plan.undo_of is not None


async def test_a_read_only_profile_refuses_the_plan_in_the_tuis_words(
    flow_app: BottuiApp, sandbox: SandboxServer, spy: Spy
) -> None:
    flow_app.session.settings = replace(flow_app.session.settings, read_only=True)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await select_limiter(pilot, "rl-login")
        await pilot.press("f")
        await settle(pilot)
        assert not isinstance(flow_app.screen, ConfirmDialog)
        # Refused before anything is planned or asked (#14 item 12).
        assert spy.plans == []
        toast = list(flow_app._notifications)[-1]
        assert toast.title == "Read-only profile"
        assert "this profile refuses every change; nothing was sent" in toast.message
        assert sandbox.state.recorder.log == []


async def test_a_protected_profile_types_the_plans_project(
    flow_app: BottuiApp, sandbox: SandboxServer, spy: Spy
) -> None:
    flow_app.session.settings = replace(flow_app.session.settings, protected=True)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await select_limiter(pilot, "rl-login")
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(flow_app.screen, TypedConfirmDialog)
        # The reason, the duration (#15), then the project id, the last field (#24):
        # Enter there sends the complete form.
        await pilot.press("enter", "enter", *PROJ, "enter")
        await settle(pilot)
        sent_once_as_planned(spy, sandbox)
