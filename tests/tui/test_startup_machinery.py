"""What makes the first frame fast: shared CSS parse, coalescing footer, paused collector.

Each of these replaces or wraps a piece of Textual 8.2.8 (see the modules'
docstrings); these tests pin the behaviour that the speed must not cost.
"""

from __future__ import annotations

import gc
import uuid
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet, StylesheetParseError
from textual.screen import Screen
from textual.widgets import DataTable, Footer
from textual.widgets._footer import FooterKey

from bottui.tui import gc_pause
from bottui.tui.app import BottuiApp
from bottui.tui.stylesheet_cache import SharedParseStylesheet
from bottui.tui.widgets.footer import KeyFooter
from tests.tui.helpers import settle

# -- the shared CSS parse -------------------------------------------------------------


def _location() -> tuple[str, str]:
    # The cache is process-wide: each test parses under a place of its own.
    return ("test_startup_machinery.py", uuid.uuid4().hex)


def test_a_reparse_with_the_same_theme_reuses_the_parsed_rules() -> None:
    sheet = SharedParseStylesheet(variables={"accent": "red"})
    sheet.add_source("Static { color: $accent; }", read_from=_location())
    sheet.parse()
    first = sheet.rules[0]
    sheet.reparse()
    assert sheet.rules[0] is first  # Textual's own reparse builds a new RuleSet here
    other = SharedParseStylesheet(variables={"accent": "red"})
    other.source = dict(sheet.source)
    other.reparse()
    assert other.rules[0] is first


def test_another_theme_is_parsed_for_real() -> None:
    sheet = SharedParseStylesheet(variables={"accent": "red"})
    sheet.add_source("Static { color: $accent; }", read_from=_location())
    sheet.parse()
    assert sheet.rules[0].styles.color == Color.parse("red")
    sheet.set_variables({"accent": "blue"})
    sheet.reparse()
    assert sheet.rules[0].styles.color == Color.parse("blue")
    sheet.set_variables({"accent": "red"})
    sheet.reparse()
    assert sheet.rules[0].styles.color == Color.parse("red")


def test_an_error_is_reported_on_every_parse_and_the_old_rules_stay() -> None:
    sheet = SharedParseStylesheet(variables={"accent": "red"})
    sheet.add_source("Static { color: $accent; }", read_from=_location())
    sheet.parse()
    good = list(sheet.rules)
    broken = _location()
    sheet.add_source("Static { color: not-a-colour; }", read_from=broken)
    with pytest.raises(StylesheetParseError):
        sheet.reparse()
    assert sheet._rules == good
    again = SharedParseStylesheet(variables={"accent": "red"})
    again.add_source("Static { color: not-a-colour; }", read_from=broken)
    with pytest.raises(StylesheetParseError):  # the cached rules still carry their errors
        again.reparse()


def _shape(rule: RuleSet) -> tuple[str, str, bool, int]:
    return (rule.selectors, repr(rule.styles.get_rules()), rule.is_default_rules, rule.tie_breaker)


