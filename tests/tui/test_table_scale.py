"""Big tables stay linear: no column re-measured per cell, no rows rebuilt for nothing (#12).

The Projects screen used to update both token cells of every row with
``update_width=True``; Textual re-measures the whole column for each such
cell that got narrower ("checking…" -> "stored"), so 5,000 projects took
minutes. And both tables rebuilt every row whenever their screen was shown
again. These tests count what the tables ask of the DataTable while the real
screens, stores and keyring drive 500 rows: the counts must not grow with the
rows (no timing here: ``tests/bench/tui_tables.py`` measures the time).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from bottui.api.tokens import ProjectToken
from bottui.ops.session import Session
from bottui.sandbox.demo import DEMO_ACCOUNT
from bottui.store.inventory_records import InventorySnapshot, LimiterEntry, ProjectEntry, Source
from bottui.store.tokens import TokenState
from bottui.tui.app import BottuiApp
from bottui.tui.screens.limiters import LimitersScreen
from bottui.tui.screens.projects import ProjectsScreen
from bottui.tui.widgets.entry_table import EntryTable
from bottui.tui.widgets.incremental_table import IncrementalTable, same_cell
from bottui.tui.widgets.limiter_table import LimiterTable
from bottui.tui.widgets.project_table import CellState, ProjectRow, ProjectTable
from tests.fixtures.stores import inventory_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle

ROWS = 500
NOW = "2026-11-21T03:00:00.000000Z"


@dataclass
class Calls:
    """What a table asked of its DataTable."""

    update_cell: int = 0
    #: ``update_cell(..., update_width=True)``: each may re-measure a whole column.
    width: int = 0
    add_row: int = 0

    def reset(self) -> None:
        self.update_cell = self.width = self.add_row = 0


def spy_on(monkeypatch: pytest.MonkeyPatch, table: type[EntryTable[Any]]) -> Calls:
    """Count ``update_cell`` and ``add_row`` calls on ``table``'s instances."""
    calls = Calls()
    update_cell, add_row = table.update_cell, table.add_row

    def counted_update(
        self: EntryTable[Any], row: Any, column: Any, value: Any, *, update_width: bool = False
    ) -> None:
        calls.update_cell += 1
        calls.width += update_width
        update_cell(self, row, column, value, update_width=update_width)

    def counted_add(self: EntryTable[Any], *cells: Any, **options: Any) -> Any:
        calls.add_row += 1
        return add_row(self, *cells, **options)

    monkeypatch.setattr(table, "update_cell", counted_update)
    monkeypatch.setattr(table, "add_row", counted_add)
    return calls


def add_projects(session: Session, count: int) -> list[str]:
    """``count`` more projects in the inventory; every other one with a stored token."""
    ids = [f"bulk-{i:04d}" for i in range(count)]
    projects = tuple(
        ProjectEntry(DEMO_ACCOUNT, pid, f"Project {pid}", NOW, Source.IMPORT) for pid in ids
    )
    inventory = inventory_of(session)
    try:
        inventory.import_snapshot(InventorySnapshot(projects=projects))
    finally:
        inventory.close()
    base = session.settings.base_url
    assert base is not None
    for pid in ids[::2]:
        session.tokens.set_project(base, DEMO_ACCOUNT, pid, ProjectToken(f"prj_{pid}_secret"))
    return ids


def add_limiters(session: Session, count: int) -> None:
    """``count`` more limiters in the current project (shop-prod)."""
    limiters = tuple(
        LimiterEntry(
            DEMO_ACCOUNT, "shop-prod", f"rl-bulk-{i:04d}", f"L{i}", i % 2 == 0, NOW, "file"
        )
        for i in range(count)
    )
    inventory = inventory_of(session)
    try:
        inventory.import_snapshot(InventorySnapshot(limiters=limiters))
    finally:
        inventory.close()


