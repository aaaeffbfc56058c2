"""The key bar: every screen's keys on one line, help and quit always in view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable

from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.ui_rules import KeyBar
from tests.tui.helpers import settle


def bar_text(app: App[Any]) -> str:
    """What the key bar of the current screen shows."""
    bar = app.screen.query_one(KeyBar)
    return "".join(segment.text for segment in bar.render_line(0)).rstrip()


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (
            (100, 30),
            " space Mark  t Toggle  o Enable  f Disable  a Add id  x Forget id  …"
            "     ? Help  q Quit  ^p palette",
        ),
        (
            (80, 24),
            " space Mark  t Toggle  o Enable  f Disable  …        ? Help  q Quit  ^p palette",
        ),
    ],
)
async def test_limiters_keys_fit_with_help_and_quit_in_view(
    make_snap_app: Callable[..., BottuiApp], size: tuple[int, int], expected: str
) -> None:
    app = make_snap_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert bar_text(app) == expected


async def test_the_screen_keys_stay_apart_once_one_is_remapped(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app(keymap={"app.projects": "f1", "limiters.toggle": "g"})
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        text = bar_text(app)
        assert "1-6 Screens" not in text
        expected = " space Mark  o Enable  f Disable  a Add id  x Forget id  g Toggle  "
        assert text.startswith(expected)
        assert "  f1 Projects  2 Limiters  3 Grants  4 Thresholds  5 Journal  " in text
        assert text.endswith("   ? Help  q Quit  ^p palette")


async def test_each_screen_shows_its_own_keys(make_snap_app: Callable[..., BottuiApp]) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        firsts = (("3", " i Revoke form  b Bulk revoke"), ("5", " ⏎ Details  u Undo row"))
        for key, first in firsts:
            await pilot.press(key)
            await settle(pilot)
            assert bar_text(app).startswith(first), bar_text(app)
            assert bar_text(app).endswith("? Help  q Quit  ^p palette")


async def test_a_click_on_a_key_presses_it(make_snap_app: Callable[..., BottuiApp]) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        text = bar_text(app)
        await pilot.click(KeyBar, offset=(text.index("o Enable"), 0))
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)  # enable the selected limiter?
        await pilot.press("escape")
        await settle(pilot)
        await pilot.click(KeyBar, offset=(text.index("…"), 0))  # not a key
        await settle(pilot)
        assert app.screen.query_one(KeyBar) and app.current_mode == "limiters"
        await pilot.click(KeyBar, offset=(text.index("? Help"), 0))
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpDialog"


async def test_too_narrow_for_the_right_end_keeps_what_fits(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    async with app.run_test(size=(24, 24)) as pilot:
        await settle(pilot)
        assert bar_text(app) == " space Mark  t Toggle  …"


# -- bindings that change -------------------------------------------------------------


class KeysScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "alpha", "Alpha"),
        Binding("b", "beta", "Beta"),
        Binding("c", "gamma", "Gamma"),
    ]
    gamma_state: bool | None = True

    def compose(self) -> ComposeResult:
        yield DataTable()
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.gamma_state if action == "gamma" else True

    def action_alpha(self) -> None:
        self.notify("alpha")

    def action_beta(self) -> None:
        self.notify("beta")

    def action_gamma(self) -> None:
        self.notify("gamma")


class KeysApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(KeysScreen())


async def test_the_bar_follows_bindings_that_change() -> None:
    app = KeysApp()
    async with app.run_test(size=(80, 10)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, KeysScreen)
        assert bar_text(app).startswith(" a Alpha  b Beta  c Gamma")
        screen.gamma_state = None  # shown, but does nothing now: dimmed
        screen.refresh_bindings()
        await settle(pilot)
        bar = screen.query_one(KeyBar)
        gamma = bar_text(app).index("c Gamma")
        dim = [s.style.dim for s in bar.render_line(0) if s.text.strip() and s.style]
        assert bar_text(app).startswith(" a Alpha  b Beta  c Gamma") and gamma > 0
        assert any(dim) and not all(dim)
        screen.gamma_state = False  # not available at all: hidden
        screen.refresh_bindings()
        await settle(pilot)
        assert "Gamma" not in bar_text(app)
        screen._bindings.bind("d", "alpha", "Delta")  # same action as a: not twice
        screen.refresh_bindings()
        await settle(pilot)
        assert bar_text(app).count("Alpha") == 1 and "Delta" not in bar_text(app)
