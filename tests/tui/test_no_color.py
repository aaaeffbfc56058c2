"""Readable without colour (issue #14, item 7): NO_COLOR, every theme's focus.

States are told by words and attributes, colour only helps: under NO_COLOR
(Textual greys every colour, ``textual.filter.Monochrome``) no word may sink
into its background, and in every built-in theme the focused widget differs
from an unfocused one by an attribute (bold, underline, reverse), not only a
colour. Snapshots show each main screen at NO_COLOR.

The cells are read as ``App.export_screenshot`` reads them (the compositor's
full update), so what is checked is what the snapshots and the terminal show.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from rich.console import Console
from rich.style import Style
from textual.color import Color
from textual.containers import Vertical
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input

from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle, until
from tests.tui.test_journal import changes, steady, to_journal, unfinished

__all__ = ["steady"]  # a fixture, used by name

MakeApp = Callable[..., BottuiApp]
Snap = Callable[..., bool]
Cell = tuple[str, Style]
#: Themes where a colour-only state was seen to vanish (dark and light, NO_COLOR).
NO_COLOR_THEMES = ("textual-dark", "textual-light", "nord", "solarized-light")
#: Below this contrast ratio (WCAG's for large text and UI parts) a word is unreadable.
MIN_CONTRAST = 3.0


@pytest.fixture
def no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_COLOR for the app created after it (Textual reads it in ``App.__init__``)."""
    monkeypatch.setenv("NO_COLOR", "1")


def cells(app: BottuiApp) -> list[list[Cell]]:
    """The screen, one (character, style) per cell, as a screenshot is made."""
    console = Console(
        width=app.size.width,
        height=app.size.height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(
        app.screen._compositor.render_update(
            full=True, screen_stack=app._background_screens, simplify=True
        )
    )
    rows: list[list[Cell]] = [[]]
    for segment in console._record_buffer:
        if segment.control:  # cursor moves (ANSI themes): no cell
            continue
        if segment.text == "\n":
            rows.append([])
            continue
        rows[-1] += [(char, segment.style or Style()) for char in segment.text]
    return rows


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(style: Style) -> float | None:
    """The WCAG contrast ratio of a cell's text on its background (None: not known)."""
    if style.color is None or style.bgcolor is None:
        return None
    fg, bg = Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor)
    high, low = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def unreadable(app: BottuiApp, region: Region | None = None) -> set[str]:
    """The words on screen (or in ``region``) whose letters sink into their background."""
    found = set()
    area = region or Region(0, 0, app.size.width, app.size.height)
    for row in cells(app)[area.y : area.bottom]:
        word = ""
        for char, style in [*row[area.x : area.right], (" ", Style())]:
            ratio = contrast(style) if char.isalnum() else None
            if ratio is not None and ratio < MIN_CONTRAST:
                word += char
            elif word:
                found.add(word)
                word = ""
    return found


def attributes(style: Style) -> tuple[bool, ...]:
    """What a style shows without colour."""
    return (bool(style.bold), bool(style.underline), bool(style.reverse), bool(style.italic))


def looks(app: BottuiApp, widget: Widget) -> set[tuple[bool, ...]]:
    """The attribute sets of the letters drawn in ``widget``'s region."""
    region = widget.region
    shown = set()
    for row in cells(app)[region.y : region.bottom]:
        for char, style in row[region.x : region.right]:
            if char.isalnum():
                shown.add(attributes(style))
    return shown


# -- NO_COLOR: no word sinks into its background ----------------------------------------


@pytest.mark.parametrize("theme", NO_COLOR_THEMES)
async def test_every_main_screen_is_readable_at_no_color(
    no_color: None, make_snap_app: MakeApp, theme: str
) -> None:
    app = make_snap_app(theme=theme)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        assert app.no_color
        for key in "12345":
            await pilot.press(key)
            await settle(pilot)
            assert unreadable(app) == set(), (theme, key)
        await pilot.press("2", "t")  # a confirmation dialog over the table
        await until(lambda: isinstance(app.screen, ConfirmDialog), pilot)
        # The screen behind a dialog is faded on purpose: the dialog's box is read.
        box = app.screen.query_one(Vertical).region
        assert unreadable(app, box) == set(), (theme, "confirm")


