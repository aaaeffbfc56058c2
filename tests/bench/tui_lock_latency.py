"""How fast the TUI answers a key while another process holds the journal's write lock.

``python -m tests.bench.tui_lock_latency [ROUNDS]``: a demo session in a
temporary directory, a second process holding ``BEGIN IMMEDIATE`` on its
journal, and the app (headless) switching screens 1 -> 5 -> 2 ROUNDS times
while the lock is held; then a limiter change is confirmed and the same
switches are timed while that change waits for its started record. Prints
the median and the worst answer time (key posted -> the screen is the new
one). Target: 200 ms (measured, not asserted: #11, fault 2).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from textual import events
from textual.screen import Screen

from bottui.demo import prepare
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import ManualClock, demo_state
from bottui.tui.app import BottuiApp
from bottui.tui.screens.journal import JournalScreen
from bottui.tui.screens.limiters import LimitersScreen
from bottui.tui.screens.projects import ProjectsScreen
from tests.fixtures.stores import journal_of
from tests.tui.test_locked_journal import hold_lock

TARGET_MS = 200.0
CYCLE: tuple[tuple[str, type[Screen[Any]]], ...] = (
    ("1", ProjectsScreen),
    ("5", JournalScreen),
    ("2", LimitersScreen),
)


async def _answer(app: BottuiApp, key: str, screen: type[Screen[Any]]) -> float:
    started = time.perf_counter()
    app.post_message(events.Key(key, key))
    while not isinstance(app.screen, screen):
        await asyncio.sleep(0.001)
        if time.perf_counter() - started > 30:
            raise RuntimeError(f"{key} did not answer in 30 s")
    return (time.perf_counter() - started) * 1000


async def _measure(root: Path, base_url: str, rounds: int) -> tuple[list[float], list[float]]:
    session = prepare(root / "demo", base_url)
    journal = journal_of(session)
    journal.settled_items(0)  # the file and its schema exist before the lock
    journal.close()
    app = BottuiApp(session, demo=True)
    locked: list[float] = []
    changing: list[float] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        proc = hold_lock(session.locations.journal_file, 60.0)
        try:
            for _ in range(rounds):
                for key, screen in CYCLE:
                    locked.append(await _answer(app, key, screen))
            for key, char in (("space", " "), ("tab", "\t"), ("enter", "\r")):
                app.post_message(events.Key(key, char))
                await asyncio.sleep(0.05)
            for _ in range(rounds):
                for key, screen in CYCLE:
                    changing.append(await _answer(app, key, screen))
            assert proc.poll() is None, "the lock was released before the end of the measure"
        finally:
            assert proc.stdin is not None
            proc.stdin.close()  # release the lock: the change completes
            proc.wait(timeout=30)
        await app.workers.wait_for_complete()
    await session.aclose()
    return locked, changing


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 5
    with tempfile.TemporaryDirectory() as tmp, SandboxServer(demo_state(ManualClock())) as sandbox:
        locked, changing = asyncio.run(_measure(Path(tmp), sandbox.base_url, rounds))
    for label, times in (("lock held", locked), ("lock held, change waiting", changing)):
        print(
            f"{label}: {len(times)} keys, median {statistics.median(times):.1f} ms, "
            f"worst {max(times):.1f} ms (target {TARGET_MS:.0f} ms)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
