"""Multi-line error details are shown as lines, in the toast and in the error dialog.

``report_error`` used ``clean()`` without keeping newlines, so every line
break of a detail became U+FFFD in the toast. Other control characters
(carriage return, ESC) are still replaced.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.geometry import Region
from textual.widgets import Static
from textual.widgets._toast import Toast

from bottui.api.errors import BottuiError
from bottui.plaintext import REPLACEMENT
from bottui.tui.app import BottuiApp
from bottui.tui.screens.dialogs import ErrorDialog
from tests.tui.helpers import open_then, plain, settle, until

DETAILS = "the journal could not be written:\ndisk full\rretry\x1b[2J later"


def _toast_lines(app: BottuiApp) -> list[str]:
    (toast,) = app.screen.query(Toast)
    width, height = toast.outer_size
    return [strip.text.strip(" ▌") for strip in toast.render_lines(Region(0, 0, width, height))]


async def test_a_multi_line_detail_is_toasted_as_lines(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        app.services.report(BottuiError("Not saved", DETAILS))
        await settle(pilot)
        (note,) = [n for n in app._notifications if n.severity == "error"]
        assert note.message.splitlines()[0] == "the journal could not be written:"
        lines = _toast_lines(app)
        assert "the journal could not be written:" in lines, lines
        # The second line is a line of its own; \r and ESC are still replaced.
        expected = f"disk full{REPLACEMENT}retry{REPLACEMENT}[2J later"
        assert any(line.startswith(expected[:20]) for line in lines), lines
        assert not any(line.startswith(f"written:{REPLACEMENT}") for line in lines)
        assert f":{REPLACEMENT}disk" not in note.message

        # The whole error (e) shows the same lines.
        await open_then(pilot, "e", "enter")  # the error log, then its newest error
        await until(lambda: isinstance(app.screen, ErrorDialog), pilot)
        shown = plain(app.screen.query_one("#error-details", Static))
        assert shown.splitlines() == ["the journal could not be written:", expected]


async def test_an_unexpected_error_keeps_its_lines_too(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        app.services.report(RuntimeError("first\nsecond\x1b]0;t\x07"))
        await settle(pilot)
        lines = _toast_lines(app)
        assert "RuntimeError: first" in lines, lines
        assert f"second{REPLACEMENT}]0;t{REPLACEMENT}" in lines, lines
