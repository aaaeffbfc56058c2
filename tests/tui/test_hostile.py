"""Hostile text from the server and the inventory stays text on every screen.

Names full of Textual action links, Rich markup, a bare ``[/]``, escape
sequences and bidi overrides: the literal text is on screen (control
characters replaced), clicking it does nothing, nothing crashes, and a
hostile error message is shown literally in the toast and the error modal.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, DataTable, Input
from textual.widgets._toast import Toast  # the toast widget (no public name)

from bottui.plaintext import clean
from bottui.sandbox.demo_data import (
    DEMO_ACCOUNT,
    HOSTILE_ANSI,
    HOSTILE_DIMENSION_IDS,
    HOSTILE_ERROR_MESSAGE,
    HOSTILE_MARKUP,
    HOSTILE_PROJECT_ID,
)
from bottui.tui.app import BottuiApp
from bottui.tui.screens.journal_dialogs import TARGET_CELL
from bottui.tui.ui_rules import KeyBar
from tests.fixtures.stores import inventory_of
from tests.tui.helpers import open_then, until


def screen_lines(app: BottuiApp) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


async def back_to(pilot: Pilot[Any], screen: Any) -> None:
    """Close what a click opened (a row's editor) and wait until ``screen`` is shown again.

    The next click is aimed by what ``screen`` showed: aimed at a dialog that
    is still being laid out (a busy machine) it finds no widget at all.
    """
    if pilot.app.screen is not screen:
        await pilot.press("escape")
        await until(lambda: pilot.app.screen is screen, pilot)


async def click_hostile_text(pilot: Pilot[Any], app: BottuiApp, needle: str) -> int:
    """Click every cell of every line showing ``needle``; return how many clicks."""
    clicks = 0
    screen = app.screen
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
            await back_to(pilot, screen)
    return clicks


async def test_hostile_names_are_literal_and_inert(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app(hostile=True)
    inventory = inventory_of(app.session)
    assert inventory is not None
    for dim in HOSTILE_DIMENSION_IDS:
        inventory.add_dimension(DEMO_ACCOUNT, HOSTILE_PROJECT_ID, dim, HOSTILE_MARKUP)
    async with app.run_test(size=(120, 30)) as pilot:
        app.services.choose_project(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)
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
        await until(lambda: bool(app.screen.query(Toast)), pilot)  # the error's toast
        await pilot.pause()
        toasts = "\n".join(screen_lines(app))
        assert clean(HOSTILE_ERROR_MESSAGE) in toasts
        await click_hostile_text(pilot, app, "[@click=app.quit]")
        await open_then(pilot, "e", "enter")  # the error log, then its newest error
        await pilot.pause()
        modal = "\n".join(screen_lines(app))
        assert clean(HOSTILE_ERROR_MESSAGE) in modal
        assert "500" in modal
        await click_hostile_text(pilot, app, "[@click=app.quit]")
        assert app.is_running


# -- balanced markup in every table ---------------------------------------------------

#: Balanced Rich markup: ``Text.from_markup`` would render it as "x q" (bold, a link).
MARKUP = "[b]x[/b] [@click=app.quit]q[/]"


def _marked(kind: str) -> str:
    return f"{kind} {MARKUP}"


HOSTILE_ACCOUNT = "acct-[b]x[/b]"
HOSTILE_PROJECT = "prj-[@click=app.quit]q[/]"
HOSTILE_LIMITER = "rl-[b]x[/b]"
HOSTILE_DIMENSION = "dim-[i]x[/i]"
HOSTILE_OPERATION = "[b]op[/b]"
HOSTILE_VISITOR = "vis-[b]x[/b] [@click=app.quit]q[/]"

#: Screen key -> the literal texts its table must show, verbatim.
EXPECTED: dict[str, tuple[str, ...]] = {
    "1": (HOSTILE_ACCOUNT, HOSTILE_PROJECT, _marked("project"), _marked("other project")),
    "2": (HOSTILE_LIMITER, _marked("limiter")),
    "3": (HOSTILE_VISITOR,),
    "4": (HOSTILE_DIMENSION, _marked("dimension")),
    # The journal cuts a long target to its column (TARGET_CELL), literally still.
    "5": (
        _marked("operator"),
        HOSTILE_OPERATION,
        HOSTILE_LIMITER,
        f"visitor {HOSTILE_VISITOR}"[: TARGET_CELL - 1] + "…",
    ),
}


def _seed_markup_everywhere(app: BottuiApp) -> None:
    """Markup in the names (and ids) of every kind of row a table shows."""
    from bottui.store.journal.journal_file import Journal

    session = app.session
    inventory = inventory_of(session)
    assert inventory is not None
    account, project = DEMO_ACCOUNT, "shop-prod"
    inventory.add_account(HOSTILE_ACCOUNT, _marked("account"))
    inventory.add_project(HOSTILE_ACCOUNT, HOSTILE_PROJECT, _marked("other project"))
    inventory.add_project(account, project, _marked("project"))
    inventory.add_limiter(account, project, HOSTILE_LIMITER, _marked("limiter"))
    inventory.add_dimension(account, project, HOSTILE_DIMENSION, _marked("dimension"))
    # A row another process (or a teammate) wrote: operator and operation are text too.
    journal = Journal(session.locations.journal_file, operator=_marked("operator"))
    entry = journal.start(
        profile=session.settings.profile_name,
        base_url=session.settings.base_url,
        operation=HOSTILE_OPERATION,
        account=account,
        project=project,
        target={"rate_limiter_id": HOSTILE_LIMITER},
        request_body=None,
    )
    journal.finish(entry, outcome="ok", status=200, duration_ms=3)
    journal.close()


async def _revoke_hostile_visitor(pilot: Pilot[Any], app: BottuiApp) -> None:
    """A revocation of this session: a row of the Grants history and of the journal."""
    from bottui.tui.screens.change_form import ConfirmDialog

    app.screen.query_one("#visitor-id", Input).value = HOSTILE_VISITOR
    await pilot.pause()
    await pilot.click("#revoke")
    await until(lambda: isinstance(app.screen, ConfirmDialog), pilot)
    await pilot.press("tab", "enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


def _tables_text(app: BottuiApp) -> str:
    """What the screen shows inside its tables (a form field may hold the same text)."""
    lines = screen_lines(app)
    shown = []
    for table in app.screen.query(DataTable):
        region = table.region
        assert region.height > 0, f"{table!r} is not shown"
        for y in range(region.y, min(region.bottom, len(lines))):
            shown.append(lines[y][region.x : region.right])
    return "\n".join(shown)


async def _click_each_occurrence(pilot: Pilot[Any], app: BottuiApp, needle: str) -> int:
    """Click the first character and the ``q`` of each line showing ``needle``."""
    clicks = 0
    screen = app.screen
    for y, line in enumerate(screen_lines(app)):
        x = line.find(needle)
        if x < 0:
            continue
        for dx in (0, needle.index("q")):
            widget, _ = app.screen.get_widget_at(x + dx, y)
            if isinstance(widget, Button | KeyBar | Input):
                continue  # real controls, not text
            await pilot.click(offset=(x + dx, y))
            clicks += 1
            assert app.is_running, f"clicking {needle!r} at {(x + dx, y)} ended the app"
            await back_to(pilot, screen)
    return clicks


def _all_shown(app: BottuiApp, literals: tuple[str, ...]) -> bool:
    text = _tables_text(app)
    return all(literal in text for literal in literals)


async def test_markup_in_every_table_is_shown_literally(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    _seed_markup_everywhere(app)
    async with app.run_test(size=(220, 40)) as pilot:
        for key in ("1", "2", "3", "4", "5"):
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
            if key == "3":
                await _revoke_hostile_visitor(pilot, app)
            # The screen's rows come from a worker and a refresh: wait for them (a busy
            # machine read the Grants table before its row was drawn); say which is missing.
            with contextlib.suppress(AssertionError):
                await until(partial(_all_shown, app, EXPECTED[key]), pilot)
            text = _tables_text(app)
            for literal in EXPECTED[key]:
                assert literal in text, f"screen {key}: {literal!r} not in a table verbatim"
            assert await _click_each_occurrence(pilot, app, "[@click=app.quit]q[/]") > 0, key
            await pilot.press("escape")  # a click on a row may open its editor
            await pilot.pause()
            assert app.is_running, f"screen {key}: a click on the text ended the app"
