"""Timed changes in the TUI (#15): the duration field, the executor, the Timed screen.

Flows run against the loopback sandbox with the session's clock moved by
the test (nothing waits: the executor's round is run with ``tick()``);
the sandbox's own state says whether a revert arrived.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from bottui.demo import prepare
from bottui.ops import timed
from bottui.ops.session import Session
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.dialogs import ConfirmDialog
from bottui.tui.widgets.context_bar import ContextBar
from bottui.tui.widgets.limiter_table import LimiterTable
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle

ACC = "acme"
PROJ = "shop-prod"
Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]


class MovingClock:
    """A clock that stands still until the test moves it."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def move(self, **by: float) -> None:
        self.now += timedelta(**by)


@pytest.fixture
def clock() -> MovingClock:
    return MovingClock()


@pytest.fixture
async def session(
    tmp_path: Path, sandbox: SandboxServer, clock: MovingClock
) -> AsyncIterator[Session]:
    made = prepare(tmp_path / "demo", sandbox.base_url, clock=clock)
    yield made
    await made.aclose()


def active(sandbox: SandboxServer, limiter_id: str) -> bool:
    found = sandbox.state.rate_limiter(ACC, PROJ, limiter_id)
    assert found is not None
    return bool(found.is_active)


def puts(sandbox: SandboxServer, limiter_id: str) -> list[Any]:
    return [
        r.json
        for r in sandbox.state.recorder.log
        if r.method in ("PUT", "PATCH", "POST") and limiter_id in r.segments
    ]


def bar_text(app: BottuiApp) -> str:
    return app.screen.query_one(ContextBar).render().plain


async def switch_for(pilot: Pilot[Any], limiter_id: str, duration: str) -> ConfirmDialog:
    """Highlight ``limiter_id``, press t, type ``duration`` in the confirmation's field."""
    app: BottuiApp = pilot.app  # type: ignore[assignment]
    grid = app.screen.query_one(LimiterTable)
    grid.move_cursor(row=grid.get_row_index(limiter_id), animate=False)
    await pilot.press("t")
    await settle(pilot)
    dialog = app.screen
    assert isinstance(dialog, ConfirmDialog)
    field = dialog.query_one("#duration", Input)
    field.focus()
    field.value = duration
    await pilot.pause()
    return dialog


async def timed_limiter(pilot: Pilot[Any], limiter_id: str, duration: str) -> None:
    dialog = await switch_for(pilot, limiter_id, duration)
    dialog.query_one("#confirm", Button).press()
    await settle(pilot)


# -- the executor: a timed change made in the confirmation reverts on time ---------------


async def test_timed_change_reverts_on_time_via_the_tui(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None and runner.running  # started after the first frame
        assert active(sandbox, "rl-login")
        await timed_limiter(pilot, "rl-login", "30m")
        assert not active(sandbox, "rl-login")  # applied now
        await runner.tick()
        assert "1 timed change · next in 30m" in bar_text(app)

        clock.move(minutes=29)
        assert await runner.tick() == []  # not due yet: nothing sent
        assert not active(sandbox, "rl-login")
        assert "next in 1m" in bar_text(app)

        clock.move(minutes=1, seconds=5)
        reports = await runner.tick()
        await settle(pilot)
        assert [r.action for r in reports] == ["reverted"]
        assert active(sandbox, "rl-login")  # the sandbox has it back ON
        assert puts(sandbox, "rl-login") == [{"isActive": False}, {"isActive": True}]
        assert "timed change" not in bar_text(app)  # the countdown is gone
        done = await timed.list_timed(session, include_done=True)
        assert [(t.state, t.executor) for t in done] == [("reverted", timed.executor_name("tui"))]
        assert await timed.executor_known(session) is not None  # the heartbeat


# -- the duration field ---------------------------------------------------------------------


async def test_a_bad_duration_is_said_inline_and_blocks_confirm(
    session: Session, sandbox: SandboxServer
) -> None:
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        dialog = await switch_for(pilot, "rl-login", "2 hours")
        line = dialog.query_one("#duration-line", Static)
        confirm = dialog.query_one("#confirm", Button)
        assert line.display and "Duration not usable" in plain(line)
        assert "not a duration" in plain(line)
        assert confirm.disabled
        dialog.query_one("#duration", Input).value = "8d"
        await pilot.pause()
        assert confirm.disabled and "longer than 7d" in plain(line)
        dialog.query_one("#duration", Input).value = "1h30m"
        await pilot.pause()
        assert not confirm.disabled
        assert "Reverts to ON at 13:30 UTC, in 1h30m." in plain(line)
        dialog.query_one("#duration", Input).value = ""
        await pilot.pause()
        assert not confirm.disabled and not line.display
        confirm.press()
        await settle(pilot)
        assert not active(sandbox, "rl-login")
        assert await timed.list_timed(session) == []  # empty: an ordinary change
