"""API errors: a toast by default, the whole error object in a modal on demand (``e``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from bottui.tui.app import BottuiApp
from bottui.tui.screens.dialogs import ErrorDialog
from tests.tui.helpers import open_then, until


async def _fail_a_change(pilot: Pilot[Any]) -> None:
    app = pilot.app
    await pilot.press("2")
    await app.workers.wait_for_complete()
    await pilot.pause()
    await open_then(pilot, "o", "tab", "enter")  # enable rl-api, confirmed explicitly
    await app.workers.wait_for_complete()
    await pilot.pause()


def test_snapshot_api_error_modal(
    snap_compare: Any, make_snap_app: Callable[..., BottuiApp]
) -> None:
    app = make_snap_app()
    app.backend.faults.configure(fail_next=9, error_status=500)  # type: ignore[attr-defined]

    async def run_before(pilot: Pilot[Any]) -> None:
        await _fail_a_change(pilot)
        await open_then(pilot, "e", "enter")  # the error log, then its newest error
        await until(lambda: isinstance(pilot.app.screen, ErrorDialog), pilot)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


async def test_error_modal_holds_the_whole_error_object(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    app.backend.faults.configure(fail_next=9, error_status=500)  # type: ignore[attr-defined]
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await _fail_a_change(pilot)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and "press e for details" in errors[0].message
        await open_then(pilot, "e", "enter")  # the error log, then its newest error
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ErrorDialog)
        for key in ("status", "message", "code", "type", "context"):
            assert dialog.query(f".error-{key}"), key
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ErrorDialog)