async def test_the_app_stylesheet_parses_as_textual_would(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    """Our reparse mirrors Textual's private one: same rules, same order."""
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        ours = app.stylesheet
        assert isinstance(ours, SharedParseStylesheet)
        textuals = Stylesheet(variables=app.get_css_variables())
        textuals.source = dict(ours.source)
        textuals.reparse()
        ours.reparse()
        assert [_shape(rule) for rule in ours.rules] == [_shape(rule) for rule in textuals.rules]
        assert len(ours.rules) > 50


async def test_a_theme_change_restyles_the_app(make_snap_app: Callable[..., BottuiApp]) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        dark = app.screen.styles.background
        app.theme = "textual-light"
        await settle(pilot)
        light = app.screen.styles.background
        assert light != dark and light.brightness > dark.brightness
        app.theme = "textual-dark"
        await settle(pilot)
        assert app.screen.styles.background == dark


# -- the coalescing footer -----------------------------------------------------------


class CountingFooter(KeyFooter):
    """Counts how often the keys are built."""

    builds = 0

    def compose(self) -> ComposeResult:
        type(self).builds += 1
        yield from super().compose()


class CountingTextualFooter(Footer):
    """Textual's own Footer, counted the same way, for comparison."""

    builds = 0

    def compose(self) -> ComposeResult:
        type(self).builds += 1
        yield from super().compose()


class KeysScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "alpha", "Alpha"),
        Binding("b", "beta", "Beta"),
    ]

    def __init__(self, footer: type[Footer]) -> None:
        super().__init__()
        self.footer = footer

    def compose(self) -> ComposeResult:
        yield DataTable()  # takes the focus: one of the signals of a first show
        yield self.footer()

    def action_alpha(self) -> None:
        self.notify("alpha")

    def action_beta(self) -> None:
        self.notify("beta")

    def action_gamma(self) -> None:
        self.notify("gamma")


class KeysApp(App[None]):
    def __init__(self, footer: type[Footer] = CountingFooter) -> None:
        super().__init__()
        self.footer = footer

    def on_mount(self) -> None:
        self.push_screen(KeysScreen(self.footer))


def _keys(app: App[Any]) -> list[str]:
    return [key.description for key in app.screen.query(FooterKey)]


async def _builds(footer: type[CountingFooter | CountingTextualFooter]) -> tuple[int, int]:
    """Builds during start-up, then for a burst of three binding changes."""
    footer.builds = 0
    app = KeysApp(footer)
    async with app.run_test(size=(80, 10)) as pilot:
        await settle(pilot)
        at_start = footer.builds
        assert _keys(app)[:2] == ["Alpha", "Beta"]
        for _ in range(3):
            app.screen.refresh_bindings()
        await settle(pilot)
        assert _keys(app)[:2] == ["Alpha", "Beta"]
        return at_start, footer.builds - at_start


async def test_a_burst_of_binding_changes_builds_the_keys_once() -> None:
    ours_at_start, ours_burst = await _builds(CountingFooter)
    textuals_at_start, textuals_burst = await _builds(CountingTextualFooter)
    assert (ours_burst, textuals_burst) == (1, 3)
    assert ours_at_start < textuals_at_start


async def test_the_footer_follows_a_later_change_of_bindings() -> None:
    app = KeysApp()
    async with app.run_test(size=(80, 10)) as pilot:
        await settle(pilot)
        app.screen._bindings.bind("c", "gamma", "Gamma")
        app.screen.refresh_bindings()
        await settle(pilot)
        assert _keys(app)[:3] == ["Alpha", "Beta", "Gamma"]
        await pilot.press("c")
        await settle(pilot)
        assert [n.message for n in app._notifications] == ["gamma"]


# -- the paused collector ------------------------------------------------------------


@pytest.fixture
def collector() -> Iterator[None]:
    """Whatever a test does, the collector is on and nothing is frozen afterwards."""
    yield
    gc_pause._paused = False
    gc.unfreeze()
    gc.enable()


def test_pause_and_resume(collector: None) -> None:
    gc_pause.pause()
    assert not gc.isenabled()
    gc_pause.pause()  # twice is once
    gc_pause.resume()
    assert gc.isenabled() and gc.get_freeze_count() > 0
    gc_pause.resume()  # idempotent
    assert gc.isenabled()


def test_resume_leaves_a_collector_turned_off_elsewhere_alone(collector: None) -> None:
    gc.disable()
    gc_pause.pause()  # already off: not ours to turn back on
    gc_pause.resume()
    assert not gc.isenabled()


async def test_the_app_resumes_the_collector_once_it_is_up(
    collector: None, make_snap_app: Callable[..., BottuiApp]
) -> None:
    app = make_snap_app()
    gc_pause.pause()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert gc.isenabled()
