"""Hostile text from the server and the inventory stays text on every screen.

Names full of Textual action links, Rich markup, a bare ``[/]``, escape
sequences and bidi overrides: the literal text is on screen (control
characters replaced), clicking it does nothing, nothing crashes, and a
hostile error message is shown literally in the toast and the error modal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, Input

from bottui.plaintext import clean
from bottui.sandbox.demo import (
    DEMO_ACCOUNT,
    HOSTILE_ANSI,
    HOSTILE_DIMENSION_IDS,
    HOSTILE_ERROR_MESSAGE,
    HOSTILE_MARKUP,
    HOSTILE_PROJECT_ID,
)
from bottui.tui.app import BottuiApp
from bottui.tui.widgets.key_bar import KeyBar


def screen_lines(app: BottuiApp) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


async def click_hostile_text(pilot: Pilot[Any], app: BottuiApp, needle: str) -> int:
    """Click every cell of every line showing ``needle``; return how many clicks."""
    clicks = 0
    for y, line in enumerate(screen_lines(app)):
        x = line.find(needle)
        if x < 0:
            continue
        for dx in range(len(needle)):
            widget, _ = app.screen.get_widget_at(x + dx, y)
            if isinstance(widget, Button | KeyBar | Input):
                continue  # real controls, not text
            await pilot.click(offset=(x + dx, y))
            clicks += 1
            assert app.is_running, f"clicking {needle!r} at {(x + dx, y)} ended the app"
    return clicks


async def test_hostile_names_are_literal_and_inert(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app(hostile=True)
    inventory = app.session.inventory
    assert inventory is not None
    for dim in HOSTILE_DIMENSION_IDS:
        inventory.add_dimension(DEMO_ACCOUNT, HOSTILE_PROJECT_ID, dim, HOSTILE_MARKUP)
    async with app.run_test(size=(120, 30)) as pilot:
        app.choose_project(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)
        await pilot.pause()
        total = 0
        for key in ("1", "2", "4"):
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
            text = "\n".join(screen_lines(app))
            assert "[@click=app.quit]" in text, f"screen {key}: markup not shown literally"
            assert "\x1b" not in text
            total += await click_hostile_text(pilot, app, "[@click=app.quit]")
            # A click on a table row selects it (the editor may open): that
            # is the row's own behaviour, not an action from the text.
            await pilot.press("escape")
            await pilot.pause()
        assert total > 0
        # The hostile ANSI name arrives with its escapes replaced, never raw.
        await pilot.press("2")
        await pilot.pause()
        assert clean(HOSTILE_ANSI) in "\n".join(screen_lines(app))
        assert app.is_running


async def test_hostile_error_message_is_literal(make_snap_app: Callable[..., BottuiApp]) -> None:
    app = make_snap_app(hostile=True)
    backend = app.backend  # type: ignore[attr-defined]
    backend.faults.configure(fail_next=9, error_status=500)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await pilot.press("2")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("o")  # enable the selected limiter (rl-api is OFF)
        await pilot.pause()
        await pilot.press("tab", "enter")  # confirm explicitly
        await app.workers.wait_for_complete()
        await pilot.pause(1.0)  # the toast slides in
        toasts = "\n".join(screen_lines(app))
        assert clean(HOSTILE_ERROR_MESSAGE) in toasts
        await click_hostile_text(pilot, app, "[@click=app.quit]")
        await pilot.press("e")
        await pilot.pause()
        modal = "\n".join(screen_lines(app))
        assert clean(HOSTILE_ERROR_MESSAGE) in modal
        assert "500" in modal
        await click_hostile_text(pilot, app, "[@click=app.quit]")
        assert app.is_running
