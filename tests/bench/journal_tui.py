"""The Journal screen on a big journal: the event-loop time of every key, and when rows show.

``python -m tests.bench.journal_tui [--entries N] [--rounds R] [--dir DIR] [--reuse]``:
a demo session (loopback sandbox, temporary directory) whose journal holds N
entries of the demo profile (default 10,000,000, the issue's target; a
smaller N is for a quick look: say which in any figure quoted) made by
:mod:`tests.bench.journal_data` (by SQL: a few minutes for 10M; kept under
DIR for ``--reuse``). The app runs headless; for each key of
:data:`ACTIONS` it measures, R times:

* **loop**: the event-loop time of the key: the worst delay of a 5 ms timer
  on the loop from the key's posting until every read it started has ended
  and the screen is idle: how long any other key would have waited
  (target < 200 ms at 10M entries; a read on the loop would show here as its
  whole duration);
* **shown**: key posted -> the screen shows the rows it asked for (the first
  page of the new filters, or the older rows added below), for the keys
  that read (``PageDown`` reads only near the end: its time is the loop's).

Prints median and worst of each, per action. The first visit (``5``) opens
the screen; ``p`` all projects and back, ``o`` and ``f`` cycle the filters,
``pagedown``, ``m`` and ``ctrl+end`` go to older rows (``ctrl+end`` and
``m`` past a bulk run shown as one row, counted in SQL), ``r`` re-reads.
Figures on a busy machine are indicative only; the load average is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from textual import events  # noqa: E402

from bottui.demo import prepare  # noqa: E402
from bottui.sandbox.demo_data import DEMO_ACCOUNT  # noqa: E402
from bottui.sandbox.server import SandboxServer  # noqa: E402
from bottui.sandbox.state import ManualClock, demo_state  # noqa: E402
from bottui.tui.app import BottuiApp  # noqa: E402
from bottui.tui.screens import journal  # noqa: E402
from bottui.tui.screens.journal_dialogs import JournalTable  # noqa: E402
from tests.bench import journal_data  # noqa: E402

TARGET_MS: Final = 200.0
#: (label, key) in the order pressed each round; each waits for what it asked to be
#: shown, except those of :data:`NOT_SHOWN` (which need not read).
ACTIONS: Final = (
    ("o: limiter", "o"),
    ("o: thresholds", "o"),
    ("o: revoke", "o"),
    ("o: all", "o"),
    ("f: unfinished", "f"),
    ("f: succeeded", "f"),
    ("f: failed", "f"),
    ("f: unknown", "f"),
    ("f: all", "f"),
    ("p: all projects", "p"),
    ("pagedown", "pagedown"),
    ("m: older page", "m"),
    ("ctrl+end: older page", "ctrl+end"),
    ("r: reload", "r"),
    ("p: this project", "p"),
)
#: Keys that move the cursor and read only when it nears the end.
NOT_SHOWN: Final = frozenset({"pagedown"})


class Probe:
    """Counts what the screen showed, and the event loop's worst lag, while a read runs."""

    def __init__(self, *, stacks: bool = False) -> None:
        self.shown = 0
        self.worst_lag = 0.0
        self._running = True
        self._ticked = time.perf_counter()
        if stacks:
            threading.Thread(target=self._watch, args=(threading.get_ident(),), daemon=True).start()

    def _watch(self, loop_thread: int) -> None:
        """``--stacks``: print where the loop is when it has not ticked for the target."""
        while self._running:
            time.sleep(TARGET_MS / 2000)
            stalled = time.perf_counter() - self._ticked
            frame = sys._current_frames().get(loop_thread)
            if stalled * 1000 > TARGET_MS and frame is not None:
                print(f"--- loop stalled {stalled * 1000:.0f} ms at:", file=sys.stderr)
                traceback.print_stack(frame, limit=12, file=sys.stderr)

    def hook(self) -> None:
        """Count every first page shown and every older page added."""
        probe = self
        show: Callable[..., Any] = journal.JournalScreen._show
        append: Callable[..., Any] = JournalTable.append

        def counted_show(screen: Any, *args: Any, **kwargs: Any) -> None:
            show(screen, *args, **kwargs)
            probe.shown += 1

        def counted_append(table: Any, *args: Any, **kwargs: Any) -> None:
            append(table, *args, **kwargs)
            probe.shown += 1

        journal.JournalScreen._show = counted_show  # type: ignore[method-assign,assignment]
        JournalTable.append = counted_append  # type: ignore[method-assign,assignment]

    async def lag(self) -> None:
        """A 5 ms timer: how late it fires is how long a key would wait."""
        while self._running:
            started = time.perf_counter()
            await asyncio.sleep(0.005)
            self._ticked = time.perf_counter()
            self.worst_lag = max(self.worst_lag, self._ticked - started - 0.005)

    def stop(self) -> None:
        self._running = False


