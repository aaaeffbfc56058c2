"""Cells drawn without Rich's layout look exactly as DataTable draws them (#12).

A first frame of a long table used to spend most of its time laying out a
screenful of cells with Rich (``Styled(Padding(cell))``), ~0.1-0.2 ms each:
the Rate limiters screen with 4,000 rows was 1.5x the one with 4.
:class:`~bottui.tui.perf.textual_private.QuickCellsTable` makes the same segments
directly. These tests hold it to that: segment by segment against Rich's own
rendering, for hostile and wide text, truncation, styles and widths; and
line by line against Textual's ``_render_cell`` in a running table, with
the cursor and hover on rows.
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.renderables.styled import Styled
from textual.widgets import DataTable

from bottui.store.inventory.inventory_records import LimiterEntry
from bottui.tui.perf import textual_private
from bottui.tui.perf.textual_private import quick_cell_line
from bottui.tui.widgets.limiter_table import LimiterTable
from bottui.tui.widgets.untrusted_text import safe_id_text, safe_text
from tests.tui.conftest import SNAP_SIZE

HOSTILE = [
    "",
    "plain",
    "  leading and trailing  ",
    "[bold]not markup[/] [@click=app.quit]x[/]",
    "\x1b[31mred\x1b[0m\x07bell",
    "日本語のテキストです",
    "e\u0301 combining",
    "🙂 emoji 🙂🙂",
    "zero\u200bwidth",
    "a" * 60,
    "wide 日本語 at the edge",
]


def cells() -> list[Text]:
    made: list[Text] = []
    for value in HOSTILE:
        made += [safe_text(value), safe_id_text(value, style="bold"), safe_text(value, style="")]
        made.append(Text(value, no_wrap=True))
        spanned = Text(value)
        spanned.stylize("underline", 1, 4)
        made.append(spanned)
    made += [Text("ON", style="bold green"), Text("OFF", style="bold red"), Text("?")]
    return made


def rich_line(
    console: Console, cell: Text, width: int, padding: int, pre: Style, post: Style
) -> list[Segment]:
    """What ``DataTable._render_cell`` makes of a cell of a row of height 1."""
    options = console.options.update_dimensions(width, 1).update(no_wrap=True)
    renderable = Styled(Padding(cell, (0, padding)), pre_style=pre, post_style=post)
    lines = console.render_lines(renderable, options)
    assert len(lines) == 1
    return lines[0]


@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize(
    "post", [Style.null(), Style(color="red") + Style(bgcolor="blue")], ids=["no-post", "post"]
)
def test_a_quick_cell_is_rich_s_cell_segment_by_segment(padding: int, post: Style) -> None:
    console = Console(width=100, color_system="truecolor", legacy_windows=False)
    pre = Style(color="#e0e0e0", bgcolor="#1e1e1e") + Style.from_meta({"row": 3, "column": 1})
    quick = 0
    for cell in cells():
        for width in range(1, 40):
            line = quick_cell_line(console, cell, width, padding, console.options, pre, post)
            if line is None:
                continue  # drawn by Rich itself
            quick += 1
            assert line == rich_line(console, cell, width, padding, pre, post), (cell, width)
    # Most cells take the quick way (not everything fell back to Rich).
    assert quick > len(cells()) * 20


def test_cells_rich_must_lay_out_are_left_to_it() -> None:
    console = Console(width=100, legacy_windows=False)
    pre, post, options = Style.null(), Style.null(), console.options

    def quick(cell: Text, width: int = 20) -> list[Segment] | None:
        return quick_cell_line(console, cell, width, 1, options, pre, post)

    assert quick(Text("two\nlines")) is None
    assert quick(Text("a\ttab")) is None
    assert quick(Text("right", justify="right")) is None
    assert quick(Text("ellipsis", overflow="ellipsis")) is None
    assert quick(safe_text("words that wrap in a narrow column"), 12) is None  # wraps
    assert quick(Text("too wide but no wrap", no_wrap=True), 12) is not None


class Limiters(App[None]):
    def compose(self) -> ComposeResult:
        yield LimiterTable()


def limiters(count: int) -> list[LimiterEntry]:
    names = ["Checkout", "[b]x[/]", "日本語の名前", "\x1b[2J", "", "a very long name " * 4]
    return [
        LimiterEntry(
            "acme",
            "shop",
            f"rl-{i:03d}" + ("\u200b" if i % 5 == 0 else ""),
            names[i % len(names)],
            None if i % 7 == 0 else i % 2 == 0,
            "2026-11-21T03:00:00.000000Z",
            "file",
        )
        for i in range(count)
    ]


@pytest.mark.parametrize("hover", [False, True])
async def test_a_table_draws_the_same_lines_as_textual_s_own_cells(hover: bool) -> None:
    app = Limiters()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        table = app.query_one(LimiterTable)
        table.show(limiters(60))
        await pilot.pause()
        table.focus()
        table.move_cursor(row=3, animate=False)
        if hover:
            await pilot.hover(LimiterTable, offset=(5, 6))
        await pilot.pause()
        assert textual_private.quick_cells_as_tested(table)

        def lines() -> list[Any]:
            table._clear_caches()
            return [list(table.render_line(y)) for y in range(table.size.height)]

        calls = 0
        quick = textual_private.quick_cell_line

        def counted(*args: Any) -> Any:
            nonlocal calls
            calls += 1
            return quick(*args)

        textual_private.quick_cell_line = counted  # type: ignore[assignment]
        try:
            drawn_quick = lines()
        finally:
            textual_private.quick_cell_line = quick
        own = DataTable._render_cell
        table._render_cell = lambda *args, **options: own(table, *args, **options)  # type: ignore[method-assign]
        drawn_by_textual = lines()
        assert calls > 0
        assert drawn_quick == drawn_by_textual
