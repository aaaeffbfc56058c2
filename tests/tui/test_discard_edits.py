"""Escape in the threshold editor: asks before dropping edits (issue #14, item 12)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.widgets import Button, Label, Static

from bottui.tui.app import BottuiApp
from bottui.tui.screens.dialogs import DiscardDialog, discard_title
from bottui.tui.screens.thresholds_screen import ThresholdsScreen
from bottui.tui.widgets.threshold_field import ThresholdField
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, until
from tests.tui.test_thresholds import open_editor, retype

MakeApp = Callable[..., BottuiApp]


def test_the_title_counts_the_thresholds_and_names_the_name() -> None:
    assert discard_title(["block"]) == "Discard changes to 1 threshold?"
    assert discard_title(["block", "challenge"]) == "Discard changes to 2 thresholds?"
    assert discard_title(["name", "challenge"]) == "Discard changes to 1 threshold and the name?"
    assert discard_title(["name"]) == "Discard changes to the name?"


async def test_escape_with_nothing_changed_closes_at_once(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="thresholds")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_editor(pilot)
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, ThresholdsScreen), pilot)


async def test_escape_after_an_edit_asks_and_keep_editing_is_focused(
    make_snap_app: MakeApp,
) -> None:
    app = make_snap_app(start_mode="thresholds")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        editor = await open_editor(pilot)
        block = editor.query_one("#block", ThresholdField)
        before = block.text
        await pilot.press("right")  # the focused slider: one fine step up
        await pilot.pause()
        assert block.text != before
        await pilot.press("escape")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, DiscardDialog)
        title = dialog.query_one(".dialog-title", Label)
        assert plain(title) == "Discard changes to 1 threshold?"
        assert f"block: {before} -> {block.text}" in plain(
            dialog.query_one("#discard-edits", Static)
        )
        assert app.focused is dialog.query_one("#keep", Button)
        # Enter (Keep editing) and a second Escape both keep the edit.
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is editor and block.text != before
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is editor and block.text != before
        # Only Discard drops it.
        await pilot.press("escape")
        await pilot.pause()
        await pilot.click("#discard")
        await until(lambda: isinstance(app.screen, ThresholdsScreen), pilot)


async def test_cancel_button_asks_too_and_an_edit_undone_asks_nothing(
    make_snap_app: MakeApp,
) -> None:
    app = make_snap_app(start_mode="thresholds")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        editor = await open_editor(pilot)
        name = editor.query_one("#name")
        original = name.value  # type: ignore[attr-defined]
        await retype(pilot, name, "Bot score v2")  # type: ignore[arg-type]
        await pilot.click("#cancel")
        await until(lambda: isinstance(app.screen, DiscardDialog), pilot)
        assert plain(app.screen.query_one(".dialog-title", Label)) == (
            "Discard changes to the name?"
        )
        await pilot.press("enter")  # keep editing
        await pilot.pause()
        await retype(pilot, name, original)  # type: ignore[arg-type]
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, ThresholdsScreen), pilot)


def test_snapshot_discard_question(snap_compare: Any, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Any) -> None:
        await open_editor(pilot)
        await pilot.press("right", "escape")
        await pilot.pause()

    app = make_snap_app(start_mode="thresholds")
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)
