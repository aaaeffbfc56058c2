"""``/`` filters the Projects, Rate limiters and Thresholds tables (#14, item 11).

Typing narrows a table to the rows whose visible text holds what was typed
(any case); Enter keeps the filter (shown above the table); Esc clears it and
every row is back. Filtering a big table makes no cell again: the rows kept
get back the cells they had.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input, Static

from bottui.tui.app import BottuiApp
from bottui.tui.screens.projects import ProjectTable
from bottui.tui.widgets.entry_table import EntryTable, FilterBar
from bottui.tui.widgets.limiter_table import LimiterTable
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle
from tests.tui.test_table_scale import add_limiters, settle_tables

Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]


def shown_ids(app: BottuiApp) -> list[str]:
    return [entry.id for entry in app.screen.query_one(LimiterTable).entries]


def count_text(app: BottuiApp) -> str:
    return plain(app.screen.query_one("#table-filter-count", Static))


async def test_filter_narrows_and_escape_restores(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        every = shown_ids(flow_app)
        assert len(every) > 2
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(flow_app.focused, Input) and flow_app.focused.id == "table-filter"
        await pilot.press(*"LOGIN")  # any case
        await pilot.pause()
        assert shown_ids(flow_app) == ["rl-login"]
        assert count_text(flow_app).startswith(f"1 of {len(every)} shown")
        await pilot.press("enter")  # kept, focus back on the table
        await pilot.pause()
        assert isinstance(flow_app.focused, LimiterTable)
        bar = flow_app.screen.query_one(FilterBar)
        assert bar.display and bar.input.value == "LOGIN"
        assert shown_ids(flow_app) == ["rl-login"]
        await pilot.press("escape")
        await pilot.pause()
        assert shown_ids(flow_app) == every
        assert not bar.display


async def test_escape_in_the_field_clears_and_nothing_matches_says_so(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        every = shown_ids(flow_app)
        await pilot.press("slash", *"no-such-limiter")
        await pilot.pause()
        assert shown_ids(flow_app) == []
        assert count_text(flow_app).startswith(f"0 of {len(every)} shown")
        await pilot.press("escape")
        await pilot.pause()
        assert shown_ids(flow_app) == every
        assert isinstance(flow_app.focused, LimiterTable)


async def test_projects_and_thresholds_filter_too(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        table = flow_app.screen.query_one(ProjectTable)
        total = len(table.entries)
        await pilot.press("slash", *"stag")
        await pilot.pause()
        assert [row.project for row in table.entries] == ["shop-staging"]
        assert len(table.all_entries) == total
        await pilot.press("escape")
        await pilot.pause()
        assert len(table.entries) == total
        await pilot.press("4")
        await settle(pilot)
        dimensions = flow_app.screen.query_one("#dimensions", EntryTable)
        every = [entry.id for entry in dimensions.entries]
        assert len(every) > 1
        await pilot.press("slash", *every[1])
        await pilot.pause()
        assert [entry.id for entry in dimensions.entries] == [every[1]]
        await pilot.press("escape")
        await pilot.pause()
        assert [entry.id for entry in dimensions.entries] == every


@pytest.mark.parametrize("count", [500])
async def test_filtering_a_big_table_makes_no_cell_again(
    make_snap_app: MakeApp, count: int
) -> None:
    app = make_snap_app()
    add_limiters(app.session, count)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        table = app.screen.query_one(LimiterTable)
        assert len(table.entries) > count
        made = table.cells_made
        await pilot.press("slash", *"rl-bulk-01")
        await pilot.pause()
        assert [entry.id for entry in table.entries] == [f"rl-bulk-01{i:02d}" for i in range(100)]
        await pilot.press("escape")
        await settle_tables(pilot)
        assert len(table.entries) > count
        assert table.cells_made == made  # every row's cells and widths were kept
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        row = table.get_row(table.entries[-1].id)
        assert row and row[1].plain  # the rows added again show their cells


async def test_keys_typed_right_after_slash_reach_the_field(flow_app: BottuiApp) -> None:
    """A burst ("/sta" in one read, over SSH) filters; ``t`` is not the project token key."""
    from textual import events

    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        for key, char in (("slash", "/"), ("s", "s"), ("t", "t"), ("a", "a")):
            flow_app.post_message(events.Key(key, char))
        await settle(pilot)
        table = flow_app.screen.query_one(ProjectTable)
        assert flow_app.screen.query_one(FilterBar).input.value == "sta"
        assert [row.project for row in table.entries] == ["shop-staging"]
