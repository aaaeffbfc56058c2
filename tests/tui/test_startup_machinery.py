"""What makes the first frame fast: the shared CSS parse and the paused collector.

Each of these replaces or wraps a piece of Textual 8.2.8 (see the modules'
docstrings); these tests pin the behaviour that the speed must not cost.
The key bar, the third such piece, has tests of its own (test_key_bar.py).
"""

from __future__ import annotations

import gc
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.color import Color
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet, StylesheetParseError

from bottui.tui import perf
from bottui.tui.app import BottuiApp
from bottui.tui.perf.stylesheet import (
    CSS_SOURCE,
    SharedParseStylesheet,
    first_frame_css,
    section_names,
    whole_css,
)
from bottui.tui.perf.textual_private import TESTED_TEXTUAL, as_tested
from bottui.tui.ui_rules import MODE_KEYS
from tests.tui.helpers import settle

ROOT = Path(__file__).resolve().parents[2]

# -- the shared CSS parse -------------------------------------------------------------

#: The cache runs on the Textual it was tested on only; on another, the app
#: uses Textual's own stylesheet (test_stylesheet_cache.py checks that path).
needs_tested_textual = pytest.mark.skipif(
    not as_tested(), reason=f"Textual is not {TESTED_TEXTUAL}: the parse cache is off"
)


def _location() -> tuple[str, str]:
    # The cache is process-wide: each test parses under a place of its own.
    return ("test_startup_machinery.py", uuid.uuid4().hex)


@needs_tested_textual
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


@needs_tested_textual
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


@needs_tested_textual
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


@needs_tested_textual
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


# -- the first frame's part of the stylesheet -----------------------------------------


def test_every_screen_has_a_section_and_blanked_sections_keep_their_lines() -> None:
    assert set(MODE_KEYS.values()) <= set(section_names())
    whole = whole_css()
    for mode in MODE_KEYS.values():
        first = first_frame_css(mode)
        assert first.count("\n") == whole.count("\n")
        assert len(first) < len(whole) / 2
        kept = [line for line in first.splitlines() if line.strip()]
        assert f"/* == {mode}:" in "\n".join(kept)
        markers = [line for line in kept if line.startswith("/* == ")]
        assert all(mode in line for line in markers)  # its own, or one naming it


def test_blanking_keeps_the_head_and_the_named_section() -> None:
    css = "A { width: 1; }\n/* == one: x == */\nB { width: 2; }\n/* == two == */\nC {}\n"
    assert first_frame_css("one", css) == (
        "A { width: 1; }\n/* == one: x == */\nB { width: 2; }\n\n\n"
    )
    assert first_frame_css("two", css) == "A { width: 1; }\n\n\n/* == two == */\nC {}\n"
    shared = "A {}\n/* == forms (one two): x == */\nF {}\n/* == three: y == */\nT {}\n"
    assert first_frame_css("two", shared) == "A {}\n/* == forms (one two): x == */\nF {}\n\n\n"
    assert first_frame_css("three", shared) == "A {}\n\n\n/* == three: y == */\nT {}\n"
    assert section_names(shared) == ["forms", "three"]


@pytest.mark.parametrize("mode", list(MODE_KEYS.values()))
async def test_the_first_frame_styles_its_screen_as_the_whole_stylesheet_does(
    mode: str, make_snap_app: Callable[..., BottuiApp]
) -> None:
    app = make_snap_app(start_mode=mode)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        # Up: the whole file has taken the first frame's place, in the same slot.
        assert app.stylesheet.source[CSS_SOURCE].content == whole_css()
        assert next(iter(app.stylesheet.source)) == CSS_SOURCE
        nodes = list(app.screen.walk_children(with_self=True))
        assert len(nodes) > 5
        whole = [repr(node.styles.get_rules()) for node in nodes]
        first = app.stylesheet.copy()
        first.add_source(first_frame_css(mode), read_from=CSS_SOURCE)
        first.parse()
        for node in nodes:
            first.apply(node)
        assert [repr(node.styles.get_rules()) for node in nodes] == whole


# -- the paused collector ------------------------------------------------------------


@pytest.fixture
def collector() -> Iterator[None]:
    """Whatever a test does, the collector is on and nothing is frozen afterwards."""
    yield
    perf._paused = False
    gc.unfreeze()
    gc.enable()


def test_pause_and_resume(collector: None) -> None:
    perf.pause()
    assert not gc.isenabled()
    perf.pause()  # twice is once
    perf.resume()
    assert gc.isenabled() and gc.get_freeze_count() > 0
    perf.resume()  # idempotent
    assert gc.isenabled()


def test_resume_leaves_a_collector_turned_off_elsewhere_alone(collector: None) -> None:
    gc.disable()
    perf.pause()  # already off: not ours to turn back on
    perf.resume()
    assert not gc.isenabled()


async def test_the_app_resumes_the_collector_once_it_is_up(
    collector: None, make_snap_app: Callable[..., BottuiApp]
) -> None:
    app = make_snap_app()
    perf.pause()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert gc.isenabled()


# -- what the first frame does not import ---------------------------------------------------

#: Modules ``bottui demo`` must not import before its first frame, each for the
#: milliseconds it would cost there (measured with ``python -X importtime``).
NOT_BEFORE_FIRST_FRAME = (
    "argparse",  # ~2.5 ms with gettext: the bare command needs no parser
    "tomllib",  # ~2 ms: the demo starts from the settings it wrote, in memory
    "bottui.store.config.config_file",  # ~2 ms: and needs no config model for that
    "tomlkit",  # ~30 ms: only edits of config.toml need it
    "keyring",  # ~115 ms: the demo's keyring is in memory
    "httpx",  # ~170 ms: the client is made with the first request
    "uvicorn",  # the sandbox runs in a child process
    "bottui.store.inventory.inventory_toml",  # inventory files only
    "bottui.api.client",
    "bottui.tui.screens.dialogs",  # shown on demand
    "bottui.ops.mutations",  # the first change
    "bottui.api.models",
    "psycopg",  # team mode only: imported when a store is used, never at start-up
    "bottui.store.team.pg_store",
)


def test_the_demo_start_up_path_imports_none_of_the_costly_modules(tmp_path: Path) -> None:
    # A fresh interpreter doing what `bottui demo` does up to running the app.
    script = f"""
import sys
from pathlib import Path
from bottui.cli import parse
parse(["demo"])
from bottui.demo import prepare
from bottui.sandbox.process import SandboxProcess
from bottui.tui.app import MODE_KEYS, BottuiApp
from bottui.tui.perf.stylesheet import CSS_SOURCE, first_frame_css, section_names, whole_css
from bottui.tui.screens.limiters import LimitersScreen
session = prepare(Path({str(tmp_path)!r}), "http://127.0.0.1:9")
BottuiApp(session, demo=True)
print(" ".join(m for m in {NOT_BEFORE_FIRST_FRAME!r} if m in sys.modules))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.split() == []


async def test_the_deferred_start_up_work_runs_once_after_the_first_frame(
    collector: None, make_snap_app: Callable[..., BottuiApp]
) -> None:
    seen: list[tuple[bool, bool]] = []

    def when_up() -> None:
        whole = app.stylesheet.source[CSS_SOURCE].content == whole_css()
        seen.append((whole, gc.isenabled()))

    app = make_snap_app(when_up=when_up)
    perf.pause()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("3")  # another screen: nothing runs again
        await settle(pilot)
    # The stylesheet was whole and the collector on by the time it ran.
    assert seen == [(True, True)]