async def _press(app: BottuiApp, probe: Probe, key: str) -> tuple[float, float]:
    """Post ``key``; (ms until something new was shown, worst loop lag in ms
    until its reads ended and the screen was idle)."""
    before = probe.shown
    probe.worst_lag = 0.0
    started = time.perf_counter()
    app.post_message(events.Key(key, key if len(key) == 1 else None))
    while probe.shown == before and key not in NOT_SHOWN:
        await asyncio.sleep(0.001)
        if time.perf_counter() - started > 120:
            raise RuntimeError(f"{key}: nothing shown in 120 s")
    shown = (time.perf_counter() - started) * 1000
    await app.workers.wait_for_complete()
    await asyncio.sleep(0.02)  # the frame the key's rows make is the loop's work too
    return shown, probe.worst_lag * 1000


async def _measure(
    session: Any, rounds: int, *, stacks: bool = False
) -> dict[str, list[tuple[float, float]]]:
    probe = Probe(stacks=stacks)
    probe.hook()
    app = BottuiApp(session, demo=True)
    found: dict[str, list[tuple[float, float]]] = {"5: open the screen": []}
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        ticker = asyncio.create_task(probe.lag())
        try:
            found["5: open the screen"].append(await _press(app, probe, "5"))
            for _ in range(rounds):
                for label, key in ACTIONS:
                    found.setdefault(label, []).append(await _press(app, probe, key))
        finally:
            probe.stop()
            await ticker
    await session.aclose()
    return found


def _journal(root: Path, n: int, reuse: bool) -> Path:
    cached = root / f"tui-{n}" / "journal.sqlite3"
    if not (reuse and cached.exists()):
        started = time.perf_counter()
        how = journal_data.make(cached, n, profile="demo", account=DEMO_ACCOUNT)
        print(f"made {n:,} entries by {how} in {time.perf_counter() - started:.0f} s")
    return cached


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bottui-bench-journal"))
    parser.add_argument("--reuse", action="store_true", help="keep a journal made before")
    parser.add_argument(
        "--stacks", action="store_true", help="print the loop's stack whenever it stalls"
    )
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    cached = _journal(args.dir, args.entries, args.reuse)
    with tempfile.TemporaryDirectory() as tmp, SandboxServer(demo_state(ManualClock())) as sandbox:
        session = prepare(Path(tmp) / "demo", sandbox.base_url)
        target = session.locations.journal_file
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(cached, target)  # the same file, no copy (read only here)
        except OSError:
            shutil.copyfile(cached, target)
        found = asyncio.run(_measure(session, args.rounds, stacks=args.stacks))
    print(f"\n{args.entries:,} entries; ms, median and worst of {args.rounds} rounds")
    print(f"{'action':26} {'loop':>8} {'worst':>8} {'shown':>8} {'worst':>8}")
    for label, times in found.items():
        shown = [t for t, _ in times]
        lags = [lag for _, lag in times]
        flag = "" if max(lags) < TARGET_MS else f"  loop > {TARGET_MS:.0f} ms"
        print(
            f"{label:26} {statistics.median(lags):8.0f} {max(lags):8.0f} "
            f"{statistics.median(shown):8.0f} {max(shown):8.0f}{flag}"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
