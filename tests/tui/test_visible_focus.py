"""Focus never rests on what the operator cannot see; an empty screen's keys work (#27 item 4)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from bottui.ops import inventory_edits
from bottui.sandbox.demo_data import DEMO_ACCOUNT, DEMO_DIMENSIONS
from bottui.tui.app import BottuiApp
from bottui.tui.screens.threshold_dialogs import AddDimensionDialog
from bottui.tui.screens.thresholds_screen import DimensionTable
from bottui.tui.ui_rules import KeyBar, is_shown
from bottui.tui.widgets.entry_table import FilterBar
from tests.tui.helpers import settle

MakeApp = Callable[..., BottuiApp]
SMALL = (80, 24)


async def no_dimensions(app: BottuiApp) -> None:
    for dimension in DEMO_DIMENSIONS["shop-prod"]:
        await inventory_edits.forget_dimension(app.session, DEMO_ACCOUNT, "shop-prod", dimension.id)


def key_bar(app: BottuiApp) -> str:
    return app.screen.query_one(KeyBar).render().plain


def nothing_hidden_focused(app: BottuiApp) -> bool:
    focused = app.screen.focused
    return focused is None or is_shown(focused)


async def test_an_empty_thresholds_screen_keeps_its_keys_after_the_filter(
    make_snap_app: MakeApp,
) -> None:
    """`/`, a letter, Enter, Esc on a screen with no rows: `a` still adds a dimension."""
    for keys in (["slash", "escape"], ["slash", "enter"], ["slash", "z", "enter", "escape"]):
        app = make_snap_app(start_mode="thresholds")
        await no_dimensions(app)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            assert not app.screen.query_one(DimensionTable).display
            await pilot.press(*keys)
            await settle(pilot)
            assert nothing_hidden_focused(app), (keys, app.screen.focused)
            assert "a Add dimension" in key_bar(app), keys
            assert "Clear the filter" not in key_bar(app)
            await pilot.press("a")
            await settle(pilot)
            assert isinstance(app.screen, AddDimensionDialog), keys


async def test_keys_never_go_to_a_hidden_widget(make_snap_app: MakeApp) -> None:
    """Whatever path put the focus in the hidden filter line, the next key goes to the screen."""
    app = make_snap_app(start_mode="thresholds")
    await no_dimensions(app)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        bar = screen.query_one(FilterBar)
        assert not bar.display
        screen.set_focus(bar.input)  # hidden, yet focused: Textual allows it
        await pilot.pause()
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, AddDimensionDialog)
        assert bar.input.value == ""  # nothing was typed into the invisible field


async def test_a_kept_filter_says_what_it_hides_when_a_row_arrives(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="thresholds")
    await no_dimensions(app)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("slash", "z", "z", "enter")
        await settle(pilot)
        await inventory_edits.add_dimension(
            app.session, DEMO_ACCOUNT, "shop-prod", "bot-score", "Bot score"
        )
        app.services.inventory_changed()
        await settle(pilot)
        bar = app.screen.query_one(FilterBar)
        assert bar.display
        count = app.screen.query_one("#table-filter-count", Static).content
        assert "0 of 1 shown" in str(count)
        await pilot.press("escape")  # the screen's Esc clears the kept filter
        await settle(pilot)
        assert not bar.display
        assert app.screen.query_one(DimensionTable).row_count == 1


async def check_screen(pilot: Pilot[Any], keys: list[str]) -> None:
    app: BottuiApp = pilot.app  # type: ignore[assignment]
    await pilot.press(*keys)
    await settle(pilot)
    assert nothing_hidden_focused(app), (keys, app.screen, app.screen.focused)


async def test_no_screen_focuses_what_it_hides(make_snap_app: MakeApp) -> None:
    """Siblings: the Timed screen and the error log with no rows, Rate limiters with no project."""
    app = make_snap_app(start_mode="limiters")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await check_screen(pilot, ["T"])  # no timed change: the table is hidden
        await check_screen(pilot, ["escape", "e"])  # the error log, empty
        await check_screen(pilot, ["escape"])
        app.services.choose_project(None, None)
        await settle(pilot)
        await check_screen(pilot, [])
        for mode in ("projects", "grants", "thresholds", "journal", "playbooks"):
            app.switch_mode(mode)
            await check_screen(pilot, [])


async def test_a_dialog_over_a_screen_shows_its_own_keys(make_snap_app: MakeApp) -> None:
    """The threshold editor's bottom line said the Thresholds screen's keys (#27)."""
    from tests.tui.test_thresholds import open_editor

    app = make_snap_app(start_mode="thresholds")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("slash", "b", "o", "t", "enter")  # a filter kept, as reported
        await settle(pilot)
        await open_editor(pilot)
        await settle(pilot)
        shown = screen.query_one(KeyBar).render().plain
        assert "Close without sending" in shown and "Review and send" in shown, shown
        assert "Clear the filter" not in shown and "Add dimension" not in shown
        await pilot.press("escape")
        await settle(pilot)
        assert "Add dimension" in key_bar(app)


async def test_the_grants_form_hidden_with_no_project_keeps_no_focus(
    make_snap_app: MakeApp,
) -> None:
    app = make_snap_app(start_mode="grants")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.screen.query_one("#visitor-id").focus()
        await pilot.pause()
        app.services.choose_project(None, None)
        await settle(pilot)
        assert nothing_hidden_focused(app), app.screen.focused
