"""The working indicator follows the calls under way on every screen, not only the current one."""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen

from bottui.tui.app import BottuiApp
from bottui.tui.ui_rules import ContextBar
from tests.tui.helpers import settle


def indicator(app: BottuiApp, screen: Screen[object] | None = None) -> str:
    """The indicator of a screen's header line (the current one's by default), "" if none."""
    bar = (screen or app.screen).query_one(ContextBar)
    shown = [flag.plain.strip() for flag in bar.flags() if "⟳" in flag.plain]
    assert all(text in bar.render().plain for text in shown)
    return shown[0] if shown else ""


async def test_a_screen_left_during_a_call_does_not_keep_its_words(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.services.begin_work("Switching rate limiter")
        await settle(pilot)
        assert indicator(app) == "⟳ Switching rate limiter"
        await pilot.press("3")
        await settle(pilot)
        assert indicator(app) == "⟳ Switching rate limiter"  # still under way
        app.services.end_work("Switching rate limiter")
        await pilot.press("2")
        await settle(pilot)
        assert indicator(app) == ""


async def test_the_screen_under_a_dialog_shows_the_call(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        app.services.begin_work("Saving token")
        await settle(pilot)
        base = app.screen_stack[0]
        assert indicator(app, base) == "⟳ Saving token"
        app.services.end_work("Saving token")
        await settle(pilot)
        assert indicator(app, base) == ""
