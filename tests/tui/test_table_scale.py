"""Big tables stay linear: rows added at once, cells made when drawn, nothing redone (#12).

The Projects screen used to update both token cells of every row with
``update_width=True``; Textual re-measures the whole column for each such
cell that got narrower ("checking…" -> "stored"), so 5,000 projects took
minutes. Both tables then rebuilt every row whenever their screen was shown
again, and later built every row with ``add_row`` (~0.2 ms each) in chunks
that held up PageDown. These tests count what the tables and screens do
while the real screens, stores and keyring drive 500 rows: cells made, rows
added with ``add_row``, columns re-measured, records read from the store.
The counts must follow what is drawn or changed, not the rows (no timing
here: ``tests/bench/tui_tables.py`` measures the time).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from bottui.api.tokens import ProjectToken
from bottui.ops.inventory_reads import FIRST_PAGE
from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.store.inventory.inventory_records import (
    InventorySnapshot,
    LimiterEntry,
    ProjectEntry,
    Source,
)
from bottui.store.inventory.inventory_store import SqliteInventoryStore
from bottui.store.keyring_tokens import TokenState
from bottui.tui.app import BottuiApp
from bottui.tui.perf import textual_private
from bottui.tui.perf.incremental_table import IncrementalTable, same_cell
from bottui.tui.screens import projects
from bottui.tui.screens.limiters import LimitersScreen
from bottui.tui.screens.projects import CellState, ProjectRow, ProjectsScreen, ProjectTable
from bottui.tui.widgets.entry_table import EntryTable
from bottui.tui.widgets.limiter_table import LimiterTable
from tests.fixtures.stores import inventory_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle

ROWS = 500
NOW = "2026-11-21T03:00:00.000000Z"
#: What the table shows at SNAP_SIZE, and the two rows it measures beyond.
SCREENFUL = SNAP_SIZE[1] + 2


@dataclass
class Calls:
    """What a table asked of its DataTable, and the screens of the store."""

    update_cell: int = 0
    #: ``update_cell(..., update_width=True)``: each may re-measure a whole column.
    width: int = 0
    add_row: int = 0
    #: Rows whose cells were made (when drawn, measured or changed).
    cells: int = 0
    #: Columns re-measured from every row's kept widths.
    remeasure: int = 0
    #: Records the store's list of the table's rows (projects or limiters) returned.
    read: int = 0
    #: The view each row's cells were made for, in order (what ``cells`` counts).
    views: list[Any] = field(default_factory=list, compare=False)

    def reset(self) -> None:
        self.update_cell = self.width = self.add_row = 0
        self.cells = self.remeasure = self.read = 0
        self.views.clear()


def spy_on(monkeypatch: pytest.MonkeyPatch, table: type[IncrementalTable[Any, Any]]) -> Calls:
    """Count what ``table``'s instances ask of the DataTable, and the store's list reads."""
    calls = Calls()
    update_cell, add_row = table.update_cell, table.add_row
    new_cells, column_width = table._new_cells, table._column_width

    def counted_update(
        self: EntryTable[Any], row: Any, column: Any, value: Any, *, update_width: bool = False
    ) -> None:
        calls.update_cell += 1
        calls.width += update_width
        update_cell(self, row, column, value, update_width=update_width)

    def counted_add(self: EntryTable[Any], *cells: Any, **options: Any) -> Any:
        calls.add_row += 1
        return add_row(self, *cells, **options)

    def counted_cells(self: IncrementalTable[Any, Any], view: Any) -> Any:
        calls.cells += 1
        calls.views.append(view)
        return new_cells(self, view)

    def counted_width(self: IncrementalTable[Any, Any], index: int) -> int:
        calls.remeasure += 1
        return column_width(self, index)

    monkeypatch.setattr(table, "update_cell", counted_update)
    monkeypatch.setattr(table, "add_row", counted_add)
    monkeypatch.setattr(table, "_new_cells", counted_cells)
    monkeypatch.setattr(table, "_column_width", counted_width)
    name = "projects" if issubclass(table, ProjectTable) else "limiters"
    read = getattr(SqliteInventoryStore, name)

    async def counted_read(*args: Any, **options: Any) -> Any:
        page = await read(*args, **options)
        calls.read += len(page.items)
        return page

    monkeypatch.setattr(SqliteInventoryStore, name, counted_read)
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
    """Settle: every read shown (a list's rest follows its first page), every row measured."""
    for _ in range(400):
        await settle(pilot)
        busy = any(not worker.is_finished for worker in pilot.app.workers)
        if not busy and not any(t.building for t in pilot.app.screen.query(IncrementalTable)):
            return
    raise AssertionError("the table is still measuring rows")


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
        # No row added with add_row, no cell updated one by one; a row's cells
        # made once per look, never twice for the same one. A row has at most
        # three: "checking…", then its states; in between, the account's
        # personal token alone when the first page's read (which has it) lands
        # after the rest's rows were measured, as on a busy machine. A column
        # re-measured at most once per token column and update, not once per
        # cell (it was 2 x 503 re-measures, each of the whole column).
        assert calls.add_row == 0 and calls.update_cell == 0 and calls.width == 0
        assert max(Counter(calls.views).values()) == 1
        assert calls.cells <= 3 * (ROWS + 3)
        assert calls.remeasure <= 4


async def test_projects_shown_again_are_not_read_again(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_projects(flow_session, ROWS)
    calls = spy_on(monkeypatch, ProjectTable)
    app = BottuiApp(flow_session, demo=True, start_mode="projects")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        calls.reset()
        for _ in range(2):
            await switch(pilot, "2")
            await switch(pilot, "1")
        assert isinstance(app.screen, ProjectsScreen)
        assert app.screen.table.row_count == ROWS + 3
        # The inventory did not change: not one project read, no cell made or touched.
        assert calls == Calls()
        # Another connection changes it (another process, say): read again, one row redone,
        # once: the live look notices it (#27) and the screen shown again reads nothing more.
        inventory = inventory_of(flow_session)
        try:
            inventory.rename_project(DEMO_ACCOUNT, "bulk-0007", "Renamed")
        finally:
            inventory.close()
        live = app.local_live
        assert live is not None
        await live.feed.rounds(2)  # a look after the write: it has been noticed
        await settle_tables(pilot)
        await switch(pilot, "2")
        await switch(pilot, "1")
        # Twice the rows: the table's read, and the project names of every bar, read
        # again by the live look as a teammate's change does; nothing more on showing it.
        assert calls.read == 2 * (ROWS + 3)
        assert calls.cells == 1 and calls.add_row == 0
        assert cell(app.screen.table, project_key("bulk-0007"), "name") == "Renamed"


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
        assert table.selected is not None and table.selected.project == ids[7]
        # The old and the new current project's rows, and nothing read.
        assert calls.cells == 2 and calls.add_row == 0 and calls.read == 0


async def test_the_first_frame_reads_a_page_and_makes_a_screenful_of_cells(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_projects(flow_session, ROWS)  # "bulk-…" sort first: the current shop-prod is near the end
    calls = spy_on(monkeypatch, ProjectTable)
    first: list[tuple[int, int, int]] = []
    show = ProjectTable.show

    def spied_show(self: ProjectTable, rows: Any, **options: Any) -> None:
        show(self, rows, **options)
        if not first:
            first.append((len(rows), calls.read, calls.cells))

    monkeypatch.setattr(ProjectTable, "show", spied_show)
    app = BottuiApp(flow_session, demo=True, start_mode="projects")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        # What the screen can show, not the 503 rows: a first page read, a
        # screenful of cells made (the rest is measured after the first frame).
        shown, read, made = first[0]
        assert shown == read == FIRST_PAGE
        assert 0 < made <= SCREENFUL
        table = app.screen.query_one(ProjectTable)
        assert table.row_count == ROWS + 3 and calls.add_row == 0
        # The cursor went to the current project once the rest was there.
        assert table.selected is not None and table.selected.project == "shop-prod"
        assert table.show_cursor


def operator_moves_meanwhile(
    app: BottuiApp, monkeypatch: pytest.MonkeyPatch, *keys: str
) -> list[str | None]:
    """Press ``keys`` on the first page, as the next read of every project begins.

    That read is the first page's rest, or a whole re-read begun meanwhile
    (start-up broadcasts an inventory change): either way, before any row
    after the first page is shown. Returns the reads seen ("rest" or "whole").
    """
    read_all = projects.read_all_projects
    reads: list[str | None] = []

    async def spied_read(session: Session, *args: Any, **options: Any) -> Any:
        screen = app.screen
        reads.append("rest" if options.get("after") is not None else "whole")
        if len(reads) == 1 and isinstance(screen, ProjectsScreen):
            table = screen.table
            assert table.row_count == FIRST_PAGE
            assert table.selected is not None and table.selected.project == "bulk-0000"
            for key in keys:
                getattr(table, f"action_cursor_{key}")()
        return await read_all(session, *args, **options)

    monkeypatch.setattr(projects, "read_all_projects", spied_read)
    return reads


async def test_the_cursor_moved_meanwhile_stays(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_projects(flow_session, ROWS)
    app = BottuiApp(flow_session, demo=True, start_mode="projects")
    reads = operator_moves_meanwhile(app, monkeypatch, "down")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        table = app.screen.query_one(ProjectTable)
        assert reads
        assert table.row_count == ROWS + 3
        assert table.selected is not None and table.selected.project == "bulk-0001"


async def test_the_cursor_moved_and_back_meanwhile_stays(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Down then Up: the cursor is where the first page put it, but the operator
    # chose that row; the jump to the current project must not follow.
    add_projects(flow_session, ROWS)
    app = BottuiApp(flow_session, demo=True, start_mode="projects")
    reads = operator_moves_meanwhile(app, monkeypatch, "down", "up")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        table = app.screen.query_one(ProjectTable)
        assert reads
        assert table.row_count == ROWS + 3
        assert table.selected is not None and table.selected.project == "bulk-0000"


async def test_a_rest_read_overtaken_by_a_newer_read_never_starts(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The inventory changes after the first page is shown, before its rest is
    # read (the start-up's own re-read did this): the newer read of every
    # project is the one shown; the older rest, read later, would be shown
    # over it and put the cursor back under the operator's feet.
    add_projects(flow_session, ROWS)
    app = BottuiApp(flow_session, demo=True, start_mode="projects")
    reads = operator_moves_meanwhile(app, monkeypatch, "down")
    show_read = ProjectsScreen._show_read

    def spied_show(self: ProjectsScreen, found: Any) -> None:
        show_read(self, found)
        if found.after is not None:
            self.refresh_data()  # as an InventoryChanged would, before the rest starts

    monkeypatch.setattr(ProjectsScreen, "_show_read", spied_show)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        table = app.screen.query_one(ProjectTable)
        assert "rest" not in reads
        assert table.row_count == ROWS + 3
        assert table.selected is not None and table.selected.project == "bulk-0001"


# -- the Rate limiters screen --------------------------------------------------------


async def test_switching_back_to_limiters_reads_nothing_and_makes_no_cell(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_limiters(flow_session, ROWS)
    calls = spy_on(monkeypatch, LimiterTable)
    first: list[tuple[int, int]] = []
    show = LimiterTable.show

    def spied_show(self: LimiterTable, entries: Any, **options: Any) -> None:
        show(self, entries, **options)
        first.append((len(entries), calls.cells))

    monkeypatch.setattr(LimiterTable, "show", spied_show)
    app = BottuiApp(flow_session, demo=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle_tables(pilot)
        table = app.screen.query_one(LimiterTable)
        assert table.row_count == ROWS + 4
        # The first frame needed a first page and a screenful of cells, not 504.
        assert first[0][0] == FIRST_PAGE and 0 < first[0][1] <= SCREENFUL
        assert calls.add_row == 0
        calls.reset()
        await switch(pilot, "1")
        await switch(pilot, "2")
        assert isinstance(app.screen, LimitersScreen)
        assert calls == Calls()
        # One limiter changed meanwhile (another process, say): that row alone is redone.
        table.move_cursor(row=300, animate=False)
        inventory = inventory_of(flow_session)
        try:
            inventory.set_limiter_state(DEMO_ACCOUNT, "shop-prod", "rl-bulk-0001", True)
        finally:
            inventory.close()
        await switch(pilot, "1")
        await switch(pilot, "2")
        assert cell(table, "rl-bulk-0001", "state") == "ON"
        assert cell(table, "rl-bulk-0001", "source") == "entered"
        assert calls.add_row == 0 and calls.cells == 1
        assert table.row_count == ROWS + 4
        assert table.cursor_row == 300  # read whole and updated in place: the cursor stays


async def test_measuring_after_the_first_frame_never_remeasures_a_column(
    flow_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_limiters(flow_session, ROWS)
    calls = spy_on(monkeypatch, LimiterTable)
    batches: list[int] = []
    app = BottuiApp(flow_session, demo=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        table = app.screen.query_one(LimiterTable)
        measure = table._measure

        def spied_measure(count: int) -> None:
            made = calls.cells
            measure(count)
            batches.append(calls.cells - made)

        monkeypatch.setattr(table, "_measure", spied_measure)
        await settle_tables(pilot)
        assert table.row_count == ROWS + 4
        # Small batches, each its own rows' cells once; widths only ever grow
        # meanwhile: no column measured again from all its rows.
        assert len(batches) >= 2
        assert max(batches) <= max(LimiterTable.MEASURE_ROWS, SCREENFUL)
        assert calls.remeasure == 0 and calls.add_row == 0


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
@pytest.mark.parametrize("lazy", [True, False], ids=["rows-at-once", "add_row"])
async def test_widths_after_updates_in_place_match_a_fresh_table(
    before: Any, after: Any, lazy: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not lazy:  # as on a Textual other than the one tested
        monkeypatch.setattr(textual_private, "installed_is_tested", lambda: False)
    app = TwoTables()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        updated = app.query_one("#updated", ProjectTable)
        fresh = app.query_one("#fresh", ProjectTable)
        await pilot.pause()
        updated.show(ROWS_SHOWN, current=ROWS_SHOWN[0].key, state=before)
        await settle_tables(pilot)
        updated.update_states(after)
        updated.show(ROWS_SHOWN, current=ROWS_SHOWN[2].key, state=after)
        fresh.show(ROWS_SHOWN, current=ROWS_SHOWN[2].key, state=after)
        await settle_tables(pilot)
        assert updated.lazy is fresh.lazy is lazy
        assert [c.content_width for c in updated.columns.values()] == [
            c.content_width for c in fresh.columns.values()
        ]
        for index in range(len(ROWS_SHOWN)):
            pairs = zip(updated.get_row_at(index), fresh.get_row_at(index), strict=True)
            assert all(same_cell(a, b) for a, b in pairs), index
