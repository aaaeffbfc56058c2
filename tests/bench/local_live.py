"""Solo mode live (#27 item 2): what looking for another bottui's writes costs when idle.

Run it as a script (pytest does not collect tests/bench)::

    python tests/bench/local_live.py [--seconds 60]

1. Idle cost: a journal and an inventory file (WAL, as bottui makes them),
   and :class:`~bottui.ops.live_feeds.LocalFeed` looking at them every
   :data:`~bottui.ops.live_feeds.INTERVAL` seconds on the store executor
   (one job on the watch lane: the event loop is not woken while nothing is
   written), in an event loop that does nothing else, for ``--seconds``. The
   process's CPU time (all threads) over that wall time is the figure; the
   same loop without the feed is the baseline, subtracted. Target: at most
   0.1% of a core.
2. Latency: a write to the journal by another process, to the feed's
   ``on_change`` (reps of it; target: under 1 s, of which the interval is
   the most).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bottui.ops.live_feeds import INTERVAL, LocalFeed  # noqa: E402
from bottui.store.file_watch import DataVersionWatch  # noqa: E402

WRITE = (
    "import sqlite3,sys\n"
    "c=sqlite3.connect(sys.argv[1]);c.execute('INSERT INTO t VALUES (1)');c.commit()\n"
)


def make(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (v INTEGER)")
    conn.commit()
    conn.close()


async def idle_cpu(paths: list[Path], seconds: float, feed_on: bool) -> float:
    """CPU seconds per wall second of a loop (with the feed looking, or not)."""

    async def nothing() -> None:
        return None

    feed = LocalFeed(DataVersionWatch(paths), nothing)
    task = asyncio.get_running_loop().create_task(feed.run()) if feed_on else None
    await asyncio.sleep(1.0)  # threads started, the first look made
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    if task is not None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        print(f"  looks made: {feed.looks}")
    return cpu / wall


async def latency(paths: list[Path], reps: int) -> list[float]:
    """Seconds from just before another process's commit to ``on_change``."""
    seen = asyncio.Event()

    async def changed() -> None:
        seen.set()

    feed = LocalFeed(DataVersionWatch(paths), changed)
    task = asyncio.get_running_loop().create_task(feed.run())
    await feed.rounds(1)
    times: list[float] = []
    for _ in range(reps):
        seen.clear()
        start = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", WRITE, str(paths[0]))
        await proc.wait()
        await seen.wait()
        times.append(time.perf_counter() - start)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return times


async def main(seconds: float, reps: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / "journal.sqlite3", Path(tmp) / "inventory.sqlite3"]
        for path in paths:
            make(path)
        print(f"interval {INTERVAL} s, {seconds:.0f} s each")
        base = await idle_cpu(paths, seconds, feed_on=False)
        print(f"baseline (loop alone): {base * 100:.4f}% of a core")
        with_feed = await idle_cpu(paths, seconds, feed_on=True)
        print(f"with the feed looking: {with_feed * 100:.4f}% of a core")
        cost = max(0.0, with_feed - base)
        verdict = "ok" if cost <= 0.001 else "OVER"
        print(f"idle cost of looking: {cost * 100:.4f}% of a core (target <= 0.1%: {verdict})")
        times = await latency(paths, reps)
        print(
            f"write -> on_change, {reps} reps (incl. the writer's process start): "
            f"min {min(times) * 1000:.0f} ms, median {statistics.median(times) * 1000:.0f} ms, "
            f"max {max(times) * 1000:.0f} ms"
        )
        loadavg = Path("/proc/loadavg")
        load = loadavg.read_text().split()[:3] if loadavg.exists() else []
        print(f"load average: {' '.join(load)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(main(args.seconds, args.reps))
