"""A table drawn before its idle shows whole cells (MeasuredTable: the playbook plan under load)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip

from bottui.tui.perf.textual_private import MeasuredTable


class OneTable(App[None]):
    CSS = "#plan { height: 4; }"

    def compose(self) -> ComposeResult:
        yield MeasuredTable(id="plan")


def first_row(strips: list[Strip]) -> str:
    return "".join(segment.text for segment in strips[1])


async def test_rows_drawn_before_the_tables_idle_have_their_width() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 6)) as pilot:
        table = app.query_one(MeasuredTable)
        table.add_column("Target", key="target")
        await pilot.pause()
        # Added and drawn with no await between: the table's idle has not come,
        # as when a worker adds rows and the screen repaints first.
        table.add_row("limiter rl-search")
        assert "limiter rl-search" in first_row(table.render_lines(Region(0, 0, 80, 2)))
        await pilot.pause()
        # Drawn again after its idle: the same, not a copy cached cut.
        assert "limiter rl-search" in first_row(table.render_lines(Region(0, 0, 80, 2)))
