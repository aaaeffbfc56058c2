"""Dry run stays visible (#14, item 5): the header badge, the curl unwrapped, ``c`` copies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN
from bottui.tui.app import BottuiApp
from bottui.tui.screens.dialogs import DryRunDialog, copied_words
from bottui.tui.ui_rules import ContextBar
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle
from tests.tui.test_bulk import open_bulk, paste

MakeApp = Callable[..., BottuiApp]
Snap = Callable[..., bool]


def badge(app: BottuiApp) -> bool:
    """True when the current screen's header shows the DRY RUN badge."""
    bar = app.screen.query_one(ContextBar)
    return any(flag.plain.strip() == "DRY RUN" for flag in bar.flags())


def tokens_of(app: BottuiApp) -> list[str]:
    """Every token of the demo session (none may reach a dry run's text)."""
    return [DEMO_ACCESS_TOKEN, "prj_demo", "pat_demo"]


async def dry_run_of_a_toggle(pilot: Pilot[Any]) -> DryRunDialog:
    await settle(pilot)
    await pilot.press("D", "t")  # rl-api, the first row
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, DryRunDialog)
    return dialog


def test_copied_words_say_how_much_and_how_it_starts() -> None:
    assert copied_words("curl -X PATCH x") == "copied 15 characters: curl -X PATCH x"
    words = copied_words("curl " + "a" * 300 + "\ncurl b")
    assert words.startswith("copied 312 characters, 2 curl commands, one per line: curl aaa")
    assert words.endswith("…") and len(words) < 200


async def test_the_badge_lasts_on_every_screen_until_dry_run_is_off(
    make_snap_app: MakeApp,
) -> None:
    app = make_snap_app()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        assert not badge(app)
        await pilot.press("D")
        await pilot.pause()
        assert badge(app)
        app.clear_notifications()  # the toast gone, the badge stays
        for key in "13452":
            await pilot.press(key)
            await settle(pilot)
            assert badge(app), key
        await pilot.press("D")
        await pilot.pause()
        assert not badge(app)
        await pilot.press("1")
        await settle(pilot)
        assert not badge(app)


async def test_c_copies_the_curl_and_says_what_was_sent(make_snap_app: MakeApp) -> None:
    app = make_snap_app()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await dry_run_of_a_toggle(pilot)
        shown = plain(dialog.query_one("#dry-run", Static))
        curl = next(line for line in shown.splitlines() if line.startswith("curl "))
        await pilot.press("c")
        await pilot.pause()
        assert app.clipboard == curl
        assert '"X-Api-Key: $BOTTUI_API_KEY"' in curl and "/rl-api/active" in curl
        assert not any(token in app.clipboard for token in tokens_of(app))
        notice = next(n for n in app._notifications if "OSC 52" in n.title)
        assert notice.message == f"copied {len(curl)} characters: {curl[:99]}…"
        status = plain(dialog.query_one("#copy-status", Static))
        assert f"{len(curl)} characters, the curl command above" in status
        # The text stays on screen, one line each, wider than the box (it scrolls).
        assert app.screen is dialog and plain(dialog.query_one("#dry-run", Static)) == shown
        box = dialog.query_one("#dry-run-scroll")
        assert dialog.query_one("#dry-run", Static).size.width >= len(curl) > box.size.width
        assert box.max_scroll_x > 0


async def test_the_copy_button_copies_every_curl_of_a_bulk_dry_run(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="grants")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await open_bulk(pilot)
        await paste(pilot, "\n".join(f"vis_dry_{n}" for n in range(3)))
        await pilot.click("#bulk-start")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, DryRunDialog)
        await pilot.click("#copy")
        await pilot.pause()
        copied = app.clipboard.split("\n")
        assert len(copied) == 3 and all(line.startswith("curl ") for line in copied)
        assert [("vis_dry_" + str(n)) in line for n, line in enumerate(copied)] == [True] * 3
        assert "$BOTTUI_ACCESS_TOKEN" in copied[0]
        assert not any(token in app.clipboard for token in tokens_of(app))
        assert "3 curl commands, one per line" in next(
            n.message for n in app._notifications if "OSC 52" in n.title
        )


def test_snapshot_dry_run_badge_and_copied_curl(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await dry_run_of_a_toggle(pilot)
        await pilot.press("c")
        await pilot.pause()
        pilot.app.clear_notifications()  # the dialog itself says what was sent
        await settle(pilot)

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)
