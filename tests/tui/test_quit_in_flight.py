"""Quitting while a single change is in flight asks, then waits for its outcome (#14).

A switch sent and not yet answered is a bulk run in miniature: quitting at
once would leave its journal entry "started" (outcome unknown). The sandbox
holds the request (fault ``hold``) so the change stays in flight.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from bottui.api.transport import AiohttpTransport
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle
from tests.tui.test_multi_select import select


async def until(check: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def switch_held(pilot: Pilot[Any], app: BottuiApp, sandbox: SandboxServer) -> None:
    """Toggle rl-login and confirm; the sandbox holds the request."""
    await settle(pilot)
    await select(pilot, "rl-login")
    sandbox.faults.configure(hold=True)
    await pilot.press("t")
    await until(lambda: isinstance(app.screen, ConfirmDialog))
    await pilot.press("tab", "enter")  # from Cancel to Disable
    await until(lambda: app.session.changes_in_flight == 1)


async def test_quit_over_a_change_in_flight_asks_and_cancel_keeps_the_app(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await switch_held(pilot, flow_app, sandbox)
        await pilot.press("q")
        await pilot.pause()
        ask = flow_app.screen
        assert isinstance(ask, ConfirmDialog)
        body = plain(ask.query_one("#confirm-body", Static))
        assert "leave its outcome unknown in the journal" in body, body
        await pilot.press("enter")  # Cancel has the focus
        await pilot.pause()
        assert flow_app.return_code is None
        sandbox.faults.configure(hold=False)
        await until(lambda: flow_app.session.changes_in_flight == 0)
        await pilot.press("q")  # nothing under way now: quits at once
        await until(lambda: flow_app.return_code is not None)


async def test_wait_then_quit_journals_the_outcome_first(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await switch_held(pilot, flow_app, sandbox)
        await pilot.press("q")
        await until(lambda: isinstance(flow_app.screen, ConfirmDialog))
        await pilot.press("tab", "enter")  # Wait, then quit
        await asyncio.sleep(0.3)
        assert flow_app.return_code is None  # still waiting for the answer
        sandbox.faults.configure(hold=False)
        await until(lambda: flow_app.return_code is not None)
    with journal_of(flow_app.session) as journal:
        outcomes = [entry.outcome for entry in journal.entries()]
    assert outcomes == ["ok"], outcomes


async def test_quitting_closes_the_connection_pool_on_the_apps_loop(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    # The pool's connections live on the app's event loop: left to the garbage
    # collector they were printed as "Unclosed client session" on stderr.
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await switch_held(pilot, flow_app, sandbox)
        sandbox.faults.configure(hold=False)
        await until(lambda: flow_app.session.changes_in_flight == 0)
        transport = flow_app.session.client().transport
        assert isinstance(transport, AiohttpTransport)
        pool = transport._client_session()  # the pool the change went through
        assert not pool.closed and pool.connector is not None
        await pilot.press("q")
        await until(lambda: flow_app.return_code is not None)
    assert pool.closed
