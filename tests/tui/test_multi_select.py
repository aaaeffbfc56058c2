"""Marking rate limiters and switching them together (#14, item 11).

space marks (it no longer sends anything), ``t`` toggles one limiter, ``*``
marks every row shown; ``o``/``f`` with marks open one confirmation listing
every marked limiter, also those a filter hides (said so), then send one
request each, each journaled, and list each limiter's result honestly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import DryRunDialog
from bottui.tui.screens.limiter_dialogs import MarkedResultsDialog
from bottui.tui.screens.limiters import LimitersScreen
from bottui.tui.widgets.limiter_table import MARK, LimiterTable
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import keys_closing, plain, settle

Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]
SMALL = (80, 24)


def table(app: BottuiApp) -> LimiterTable:
    return app.screen.query_one(LimiterTable)


def mark_cell(app: BottuiApp, limiter_id: str) -> str:
    return table(app).get_row(limiter_id)[0].plain


async def select(pilot: Pilot[Any], limiter_id: str) -> None:
    grid = table(pilot.app)  # type: ignore[arg-type]
    grid.move_cursor(row=grid.get_row_index(limiter_id), animate=False)
    await pilot.pause()


def patched(sandbox: SandboxServer) -> list[tuple[str, Any]]:
    return [(r.segments[-2], r.json) for r in sandbox.state.recorder.log if r.method == "PATCH"]


async def mark(pilot: Pilot[Any], *ids: str) -> None:
    for limiter_id in ids:
        await select(pilot, limiter_id)
        await pilot.press("space")
    await pilot.pause()


# -- marking sends nothing -----------------------------------------------------------


async def test_space_marks_and_moves_on_without_sending(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        ids = [entry.id for entry in table(flow_app).entries]
        await select(pilot, ids[0])
        await pilot.press("space")
        await settle(pilot)
        assert isinstance(flow_app.screen, LimitersScreen)  # no dialog
        assert table(flow_app).marked == {ids[0]}
        assert mark_cell(flow_app, ids[0]) == MARK and mark_cell(flow_app, ids[1]) == " "
        selected = table(flow_app).selected
        assert selected is not None and selected.id == ids[1]  # on to the next row
        hint = plain(flow_app.screen.query_one("#limiters-marks", Static))
        assert hint.startswith(f"{MARK} 1 marked · o or f")
        await select(pilot, ids[0])
        await pilot.press("space")  # again: unmarked
        await settle(pilot)
        assert table(flow_app).marked == set()
        assert mark_cell(flow_app, ids[0]) == " "
        assert not flow_app.screen.query_one("#limiters-marks", Static).display
        assert sandbox.stats.requests == 0


async def test_t_toggles_the_highlighted_limiter(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mark(pilot, "rl-login")
        await select(pilot, "rl-search")
        await pilot.press("t")  # one limiter, marks or not
        await settle(pilot)
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        assert "rl-search" in body and "rl-login" not in body
        await keys_closing(pilot, "tab", "enter")
        assert patched(sandbox) == [("rl-search", {"isActive": True})]


async def test_star_marks_every_row_shown_and_again_unmarks(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"rl-s", "enter")  # rl-search, rl-signup?
        await pilot.pause()
        shown = {entry.id for entry in table(flow_app).entries}
        assert shown and len(shown) < len(table(flow_app).all_entries)
        await pilot.press("asterisk")
        await pilot.pause()
        assert table(flow_app).marked == shown
        await pilot.press("asterisk")
        await pilot.pause()
        assert table(flow_app).marked == set()


# -- one confirmation, one request each ------------------------------------------------


async def test_the_confirmation_lists_marked_rows_the_filter_hides(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mark(pilot, "rl-api", "rl-login")
        await pilot.press("slash", *"login", "enter")
        await pilot.pause()
        assert [entry.id for entry in table(flow_app).entries] == ["rl-login"]
        hint = plain(flow_app.screen.query_one("#limiters-marks", Static))
        assert "2 marked (1 hidden by the filter)" in hint
        await pilot.press("f")
        await settle(pilot)
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert flow_app.focused is not None and flow_app.focused.id == "cancel"
        body = plain(dialog.query_one("#confirm-body", Static))
        assert "Disable 2 rate limiters" in body and "1 of them hidden by the filter" in body
        lines = plain(dialog.query_one("#confirm-list", Static)).splitlines()
        assert len(lines) == 2
        assert lines[0].startswith(f"{MARK} rl-api") and lines[0].endswith("hidden by the filter")
        assert lines[1].startswith(f"{MARK} rl-login") and "hidden" not in lines[1]
        await pilot.press("enter")  # Cancel
        await settle(pilot)
        assert sandbox.stats.requests == 0
        assert table(flow_app).marked == {"rl-api", "rl-login"}


async def test_dry_run_shows_every_request_and_sends_nothing(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mark(pilot, "rl-api", "rl-login")
        await pilot.press("D", "o")
        await settle(pilot)
        dialog = flow_app.screen
        assert isinstance(dialog, DryRunDialog)
        text = plain(dialog.query_one("#dry-run", Static))
        assert "rl-api" in text and "rl-login" in text
        assert sandbox.stats.requests == 0


async def test_each_limiter_is_sent_journaled_and_its_result_listed(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mark(pilot, "rl-api", "rl-login", "rl-search")
        sandbox.faults.configure(fail_next=1, error_status=500)  # the first request fails
        await pilot.press("o")
        await settle(pilot)
        await keys_closing(pilot, "tab", "enter")  # Cancel -> Enable 3
        assert patched(sandbox) == [
            (limiter, {"isActive": True}) for limiter in ("rl-api", "rl-login", "rl-search")
        ]
        dialog = flow_app.screen
        assert isinstance(dialog, MarkedResultsDialog)
        title = plain(dialog.query_one("#results-title", Static))
        assert title == "Enable 3 rate limiters: 2 ok · 1 failed"
        lines = plain(dialog.query_one("#results-list", Static)).splitlines()
        assert lines[0].startswith("FAILED    rl-api") and "500" in lines[0]
        assert lines[1].startswith("OK        rl-login") and "now ON" in lines[1]
        assert lines[2].startswith("OK        rl-search") and "now ON" in lines[2]
        await pilot.press("enter")  # Close
        await settle(pilot)
        # The failed one stays marked, to try again; the others are unmarked.
        assert table(flow_app).marked == {"rl-api"}
        with journal_of(flow_app.session) as journal:
            outcomes = sorted((e.target["rate_limiter_id"], e.outcome) for e in journal.entries())
        assert [limiter for limiter, _ in outcomes] == ["rl-api", "rl-login", "rl-search"]
        assert outcomes[0][1] != "ok" and outcomes[1][1] == outcomes[2][1] == "ok"


async def test_a_request_that_may_have_arrived_is_unknown(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mark(pilot, "rl-api", "rl-login")
        sandbox.faults.configure(fail_next=4, error_status=504)  # every attempt of the first
        await pilot.press("o")
        await settle(pilot)
        await keys_closing(pilot, "tab", "enter")
        dialog = flow_app.screen
        assert isinstance(dialog, MarkedResultsDialog)
        lines = plain(dialog.query_one("#results-list", Static)).splitlines()
        assert lines[0].startswith("UNKNOWN   rl-api"), lines
        assert lines[1].startswith("OK        rl-login")


async def test_read_only_refuses_before_asking(make_snap_app: MakeApp) -> None:
    app = make_snap_app()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mark(pilot, "rl-api")
        app.services.session.settings = _read_only(app.services.session.settings)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, LimitersScreen)
        assert any("Read-only" in (n.title or "") for n in app._notifications)


def _read_only(settings: Any) -> Any:
    from msgspec.structs import replace

    return replace(settings, read_only=True)


# -- snapshots -------------------------------------------------------------------------


def test_snapshot_filter_active(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("slash", *"log")
        await pilot.pause()

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


async def _two_marked(pilot: Pilot[Any]) -> None:
    await mark(pilot, "rl-api", "rl-login")
    await select(pilot, "rl-api")


def test_snapshot_marked_rows(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=_two_marked)


async def _multi_confirmation(pilot: Pilot[Any]) -> None:
    await _two_marked(pilot)
    await pilot.press("slash", *"login", "enter", "f")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConfirmDialog)


def test_snapshot_multi_confirmation(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=_multi_confirmation)


def test_snapshot_multi_confirmation_80x24(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    assert snap_compare(make_snap_app(), terminal_size=SMALL, run_before=_multi_confirmation)


def test_snapshot_multi_results(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        await mark(pilot, "rl-api", "rl-login", "rl-search")
        app.backend.faults.configure(fail_next=1, error_status=500)  # type: ignore[attr-defined]
        await pilot.press("o")
        await settle(pilot)
        await keys_closing(pilot, "tab", "enter")
        assert isinstance(pilot.app.screen, MarkedResultsDialog)

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


async def test_one_marked_row_is_named_in_the_singular(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mark(pilot, "rl-login")
        await pilot.press("f")
        await settle(pilot)
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        assert "Disable 1 rate limiter of project" in body, body
        await pilot.press("escape")
