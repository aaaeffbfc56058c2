"""Every change's confirmation fits 80x24 and 60x20 (#24, item 3).

The decision line (what, before -> after, when it reverts, protected), the
fields and the buttons are always on screen; the other facts scroll above
them. Snapshots at 80x24, in colour and at NO_COLOR, of the limiter (a timed
change on a protected profile), thresholds, undo, bulk and timed dialogs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from msgspec.structs import replace
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Input

from bottui.ops import mutations
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ChangeForm
from bottui.tui.screens.dialogs import HelpDialog
from tests.tui.helpers import settle
from tests.tui.test_journal import steady  # noqa: F401  (a fixture: operator and host)

MakeApp = Callable[..., BottuiApp]
Snap = Callable[..., bool]
Opener = Callable[[Pilot[Any]], Awaitable[None]]

SMALL = (80, 24)
SMALLER = (60, 20)


async def limiter_timed(pilot: Pilot[Any]) -> None:
    """``f`` on rl-login (ON), a reason and 30m typed: the revert is on the decision line."""
    from bottui.tui.widgets.limiter_table import LimiterTable

    await settle(pilot)
    grid = pilot.app.screen.query_one(LimiterTable)
    grid.move_cursor(row=grid.get_row_index("rl-login"), animate=False)
    await pilot.pause()
    await pilot.press("f")
    await settle(pilot)
    await pilot.press(*"INC-4312 stuffing on login", "enter", *"30m", "enter")
    await pilot.pause()


async def thresholds(pilot: Pilot[Any]) -> None:
    from tests.tui.test_thresholds import editor, field, open_editor, retype

    await open_editor(pilot)
    await retype(pilot, field(pilot.app, "block").input, "0.7")  # type: ignore[arg-type]
    await pilot.press("enter")
    await settle(pilot)
    assert editor is not None


async def undo(pilot: Pilot[Any]) -> None:
    app: BottuiApp = pilot.app  # type: ignore[assignment]
    await settle(pilot)
    await mutations.set_limiter(
        app.session, DEMO_ACCOUNT, "shop-prod", "rl-login", False, confirmed=True
    )
    await pilot.press("5")
    await settle(pilot)
    await pilot.press("u")
    await settle(pilot)


async def bulk(pilot: Pilot[Any]) -> None:
    from tests.tui.test_bulk import THREE, open_bulk, paste

    await open_bulk(pilot)
    await paste(pilot, THREE)
    await pilot.click("#bulk-start")
    await settle(pilot)


async def timed_revert_now(pilot: Pilot[Any]) -> None:
    await limiter_timed(pilot)
    app = pilot.app
    dialog = app.screen
    assert isinstance(dialog, ChangeForm)
    dialog.query_one("#typed", Input).value = "shop-prod"
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press("T")
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)


OPENERS: dict[str, tuple[str, Opener]] = {
    "limiter": ("limiters", limiter_timed),
    "thresholds": ("thresholds", thresholds),
    "undo": ("limiters", undo),
    "bulk": ("grants", bulk),
    "timed": ("limiters", timed_revert_now),
}


def protected_app(make_snap_app: MakeApp, mode: str) -> BottuiApp:
    app = make_snap_app(start_mode=mode)
    app.session.settings = replace(app.session.settings, protected=True)
    return app


def on_screen(widget: Widget, size: tuple[int, int]) -> bool:
    """Wholly visible: inside the terminal, and not clipped by its scrolling box."""
    region = widget.region
    width, height = size
    visible = widget.screen.find_widget(widget).region
    return (
        region.height > 0
        and region.bottom <= height
        and region.right <= width
        and visible.height == region.height
    )


@pytest.mark.parametrize("size", [SMALL, SMALLER], ids=["80x24", "60x20"])
@pytest.mark.parametrize("kind", sorted(OPENERS))
async def test_the_decision_fields_and_buttons_are_always_on_screen(
    make_snap_app: MakeApp, kind: str, size: tuple[int, int]
) -> None:
    mode, opener = OPENERS[kind]
    app = protected_app(make_snap_app, mode)
    async with app.run_test(size=size) as pilot:
        await opener(pilot)
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ChangeForm), dialog
        wanted = [dialog.query_one("#decision"), *dialog.query(Input), *dialog.query(Button)]
        wanted = [w for w in wanted if w.display]
        assert dialog.query_one("#decision").display
        hidden = [w.id for w in wanted if not on_screen(w, size)]
        assert hidden == [], f"{kind} at {size}: hidden {hidden}"
        facts = dialog.query_one("#facts")
        # The facts scroll with the keyboard when they do not fit.
        if facts.max_scroll_y:
            await pilot.press("pagedown")
            await pilot.pause()
            assert facts.scroll_y > 0


@pytest.mark.parametrize("size", [SMALL, SMALLER], ids=["80x24", "60x20"])
async def test_help_scrolls_with_the_keyboard(
    make_snap_app: MakeApp, size: tuple[int, int]
) -> None:
    app = make_snap_app(start_mode="limiters")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, HelpDialog)
        rows = dialog.query_one("#help-rows")
        assert rows.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert rows.scroll_y > 0
        await pilot.press("tab", "end")  # from the Close button too
        await pilot.pause()
        assert rows.scroll_y == rows.max_scroll_y
        assert on_screen(dialog.query_one("#close"), size)


@pytest.mark.usefixtures("steady")
@pytest.mark.parametrize("kind", sorted(OPENERS))
def test_snapshot_at_80x24(snap_compare: Snap, make_snap_app: MakeApp, kind: str) -> None:
    mode, opener = OPENERS[kind]
    app = protected_app(make_snap_app, mode)
    assert snap_compare(app, terminal_size=SMALL, run_before=opener)


@pytest.mark.usefixtures("steady")
@pytest.mark.parametrize("kind", sorted(OPENERS))
def test_snapshot_at_80x24_no_color(
    snap_compare: Snap, make_snap_app: MakeApp, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    mode, opener = OPENERS[kind]
    app = protected_app(make_snap_app, mode)
    assert snap_compare(app, terminal_size=SMALL, run_before=opener)


async def test_toasts_never_cover_a_dialogs_fields_or_buttons(make_snap_app: MakeApp) -> None:
    from textual.widgets._toast import Toast

    app = protected_app(make_snap_app, "limiters")
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await limiter_timed(pilot)
        dialog = app.screen
        assert isinstance(dialog, ChangeForm)
        for n in range(3):
            app.notify(f"toast {n}: " + "a long message " * 6, title="Something happened")
        await settle(pilot)
        await pilot.pause()
        shown = [dialog.find_widget(t) for t in dialog.query(Toast)]
        toasts = [g.region.intersection(g.clip) for g in shown]  # what is drawn of each
        assert len(toasts) == 3 and toasts[0].height > 0  # the newest is on screen
        covered = [
            w.id
            for w in [dialog.query_one("#decision"), *dialog.query(Input), *dialog.query(Button)]
            if any(t.overlaps(w.region) for t in toasts)
        ]
        assert covered == []
