"""Item 12 of #14: a read-only profile refuses before anything is asked; Enter in the
protected profile's typed field (the last field, #24) confirms once the id matches and
the form is complete, and says why when not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace
from textual.widgets import Input, Static

from bottui.sandbox.demo_data import DEMO_ACCOUNT, HOSTILE_PROJECT_ID
from bottui.tui.app import BottuiApp
from bottui.tui.screens.base import BottuiScreen
from bottui.tui.screens.change_form import TypedConfirmDialog
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle

MakeApp = Callable[..., BottuiApp]


def recorder(app: BottuiApp) -> Any:
    return app.backend.state.recorder  # type: ignore[attr-defined]


def refused(app: BottuiApp) -> bool:
    return any(n.title == "Read-only profile" for n in app._notifications)


async def test_read_only_refuses_before_the_choice_of_state(make_snap_app: MakeApp) -> None:
    # The hostile project's limiters have no known state: a toggle would first ask
    # Enable or Disable, only to refuse whatever was chosen.
    app = make_snap_app(hostile=True)
    app.session.settings = replace(app.session.settings, read_only=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        app.services.choose_project(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)
        await settle(pilot)
        screen = app.screen
        for action in ("toggle_limiter", "enable", "disable"):
            app._notifications.clear()
            await screen.run_action(action)
            await settle(pilot)
            assert app.screen is screen, action  # no dialog of any kind
            assert refused(app), action
        assert recorder(app).stats().requests == 0


async def test_read_only_refuses_before_the_threshold_editor(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="thresholds")
    app.session.settings = replace(app.session.settings, read_only=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await screen.run_action("edit")
        await settle(pilot)
        assert app.screen is screen and refused(app)
        assert recorder(app).stats().requests == 0


async def test_read_only_refuses_before_the_bulk_dialog(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="grants")
    app.session.settings = replace(app.session.settings, read_only=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await screen.run_action("bulk")
        await settle(pilot)
        assert app.screen is screen and refused(app)


async def test_a_dry_run_is_not_refused_first(make_snap_app: MakeApp) -> None:
    from bottui.tui.screens.dialogs import DryRunDialog

    app = make_snap_app()
    app.session.settings = replace(app.session.settings, read_only=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        app.services.dry_run = True
        await app.screen.run_action("disable")
        await settle(pilot)
        assert isinstance(app.screen, DryRunDialog)  # shown, never sent
        assert recorder(app).stats().requests == 0


async def _typed_dialog(app: BottuiApp, pilot: Any) -> TypedConfirmDialog:
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, BottuiScreen)
    await screen.run_action("disable")
    await settle(pilot)
    dialog = app.screen
    assert isinstance(dialog, TypedConfirmDialog)
    return dialog


async def test_enter_in_the_typed_field_confirms_when_the_id_matches(
    make_snap_app: MakeApp,
) -> None:
    app = make_snap_app()
    app.session.settings = replace(app.session.settings, protected=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await _typed_dialog(app, pilot)
        # The form opens on its first field; Enter moves down to the typed id, the last.
        assert app.focused is dialog.query_one("#reason", Input)
        await pilot.press("enter", "enter")
        assert app.focused is dialog.query_one("#typed", Input)
        await pilot.press(*"shop-prod", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, TypedConfirmDialog)
        assert recorder(app).stats().requests == 1


async def test_enter_in_the_typed_field_says_why_when_the_id_does_not_match(
    make_snap_app: MakeApp,
) -> None:
    app = make_snap_app()
    app.session.settings = replace(app.session.settings, protected=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await _typed_dialog(app, pilot)
        hint = dialog.query_one("#typed-hint", Static)
        assert not hint.display
        await pilot.press("enter", "enter", *"shop-pro", "enter")
        await settle(pilot)
        assert app.screen is dialog  # nothing confirmed, nothing sent
        assert recorder(app).stats().requests == 0
        assert hint.display
        assert "Type exactly shop-prod" in plain(hint)
        assert app.focused is dialog.query_one("#typed", Input)
        await pilot.press("d")  # the id now matches: the explanation goes
        await pilot.pause()
        assert not hint.display
