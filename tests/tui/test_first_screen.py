"""Each of the five screens can be the first one the app shows.

``App.run`` (what ``bottui`` and the snapshot tests use) sets asyncio's
``eager_task_factory`` on Python 3.12+, so the first screen composes before
it is on the screen stack; a screen holding an ``Input`` (Grants) then
failed with ``ScreenStackError`` (see ``BottuiApp.clear_selection``).
``run_test`` does not set it, so this test does, as ``App.run`` would. On
3.11 there is no eager start and nothing to guard: the 3.13 CI run is the
one that matters.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from bottui.tui.app import BottuiApp
from bottui.tui.ui_rules import MODE_KEYS


@pytest.mark.parametrize("mode", sorted(MODE_KEYS.values()))
async def test_every_screen_can_be_the_first(
    mode: str, make_snap_app: Callable[..., BottuiApp]
) -> None:
    loop = asyncio.get_running_loop()
    factory = loop.get_task_factory()
    eager = getattr(asyncio, "eager_task_factory", None)
    if eager is not None:
        loop.set_task_factory(eager)
    try:
        app = make_snap_app(start_mode=mode)
        # run_test re-raises an exception the app met (the ScreenStackError).
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert app.current_mode == mode
            assert app.screen is app._screen_stacks[mode][0]
    finally:
        loop.set_task_factory(factory)