async def settle_tables(pilot: Pilot[Any]) -> None:
    """Settle, and let the tables add their rows beyond the first screen (a chunk a frame)."""
    await settle(pilot)
    for _ in range(200):
        if not any(table.building for table in pilot.app.screen.query(IncrementalTable)):
            return
        await pilot.pause()
    raise AssertionError("the table is still adding rows")


async def switch(pilot: Pilot[Any], key: str) -> None:
    await pilot.press(key)
    await settle_tables(pilot)


def cell(table: EntryTable[Any], key: str, column: str) -> str:
    value = table.get_cell(key, column)
    assert isinstance(value, Text)
    return value.plain


def project_key(project: str) -> str:
    return ProjectRow(DEMO_ACCOUNT, project, None).row_key


# -- the Projects screen -------------------------------------------------------------


async def test_token_states_fill_in_without_a_column_remeasure_per_cell(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = add_projects(flow_session, ROWS)
    calls = spy_on(monkeypatch, ProjectTable)
    app = BottuiApp(flow_session, demo=True, start_mode="projects")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        table = app.screen.query_one(ProjectTable)
        assert table.row_count == ROWS + 3
        assert cell(table, project_key(ids[0]), "token") == "stored"
        assert cell(table, project_key(ids[1]), "token") == "missing"
        assert cell(table, project_key(ids[1]), "personal") == "stored"
        # Every token cell went from "checking…" to its state: each updated once at
        # most, and a width asked for at most once per token column and update,
        # not once per cell (it was 2 x 503, each re-measuring the whole column).
        assert calls.update_cell <= 2 * (ROWS + 3) + 4
        assert calls.width <= 4


async def test_projects_shown_again_are_not_rebuilt(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_projects(flow_session, ROWS)
    calls = spy_on(monkeypatch, ProjectTable)
    app = BottuiApp(flow_session, demo=True, start_mode="projects")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        assert calls.add_row == ROWS + 3  # the first visit builds every row once
        calls.reset()
        for _ in range(2):
            await switch(pilot, "2")
            await switch(pilot, "1")
        assert isinstance(app.screen, ProjectsScreen)
        assert app.screen.table.row_count == ROWS + 3
        # Nothing changed: no row built, no cell touched, no width measured.
        assert calls == Calls()


async def test_choosing_a_project_updates_two_rows_in_place(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = add_projects(flow_session, ROWS)
    calls = spy_on(monkeypatch, ProjectTable)
    app = BottuiApp(flow_session, demo=True, start_mode="projects")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        table = app.screen.query_one(ProjectTable)
        table.move_cursor(row=table.get_row_index(project_key(ids[7])), animate=False)
        calls.reset()
        await pilot.press("enter")
        await settle_tables(pilot)
        assert app.current == (DEMO_ACCOUNT, ids[7])
        assert cell(table, project_key(ids[7]), "mark") == "▶"
        assert cell(table, project_key("shop-prod"), "mark") == " "
        assert table.highlighted is not None and table.highlighted.project == ids[7]
        # The old and the new current project: their mark, account, id and name cells.
        assert calls.add_row == 0
        assert calls.update_cell <= 2 * 4 + 4


async def test_the_first_frame_builds_a_screenful_and_the_cursor_waits_for_its_row(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_projects(flow_session, ROWS)  # "bulk-…" sort first: the current shop-prod is near the end
    calls = spy_on(monkeypatch, ProjectTable)
    first: list[tuple[int, Any]] = []
    show = ProjectTable.show

    def spied_show(self: ProjectTable, *args: Any, **options: Any) -> None:
        before = calls.add_row
        show(self, *args, **options)
        if not first:
            first.append((calls.add_row - before, self.highlighted))

    monkeypatch.setattr(ProjectTable, "show", spied_show)
    app = BottuiApp(flow_session, demo=True, start_mode="projects")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        # What the screen can show, not the 503 rows (the rest came a chunk a frame).
        rows_built, highlighted = first[0]
        assert 0 < rows_built <= SNAP_SIZE[1] + 2
        # Meanwhile nothing was highlighted: Enter could not pick the first row instead.
        assert highlighted is None
        table = app.screen.query_one(ProjectTable)
        assert table.row_count == ROWS + 3 and calls.add_row == ROWS + 3
        assert table.highlighted is not None and table.highlighted.project == "shop-prod"
        assert table.show_cursor


# -- the Rate limiters screen --------------------------------------------------------


async def test_switching_back_to_limiters_does_not_rebuild_the_rows(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_limiters(flow_session, ROWS)
    calls = spy_on(monkeypatch, LimiterTable)
    first: list[int] = []
    show = LimiterTable.show

    def spied_show(self: LimiterTable, *args: Any, **options: Any) -> None:
        before = calls.add_row
        show(self, *args, **options)
        first.append(calls.add_row - before)

    monkeypatch.setattr(LimiterTable, "show", spied_show)
    app = BottuiApp(flow_session, demo=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        table = app.screen.query_one(LimiterTable)
        assert table.row_count == ROWS + 4
        # The first frame needed a screenful of rows, not 504.
        assert 0 < first[0] <= SNAP_SIZE[1] + 2
        calls.reset()
        await switch(pilot, "1")
        await switch(pilot, "2")
        assert isinstance(app.screen, LimitersScreen)
        assert calls == Calls()
        # One limiter changed meanwhile (another process, say): that row alone is updated.
        inventory = inventory_of(flow_session)
        try:
            inventory.set_limiter_state(DEMO_ACCOUNT, "shop-prod", "rl-bulk-0001", True)
        finally:
            inventory.close()
        await switch(pilot, "1")
        await switch(pilot, "2")
        assert cell(table, "rl-bulk-0001", "state") == "ON"
        assert cell(table, "rl-bulk-0001", "source") == "entered"
        assert calls.add_row == 0
        assert 0 < calls.update_cell <= len(LimiterTable.COLUMNS) + 2
        assert table.row_count == ROWS + 4


# -- widths after updates in place ---------------------------------------------------


class TwoTables(App[None]):
    """A table updated in place next to one built from scratch."""

    def compose(self) -> ComposeResult:
        yield ProjectTable(id="updated")
        yield ProjectTable(id="fresh")


ROWS_SHOWN = [ProjectRow(DEMO_ACCOUNT, f"p{i}", "n" * (i % 7)) for i in range(40)]


def states(special: dict[int, CellState], default: CellState) -> Any:
    by_slot = {ROWS_SHOWN[i].project_slot: state for i, state in special.items()}
    return lambda slot: by_slot.get(slot, default)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # "from environment" (16) widens the column past its heading, then goes.
        (states({3: TokenState.ENVIRONMENT}, TokenState.STORED), states({}, TokenState.STORED)),
        (states({}, TokenState.MISSING), states({39: TokenState.ENVIRONMENT}, TokenState.STORED)),
        (states({}, "checking"), states({5: None}, TokenState.MISSING)),
    ],
)
async def test_widths_after_updates_in_place_match_a_fresh_table(before: Any, after: Any) -> None:
    app = TwoTables()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        updated = app.query_one("#updated", ProjectTable)
        fresh = app.query_one("#fresh", ProjectTable)
        await pilot.pause()
        updated.show(ROWS_SHOWN, current=ROWS_SHOWN[0].key, state=before)
        await pilot.pause()
        updated.update_states(after)
        updated.show(ROWS_SHOWN, current=ROWS_SHOWN[2].key, state=after)
        fresh.show(ROWS_SHOWN, current=ROWS_SHOWN[2].key, state=after)
        await pilot.pause()
        assert [c.content_width for c in updated.columns.values()] == [
            c.content_width for c in fresh.columns.values()
        ]
        for index in range(len(ROWS_SHOWN)):
            pairs = zip(updated.get_row_at(index), fresh.get_row_at(index), strict=True)
            assert all(same_cell(a, b) for a, b in pairs), index
