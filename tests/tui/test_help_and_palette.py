"""Help shows the screen's own keys first; the palette has every action (#14, items 3 and 8)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.command import CommandPalette
from textual.widgets import Input, OptionList, Static

from bottui.tui import key_registry
from bottui.tui.app import BottuiApp
from bottui.tui.key_registry import all_actions, main_scopes, scopes
from bottui.tui.screens.dialogs import HelpDialog, TargetPicker
from bottui.tui.screens.threshold_dialogs import ThresholdEditor
from bottui.tui.screens.thresholds_screen import DimensionTable, ThresholdsScreen
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle, until

MakeApp = Callable[..., BottuiApp]


def help_rows(app: BottuiApp) -> list[str]:
    assert isinstance(app.screen, HelpDialog)
    return [plain(row) for row in app.screen.query(".help-row").results(Static)]


def headings(app: BottuiApp) -> list[str]:
    return [plain(h) for h in app.screen.query(".help-heading").results(Static)]


@pytest.mark.parametrize(
    ("mode", "first"),
    [
        ("projects", "projects.add"),
        ("limiters", "limiters.mark"),
        ("grants", "grants.form"),
        ("thresholds", "thresholds.add"),
        ("journal", "journal.undo"),
    ],
)
async def test_help_lists_this_screens_keys_first(
    make_snap_app: MakeApp, mode: str, first: str
) -> None:
    app = make_snap_app(start_mode=mode)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        rows = help_rows(app)
        title = next(s for s in scopes() if s.name == mode).title
        assert headings(app)[:3] == [title, "Everywhere", "Navigation (Textual's keys)"]
        assert rows[0].endswith(first), rows[:3]  # each row ends in its binding id
        # Each key once: no key repeated among this screen's, the app's and navigation.
        firsts = [h for h in app.screen.query(".help-heading, .help-row").results(Static)]
        shown: list[str] = []
        for widget in firsts:
            if "help-heading" in widget.classes and plain(widget).endswith("(elsewhere)"):
                break
            if "help-row" in widget.classes:
                shown += plain(widget).strip().split("  ")[0].split()
        assert len(shown) == len(set(shown)) and "q" in shown, shown
        # Every binding id of the app is listed somewhere in the help.
        text = "\n".join(rows)
        missing = [a.binding_id for a in all_actions() if a.binding_id not in text]
        assert not missing, missing


async def test_help_fills_a_tall_terminal(make_snap_app: MakeApp) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        box = app.screen.query_one("HelpDialog > Vertical")
        assert box.outer_size.height >= 55, box.outer_size


async def test_help_in_the_threshold_editor_and_f1_in_a_field(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="thresholds")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ThresholdsScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ThresholdEditor)
        await pilot.press("question_mark")  # the slider has the focus
        await pilot.pause()
        rows = help_rows(app)
        assert headings(app)[0] == "Threshold editor"
        assert any("pgdn" in row and "slider.decrease_coarse" in row for row in rows), rows
        assert any(row.split()[:2] == ["home", "To"] for row in rows), rows
        await pilot.press("escape")
        await pilot.pause()
        name = app.screen.query_one("#name", Input)
        name.focus()
        name.value = ""
        await pilot.press("question_mark")  # typed, not help
        await pilot.pause()
        assert isinstance(app.screen, ThresholdEditor) and name.value == "?"
        await pilot.press("f1")
        await until(lambda: isinstance(app.screen, HelpDialog), pilot)


@pytest.mark.parametrize(
    "word", ["token", "profile", "add", "export", "filter", "help", "forget", "undo"]
)
async def test_palette_search_finds_an_entry(make_snap_app: MakeApp, word: str) -> None:
    app = make_snap_app()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await until(lambda: isinstance(app.screen, CommandPalette), pilot)
        await pilot.press(*word)
        await pilot.pause(0.3)
        await settle(pilot)
        options = app.screen.query_one(OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any(word in p.lower() for p in prompts), (word, prompts)


def test_every_action_of_every_main_screen_is_a_command(make_snap_app: MakeApp) -> None:
    app = make_snap_app()
    ids = {c.binding_id for c in key_registry.commands(app)}
    names = {scope.name for scope in main_scopes()}
    wanted = {(a.scope, a.action) for a in all_actions() if a.scope in names and a.description}
    found = {(a.scope, a.action) for a in all_actions() if a.binding_id in ids}
    assert wanted <= found, wanted - found
    # Each action once (q and ctrl+q: one Quit); one id may name the same action on
    # several screens (table.filter on Projects, Rate limiters and Thresholds).
    assert len(wanted) == len(key_registry.commands(app))


async def test_the_picker_edits_the_picked_dimension(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="thresholds")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DimensionTable)
        keys = [key for key, _entry in table.keyed_entries]
        assert len(keys) >= 2
        table.move_cursor(row=0)  # highlighted: the first; picked: the last
        await pilot.press("1")
        await settle(pilot)
        command = next(c for c in key_registry.commands(app) if c.binding_id == "thresholds.edit")
        command.run()
        await settle(pilot)
        assert isinstance(app.screen, TargetPicker)
        await pilot.press(*keys[-1])
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ThresholdEditor)
        assert app.screen.dimension_id == keys[-1]


@pytest.mark.parametrize("size", [(100, 30), (100, 60)], ids=["100x30", "100x60"])
def test_snapshot_help_on_rate_limiters(
    snap_compare: Callable[..., bool], make_snap_app: MakeApp, size: tuple[int, int]
) -> None:
    assert snap_compare(make_snap_app(), press=["question_mark"], terminal_size=size)
