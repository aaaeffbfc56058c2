"""The Rate limiters screen: snapshots (in-process sandbox) and flows (loopback sandbox)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from bottui.sandbox.demo_data import DEMO_ACCOUNT, HOSTILE_LIMITER_IDS, HOSTILE_PROJECT_ID
from bottui.sandbox.server import SandboxServer
from bottui.tui import key_registry
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import DryRunDialog, HelpDialog, TargetPicker
from bottui.tui.screens.limiter_dialogs import AddLimiterDialog, ChooseStateDialog
from bottui.tui.screens.limiters import LimitersScreen
from bottui.tui.widgets.limiter_table import LimiterTable
from bottui.tui.widgets.result_panels import ReturnedProjectPanel
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import keys_closing, open_then, plain, sent, settle, settle_failed, until

SMALL = (80, 24)
Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]


def table(app: BottuiApp) -> LimiterTable:
    return app.screen.query_one(LimiterTable)


def row_of(app: BottuiApp, limiter_id: str) -> list[str]:
    # Without the mark column (its own tests are in test_multi_select.py).
    return [cell.plain for cell in table(app).get_row(limiter_id)][1:]


async def select(pilot: Pilot[Any], limiter_id: str) -> None:
    grid = table(pilot.app)  # type: ignore[arg-type]
    grid.move_cursor(row=grid.get_row_index(limiter_id), animate=False)
    await pilot.pause()


# -- snapshots -----------------------------------------------------------------


def test_snapshot_loaded(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_confirmation_focus_on_cancel(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await select(pilot, "rl-login")
        await pilot.press("t")
        await until(lambda: isinstance(pilot.app.screen, ConfirmDialog), pilot)
        assert pilot.app.focused is not None and pilot.app.focused.id == "cancel"

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


async def _flip_first(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await open_then(pilot, "t", "tab", "enter")  # rl-api: OFF -> ON
    await settle(pilot)


def test_snapshot_returned_project(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=_flip_first)


def test_snapshot_returned_project_80x24(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    assert snap_compare(make_snap_app(), terminal_size=SMALL, run_before=_flip_first)


def test_snapshot_loaded_80x24(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)

    assert snap_compare(make_snap_app(), terminal_size=SMALL, run_before=run_before)


def test_snapshot_no_project(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pilot.app.services.choose_project(None, None)  # type: ignore[attr-defined]
        await settle(pilot)
        assert "Press 1" in plain(pilot.app.screen.query_one("#limiters-empty", Static))
        assert not table(pilot.app).display  # type: ignore[arg-type]

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_hostile(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pilot.app.services.choose_project(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)  # type: ignore[attr-defined]
        await settle(pilot)
        app = pilot.app
        assert isinstance(app, BottuiApp)
        assert {e.id for e in table(app).entries} == set(HOSTILE_LIMITER_IDS)
        # Shown literally: no markup parsed, no escape sequence kept.
        assert row_of(app, "rl/[red]x[/red]")[0] == "rl/[red]x[/red]"
        assert all("\x1b" not in cell for e in table(app).entries for cell in row_of(app, e.id))
        title = plain(app.screen.query_one("#limiters-title", Static))
        assert HOSTILE_PROJECT_ID in title and "[@click=app.quit]Shop[/]" in title

    assert snap_compare(make_snap_app(hostile=True), terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_unknown_state_asks(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pilot.app.services.choose_project(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)  # type: ignore[attr-defined]
        await settle(pilot)
        await pilot.press("t")
        await until(lambda: isinstance(pilot.app.screen, ChooseStateDialog), pilot)
        assert pilot.app.focused is not None and pilot.app.focused.id == "cancel"

    assert snap_compare(make_snap_app(hostile=True), terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_returned_hostile_project(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pilot.app.services.choose_project(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)  # type: ignore[attr-defined]
        await settle(pilot)
        await open_then(pilot, "o", "tab", "enter")
        await settle(pilot)
        panel = pilot.app.screen.query_one(ReturnedProjectPanel)
        text = plain(panel.query_one("#returned-project-body", Static))
        assert panel.display and "serverKey: ***" in text
        assert "srv_" not in text

    assert snap_compare(make_snap_app(hostile=True), terminal_size=SNAP_SIZE, run_before=run_before)


# -- flows against the loopback sandbox -------------------------------------------


async def test_flip_limiter_shows_returned_project(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        assert isinstance(flow_app.screen, LimitersScreen)
        assert row_of(flow_app, "rl-search")[2] == "OFF"
        await select(pilot, "rl-search")
        await pilot.press("t")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        assert "rl-search" in body and "shop-prod" in body and "New state: ON" in body
        await keys_closing(pilot, "tab", "enter")
        assert sent(sandbox) == [("PATCH", "rl-search", {"isActive": True})]
        assert sandbox.state.recorder.last().segments[2:5] == (
            DEMO_ACCOUNT,
            "projects",
            "shop-prod",
        )
        panel = flow_app.screen.query_one(ReturnedProjectPanel)
        text = plain(panel.query_one("#returned-project-body", Static))
        assert panel.display
        assert "rl-search is now ON · known from the response" in text
        assert "name: Shop (production)" in text and "url: https://shop.acme.example" in text
        assert "isProtected: yes" in text and "serverKey: ***" in text
        assert "srv_shop_prod" not in text
        assert "rateLimits (4)" in text
        # The inventory learned the answer, and the table shows it.
        assert row_of(flow_app, "rl-search")[2:] == [
            "ON",
            row_of(flow_app, "rl-search")[3],
            "response",
        ]
        selected = table(flow_app).selected
        assert selected is not None and selected.id == "rl-search"
        # The journal recorded it.
        with journal_of(flow_app.session) as journal:
            assert journal.entries()


async def test_enter_on_confirmation_sends_nothing(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        for key in ("t", "o", "f"):
            await pilot.press(key)
            await until(lambda: isinstance(flow_app.screen, ConfirmDialog), pilot)
            await pilot.press("enter")  # lands on Cancel
            await settle(pilot)
            assert isinstance(flow_app.screen, LimitersScreen), key
        await pilot.press("t")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(flow_app.screen, LimitersScreen)
        assert sandbox.stats.requests == 0
        assert row_of(flow_app, "rl-api")[2] == "OFF"


async def test_palette_actions_act_on_the_picked_limiter(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "rl-api")  # highlighted: the palette must not act on it
        before = row_of(flow_app, "rl-api")[2]
        await pilot.press("3")  # the palette works from another screen too
        await settle(pilot)
        command = next(
            c for c in key_registry.commands(flow_app) if c.title == "Rate limiters: Disable…"
        )
        command.run()
        await settle(pilot)
        assert isinstance(flow_app.screen, TargetPicker)
        await pilot.press(*"login")
        await pilot.press("enter")
        await settle(pilot)
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        assert "rl-login" in body and "New state: OFF" in body, body
        assert "Disable" in str(dialog.query_one("#confirm", Button).label)
        await keys_closing(pilot, "tab", "enter")
        assert sent(sandbox) == [("PATCH", "rl-login", {"isActive": False})]
        await pilot.press("2")
        await settle(pilot)
        assert row_of(flow_app, "rl-api")[2] == before  # the highlighted row was left alone
        # Esc in the picker does nothing at all.
        command.run()
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(flow_app.screen, LimitersScreen)
        assert len(sent(sandbox)) == 1


async def test_unknown_state_asks_instead_of_guessing(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    sandbox.state.add_rate_limiter(DEMO_ACCOUNT, "shop-prod", "rl-bots", "Bots", active=True)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await until(lambda: isinstance(flow_app.screen, AddLimiterDialog), pilot)
        await pilot.press(*"rl-bots", "enter")
        await settle(pilot)
        assert row_of(flow_app, "rl-bots")[2:] == ["?", row_of(flow_app, "rl-bots")[3], "entered"]
        selected = table(flow_app).selected
        assert selected is not None and selected.id == "rl-bots"
        await pilot.press("t")
        await until(lambda: isinstance(flow_app.screen, ChooseStateDialog), pilot)
        await pilot.press("enter")  # Cancel has the focus
        await settle(pilot)
        assert isinstance(flow_app.screen, LimitersScreen)
        assert sandbox.stats.requests == 0
        await open_then(pilot, "t", "tab", "tab", "enter")  # Disable (OFF)
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        assert "New state: OFF" in body and "not known" in body
        await keys_closing(pilot, "tab", "enter")
        assert sent(sandbox) == [("PATCH", "rl-bots", {"isActive": False})]
        assert row_of(flow_app, "rl-bots")[2] == "OFF"


async def test_new_ids_from_the_answer_appear(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    sandbox.state.add_rate_limiter(DEMO_ACCOUNT, "shop-prod", "rl-zz-new", "Fresh", active=True)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        assert "rl-zz-new" not in {e.id for e in table(flow_app).entries}
        await open_then(pilot, "f", "tab", "enter")  # rl-api OFF (already): still asks, still sends
        await settle(pilot)
        assert row_of(flow_app, "rl-zz-new")[:3] == ["rl-zz-new", "Fresh", "ON"]
        assert row_of(flow_app, "rl-zz-new")[4] == "response"
        text = plain(flow_app.screen.query_one("#returned-project-body", Static))
        assert "rl-zz-new (Fresh) ON new" in text
        assert "rl-api (Public API) OFF new" not in text


async def test_dry_run_shows_request_and_sends_nothing(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("D", "t")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, DryRunDialog)
        text = plain(dialog.query_one("#dry-run", Static))
        assert "PATCH" in text and "rl-api/active" in text and '"isActive": true' in text
        assert "prj_demo" not in text
        await pilot.press("enter")
        await settle(pilot)
        assert sandbox.stats.requests == 0


async def test_add_validates_and_forget_removes(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, AddLimiterDialog)
        assert dialog.query_one("#add", Button).disabled
        await pilot.press(".", ".")
        await pilot.pause()
        error = dialog.query_one("#limiter-id-error", Static)
        assert error.display and "cannot be a path segment" in plain(error)
        assert dialog.query_one("#add", Button).disabled
        await pilot.press("enter")  # invalid: stays open
        await pilot.pause()
        assert flow_app.screen is dialog
        dialog.query_one("#limiter-id", Input).value = "rl-typed"
        dialog.query_one("#limiter-name", Input).value = "bad\x1bname"
        await pilot.pause()
        assert "control character" in plain(dialog.query_one("#limiter-name-error", Static))
        assert dialog.query_one("#add", Button).disabled
        dialog.query_one("#limiter-name", Input).value = "Typed by hand"
        await pilot.pause()
        assert not dialog.query_one("#add", Button).disabled
        await pilot.click("#add")
        await settle(pilot)
        assert row_of(flow_app, "rl-typed")[:3] == ["rl-typed", "Typed by hand", "?"]
        await pilot.press("x")
        await until(lambda: isinstance(flow_app.screen, ConfirmDialog), pilot)
        await pilot.press("enter")  # Cancel
        await settle(pilot)
        assert "rl-typed" in {e.id for e in table(flow_app).entries}
        await open_then(pilot, "x", "tab", "enter")
        await settle(pilot)
        assert "rl-typed" not in {e.id for e in table(flow_app).entries}
        assert sandbox.stats.requests == 0


async def test_api_error_is_reported(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    sandbox.faults.configure(fail_next=9, error_status=500)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await open_then(pilot, "t", "tab", "enter")
        await settle_failed(pilot)
        toasts = list(flow_app._notifications)
        assert any("The service failed (500)" in (n.title or "") for n in toasts)
        # The panel is the latest attempt: the failure, not nothing (#14).
        panel = flow_app.screen.query_one(ReturnedProjectPanel)
        assert panel.display and "Last attempt" in str(panel.border_title)
        headline = plain(panel.query_one("#returned-project-headline", Static))
        assert headline.startswith("FAILED: The service failed (500)")
        assert "rate limiter rl-api → ON" in plain(
            panel.query_one("#returned-project-body", Static)
        )
        # The flag sits beside the state it qualifies (#27: cut at 80 columns at the end).
        assert row_of(flow_app, "rl-api")[2] == "OFF · try FAILED (e)"
        await open_then(pilot, "e", "enter")  # the error log, then its newest error
        await pilot.pause()
        status = flow_app.screen.query_one(".error-status", Static)
        assert "500" in plain(status)


async def test_success_after_failure_clears_the_mark_and_the_panel_follows_the_project(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    sandbox.faults.configure(fail_next=1, error_status=500)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await open_then(pilot, "t", "tab", "enter")  # fails
        await settle_failed(pilot)
        assert row_of(flow_app, "rl-api")[2].endswith("· try FAILED (e)")
        await open_then(pilot, "t", "tab", "enter")  # the same switch again: answered
        await settle(pilot)
        panel = flow_app.screen.query_one(ReturnedProjectPanel)
        assert str(panel.border_title) == "Returned project"
        assert not panel.query_one("#returned-project-headline").display
        assert "try" not in row_of(flow_app, "rl-api")[2]
        flow_app.services.choose_project(DEMO_ACCOUNT, "shop-staging")
        await settle(pilot)
        assert not panel.display  # another project: nothing of its own yet
        flow_app.services.choose_project(DEMO_ACCOUNT, "shop-prod")
        await settle(pilot)
        assert panel.display  # its latest attempt again


def test_snapshot_failed_switch(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        app.backend.faults.configure(fail_next=1, error_status=500)  # type: ignore[attr-defined]
        await open_then(pilot, "t", "tab", "enter")
        await settle_failed(pilot)
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


async def test_no_project_keys_only_explain(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        flow_app.services.choose_project(None, None)
        await settle(pilot)
        for key in ("space", "t", "o", "f", "a", "x"):
            await pilot.press(key)
            await until(lambda: isinstance(flow_app.screen, LimitersScreen), pilot)
        assert sandbox.stats.requests == 0


async def test_help_lists_every_key(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, HelpDialog)
        rows = [plain(row) for row in dialog.query(".help-row").results(Static)]
        assert rows[0].split()[:2] == ["space", "Mark"], rows  # the screen's own first
        for key, words in (
            ("space", "Mark"),
            ("t", "Toggle"),
            ("o", "Enable"),
            ("f", "Disable"),
            ("a", "Add id"),
            ("x", "Forget id"),
            ("esc", "Clear filter / hide returned project"),
            ("/", "Filter the table"),
            ("*", "Mark all shown"),
        ):
            assert any(row.split()[:1] == [key] and words in row for row in rows), (key, rows)