async def test_limiter_states_keep_their_words_and_attributes_at_no_color(
    no_color: None, make_snap_app: MakeApp
) -> None:
    from bottui.tui.widgets.limiter_table import state_text

    for state, word in ((True, "ON"), (False, "OFF"), (None, "?")):
        text = state_text(state)
        assert text.plain == word
        style = Style.parse(str(text.style))
        assert style.color is None and style.bold  # no colour to grey out
    assert Style.parse(str(state_text(None).style)).underline  # unknown stands apart


# -- focus: an attribute, in every built-in theme ---------------------------------------


async def test_focus_is_told_by_an_attribute_in_every_theme(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        themes = sorted(app.available_themes)
        assert {"nord", "solarized-light", "textual-dark"} <= set(themes)
        for theme in themes:
            app.theme = theme
            await pilot.pause()
            await _table_cursor(pilot, theme)
            await _button_and_field(pilot, theme)


async def _table_cursor(pilot: Pilot[Any], theme: str) -> None:
    """The focused table's cursor row against its other rows, then unfocused."""
    app: BottuiApp = pilot.app  # type: ignore[assignment]
    table = app.screen.query_one(DataTable)
    assert app.focused is table
    y = table.region.y + 1 + table.cursor_row  # below the header
    row = cells(app)[y][table.region.x : table.region.right]
    other = cells(app)[y + 1][table.region.x : table.region.right]
    cursor = {attributes(s) for c, s in row if c.isalnum()}
    plain_row = {attributes(s) for c, s in other if c.isalnum()}
    assert all(a[1] for a in cursor) and not any(a[1] for a in plain_row), theme


async def _button_and_field(pilot: Pilot[Any], theme: str) -> None:
    """Cancel focused, then the confirm button, then the reason field."""
    app: BottuiApp = pilot.app  # type: ignore[assignment]
    await pilot.press("t")
    await pilot.pause()
    dialog = app.screen
    assert isinstance(dialog, ConfirmDialog)
    cancel = dialog.query_one("#cancel", Button)
    reason = dialog.query_one("#reason", Input)
    reason.value = "incident 42"
    await pilot.pause()
    assert app.focused is cancel
    cancel_focused, reason_blurred = looks(app, cancel), looks(app, reason)
    reason.focus()
    await pilot.pause()
    assert looks(app, cancel) != cancel_focused, theme
    assert looks(app, reason) != reason_blurred, theme
    await pilot.press("escape")
    await pilot.pause()
    assert not isinstance(app.screen, ConfirmDialog)


# -- snapshots at NO_COLOR --------------------------------------------------------------


@pytest.mark.parametrize("screen", ["projects", "limiters", "thresholds"])
def test_snapshot_no_color(
    no_color: None, snap_compare: Snap, make_snap_app: MakeApp, screen: str
) -> None:
    assert snap_compare(make_snap_app(start_mode=screen), terminal_size=SNAP_SIZE)


def test_snapshot_no_color_confirmation(
    no_color: None, snap_compare: Snap, make_snap_app: MakeApp
) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("t")
        await pilot.pause()

    app = make_snap_app(start_mode="limiters")
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_no_color_revocation(
    no_color: None, snap_compare: Snap, make_snap_app: MakeApp
) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        from tests.tui.test_grants import fill, submit_and_confirm, to_grants

        await to_grants(pilot)
        await fill(pilot, visitor="vis_7Hq2kP9xLm")
        await submit_and_confirm(pilot)
        assert unreadable(pilot.app) == set()  # type: ignore[arg-type]

    app = make_snap_app(start_mode="grants")
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_no_color_journal(
    no_color: None, snap_compare: Snap, make_snap_app: MakeApp, steady: None
) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        # Outcomes of every group: ok, withdrawn, api-error, and an unfinished entry.
        await settle(pilot)
        await changes(pilot.app)  # type: ignore[arg-type]
        unfinished(pilot.app)  # type: ignore[arg-type]
        await to_journal(pilot)
        assert unreadable(pilot.app) == set()  # type: ignore[arg-type]

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)
