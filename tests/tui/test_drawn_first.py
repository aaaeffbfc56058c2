"""A first page is drawn before the work that follows it starts (#12).

The rest of a long list (its read in the store's thread) and the measuring of
its rows used to start on the screen's ``call_after_refresh``, which can run
before the frame showing the first page, and then competed with that frame
for the GIL (the Rate limiters' first frame at 4,000 rows was 1.5x the one
at 4). They now wait for the table's own lines to be drawn, or a timeout
when the table is never drawn (hidden, its screen left).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult

from bottui.store.inventory.inventory_records import LimiterEntry
from bottui.tui.widgets.limiter_table import LimiterTable
from tests.tui.conftest import SNAP_SIZE
from tests.tui.test_table_scale import settle_tables


class Shown(App[None]):
    def compose(self) -> ComposeResult:
        yield LimiterTable()


def limiters(count: int) -> list[LimiterEntry]:
    return [
        LimiterEntry("a", "p", f"rl-{i:04d}", f"L{i}", i % 2 == 0, "2026-11-21T03:00:00Z", "file")
        for i in range(count)
    ]


async def test_work_after_a_first_page_waits_for_the_frame_that_shows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn: list[int] = []
    render_lines = LimiterTable.render_lines

    def counted(self: LimiterTable, crop: Any) -> Any:
        lines = render_lines(self, crop)
        drawn.append(self.row_count)
        return lines

    monkeypatch.setattr(LimiterTable, "render_lines", counted)
    measured: list[list[int]] = []
    measure = LimiterTable._measure

    def spied(self: LimiterTable, count: int) -> None:
        measured.append(list(drawn))
        measure(self, count)

    app = Shown()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        table = app.query_one(LimiterTable)
        await pilot.pause()
        drawn.clear()
        monkeypatch.setattr(LimiterTable, "_measure", spied)
        table.show(limiters(100))  # a first page: a screenful measured now, the rest later
        started: list[list[int]] = []
        table.call_after_drawn(lambda: started.append(list(drawn)))
        await settle_tables(pilot)
        # The rest's read (here a callback) and the measuring batches began
        # once the page's rows had been drawn, not on the screen's next idle.
        assert started and 100 in started[0]
        assert len(measured) >= 2
        assert measured[0] == []  # the screenful, before the first frame
        assert all(100 in seen for seen in measured[1:])


class Hidden(App[None]):
    def compose(self) -> ComposeResult:
        table = LimiterTable()
        table.display = False
        yield table


async def test_work_waiting_for_a_table_never_drawn_runs_after_a_while() -> None:
    app = Hidden()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        table = app.query_one(LimiterTable)
        ran: list[bool] = []
        table.call_after_drawn(lambda: ran.append(True))
        await pilot.pause()
        assert not ran
        await pilot.pause(LimiterTable.DRAWN_TIMEOUT + 0.3)
        assert ran == [True]
        # Once only, even when the table is drawn later.
        table.display = True
        table.show(limiters(1))
        await pilot.pause()
        await pilot.pause()
        assert ran == [True]
