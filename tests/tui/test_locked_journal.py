"""The TUI answers while another process holds the journal's write lock (#11, fault 2).

A real second process takes ``BEGIN IMMEDIATE`` on the session's journal and
holds it until the test closes its stdin (a CLI bulk run on the same laptop;
:data:`HOLD_SECONDS` only ends a holder the test forgot). The
TUI is driven meanwhile: screens switch (1 -> 5 -> 2) while the lock is
still held, a limiter change is confirmed, and while that change waits for
its *started* record the screens still switch. Once the lock is released the
change completes, journaled. "While the lock is held" is the holder process
still running, not a timing bound; the answer time itself is measured by
``tests/bench/tui_lock_latency.py``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.screen import Screen

from bottui.ops.session import Session
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.journal import JournalScreen
from bottui.tui.screens.limiters import LimitersScreen
from bottui.tui.screens.projects import ProjectsScreen
from tests.fixtures.stores import journal_of
from tests.tui.helpers import settle

#: The holder's own end, should the test never release it (a hang guard).
HOLD_SECONDS = 600.0
#: How long a key may take to answer before the test gives up on it: a hang guard. The
#: lock is held until the test releases it, so an answer seen is one given while locked.
ANSWER_BOUND = 120.0

# Takes the write lock, says so, holds it for argv[2] seconds (or until stdin closes).
HOLDER = """
import sqlite3, sys, threading
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
done.wait(float(sys.argv[2]))
conn.execute("COMMIT")
print("released", flush=True)
"""


def hold_lock(path: Path, seconds: float) -> subprocess.Popen[str]:
    """A process holding the write lock of ``path`` for ``seconds`` (it has it on return)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(seconds)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


@pytest.fixture
def locked_session(flow_session: Session) -> Iterator[tuple[Session, list[subprocess.Popen[str]]]]:
    """The demo session with its journal made, and the holder processes to end after."""
    journal = journal_of(flow_session)
    journal.settled_items(0)  # opens it: the file and its schema exist before the lock
    journal.close()
    procs: list[subprocess.Popen[str]] = []
    yield flow_session, procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=120)


KEYS = {"space": " ", "tab": "\t", "enter": "\r"}


async def press(app: BottuiApp, *keys: str) -> None:
    """Post key events as a terminal would, and let the loop take them.

    Not ``Pilot.press``: it waits for the whole process to go idle (up to
    1 s per key), and a thread waiting on the lock is not idle.
    """
    for key in keys:
        app.post_message(events.Key(key, KEYS.get(key, key)))
        await asyncio.sleep(0.05)


async def until(check: Callable[[], bool], what: str) -> None:
    """Let the loop run until ``check()`` holds (:data:`ANSWER_BOUND`: a hang guard)."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < ANSWER_BOUND, what
        await asyncio.sleep(0.01)


async def switch(app: BottuiApp, key: str, screen: type[Screen[Any]]) -> float:
    """Press ``key`` and wait (at most :data:`ANSWER_BOUND`) for ``screen``; seconds taken."""
    started = time.monotonic()
    app.post_message(events.Key(key, key))
    while not isinstance(app.screen, screen) and time.monotonic() - started < ANSWER_BOUND:
        await asyncio.sleep(0.01)
    return time.monotonic() - started


async def test_keys_answer_while_another_process_holds_the_journal(
    locked_session: tuple[Session, list[subprocess.Popen[str]]], sandbox: SandboxServer
) -> None:
    session, procs = locked_session
    app = BottuiApp(session, demo=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LimitersScreen)
        proc = hold_lock(session.locations.journal_file, HOLD_SECONDS)
        procs.append(proc)

        # Screens switch while the lock is held (the journal screen reads it).
        for key, screen in (("1", ProjectsScreen), ("5", JournalScreen), ("2", LimitersScreen)):
            await switch(app, key, screen)
            assert isinstance(app.screen, screen), key
            assert proc.poll() is None, f"{key} answered only after the lock was released"

        # A change confirmed now waits for its started record, off the event loop...
        await press(app, "t")  # rl-api: OFF -> ON; planned in a worker, then asked
        # Shown, and its focus given to Cancel (a Tab before that lands on Cancel itself).
        await until(
            lambda: (
                isinstance(app.screen, ConfirmDialog)
                and app.focused is not None
                and app.focused.id == "cancel"
            ),
            "no confirmation",
        )
        await press(app, "tab", "enter")
        await until(lambda: bool(app.services.work_text), "the change did not start")
        for key, screen in (("5", JournalScreen), ("2", LimitersScreen)):
            await switch(app, key, screen)
            assert isinstance(app.screen, screen), key
            assert proc.poll() is None, f"{key} answered only after the lock was released"
        assert app.services.work_text  # still waiting for the journal
        assert not sandbox.state.recorder.log  # nothing sent before it is journaled

        # ... and completes once the lock is released, journaled.
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0
        await settle(pilot)
        assert not session.warnings and not app.services.work_text
        assert not [n for n in app._notifications if n.title == "Warning"]

    journal = journal_of(session)
    try:
        entries = journal.entries(operation="limiter.set-active")
    finally:
        journal.close()
    assert len(entries) == 1
    assert entries[0].target == {"rate_limiter_id": "rl-api"} and entries[0].outcome == "ok"
    assert [r.json for r in sandbox.state.recorder.log if r.method == "PATCH"] == [
        {"isActive": True}
    ]
