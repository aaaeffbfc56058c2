"""Solo mode, live (#27 item 2): another bottui's change shows in an open TUI by itself.

A real second process (``python -m bottui``) changes the journal and the
inventory the open TUI reads (the same files: the test's XDG directories
lead to the demo's), and the TUI shows it without a key press: the table,
the header's countdown of timed changes, the Timed screen, the Journal. The TUI looks every
``live_interval`` seconds (short here); the test waits for the TUI's next
looks, never for a time.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable

from bottui.demo import prepare
from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_PROJECT_TOKENS
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.tui.app import BottuiApp
from bottui.tui.screens.journal_dialogs import JournalTable
from bottui.tui.ui_rules import ContextBar
from bottui.tui.widgets.limiter_table import LimiterTable
from tests.cli.helpers import Result, cli_process
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle


def shared_session(tmp_path: Path, sandbox: SandboxServer) -> Session:
    """The demo's session on files a CLI process finds as its own (XDG dirs link to them)."""
    root = tmp_path / "demo"
    session = prepare(root, sandbox.base_url)
    default = Locations.default()
    for mine, its in (
        (session.locations.config_dir, default.config_dir),
        (session.locations.data_dir, default.data_dir),
        (session.locations.state_dir, default.state_dir),
    ):
        mine.mkdir(parents=True, exist_ok=True)
        its.parent.mkdir(parents=True, exist_ok=True)
        its.symlink_to(mine, target_is_directory=True)
    return session


def run_cli(*argv: str) -> Result:
    """A real second bottui process, with the demo's tokens in its environment."""
    env = {
        "BOTTUI_API_KEY": DEMO_PROJECT_TOKENS["shop-prod"],
        "BOTTUI_ACCESS_TOKEN": DEMO_ACCESS_TOKEN,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"],
    }
    return cli_process(*argv, env=env)


async def shown(pilot: Pilot[Any], check: Callable[[], bool]) -> None:
    """Let the TUI look for writes (and read again) until ``check()`` holds."""
    app: BottuiApp = pilot.app  # type: ignore[assignment]
    while not check():
        live = app.local_live
        assert live is not None
        await live.feed.rounds(1)
        await settle(pilot)


def state_of(app: BottuiApp, limiter_id: str) -> str:
    return app.screen.query_one(LimiterTable).get_row(limiter_id)[3].plain


def header(app: BottuiApp) -> str:
    return app.screen.query_one(ContextBar).render().plain


async def test_a_cli_change_in_another_process_shows_in_the_open_tui(
    tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = shared_session(tmp_path, sandbox)
    app = BottuiApp(session, demo=True, start_mode="limiters", live_interval=0.01)
    try:
        async with app.run_test(size=SNAP_SIZE) as pilot:
            await settle(pilot)
            await shown(pilot, lambda: app.local_live is not None)
            assert state_of(app, "rl-checkout") == "ON"
            assert "timed change" not in header(app)

            done = await asyncio.to_thread(
                run_cli, "limiter", "disable", "rl-checkout", "--for", "30m", "--reason", "INC-9"
            )
            assert done.code == 0, done.err

            # No key pressed: the table, then the header's countdown follow.
            await shown(pilot, lambda: state_of(app, "rl-checkout") == "OFF")
            await shown(pilot, lambda: "1 timed change" in header(app))

            # The Timed screen, open over the table, follows another process's cancel.
            await pilot.press("T")
            await settle(pilot)
            timed_table = app.screen.query_one("#timed-table", DataTable)
            assert "scheduled" in " ".join(c.plain for c in timed_table.get_row_at(0))
            done = await asyncio.to_thread(run_cli, "timed", "cancel", "1")
            assert done.code == 0, done.err
            await shown(pilot, lambda: timed_table.row_count == 0)
            await shown(pilot, lambda: "timed change" not in header(app))
            await pilot.press("escape")

            await pilot.press("5")
            await settle(pilot)
            journal = app.screen.query_one(JournalTable)
            first = " ".join(c.plain for c in journal.get_row_at(0))
            assert "rl-checkout" in first and "INC-9" in first

            # And on the Journal screen itself: the next change appears there.
            done = await asyncio.to_thread(
                run_cli, "limiter", "enable", "rl-search", "--reason", "INC-10"
            )
            assert done.code == 0, done.err

            def newest_is_rl_search() -> bool:
                row = " ".join(c.plain for c in journal.get_row_at(0))
                return "rl-search" in row and "INC-10" in row

            await shown(pilot, newest_is_rl_search)
    finally:
        await session.aclose()
