"""Live latency of team mode: a teammate's push to the TUI's toast, and to ``--follow``'s line.

Run it as a script (pytest does not collect tests/bench)::

    python tests/bench/team_live.py [--reps 20] [--url URL]

1. A PostgreSQL: ``--url`` (or ``BOTTUI_TEST_POSTGRES_URL``: a database the
   script may migrate and write), else one of its own, started as the tests
   start theirs (``tests/fixtures/postgres.py``), removed at the end.
2. The TUI (headless, ``run_test``) on a demo session with the store
   configured; for each rep, a teammate's change is pushed with
   :meth:`TeamStore.push` on a warm connection, and the time from just before
   the push to the toast (the app's ``notify`` is timed) is recorded.
3. ``bottui journal --follow --jsonl`` as a real process; the same, to its
   line on stdout (read by a thread as it is written).

Target: < 1 s from push to toast and to line. Prints min / median / max (ms)
and the load average, which on a shared 2-core machine says how much to trust them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bottui.store.team.pg_store import TeamStore  # noqa: E402
from bottui.store.team.store_target import check_store_url  # noqa: E402
from tests.fixtures.teammates import bob_change  # noqa: E402

BASE = "http://127.0.0.1:9"
ACCOUNT, PROJECT = "acme", "shop-prod"


def figures(name: str, seconds: list[float]) -> None:
    ms = sorted(s * 1000 for s in seconds)
    print(
        f"{name}: n={len(ms)} min {ms[0]:.1f} ms, median {statistics.median(ms):.1f} ms,"
        f" max {ms[-1]:.1f} ms; under 1 s: {sum(m < 1000 for m in ms)}/{len(ms)}"
    )


async def tui_latency(url: str, reps: int, home: Path) -> list[float]:
    from msgspec.structs import replace

    from bottui.demo import prepare
    from bottui.tui.app import BottuiApp

    session = prepare(home / "demo", BASE)
    session.update_settings(replace(session.settings, store_url=url))
    app = BottuiApp(session, demo=True)
    arrived: dict[str, float] = {}
    shown = app.notify

    def notify(message: str, **options: Any) -> None:
        arrived.setdefault(message, time.monotonic())
        shown(message, **options)

    app.notify = notify  # type: ignore[method-assign]
    pusher = TeamStore(check_store_url(url, {}), timeout=20)
    await pusher.migrate()
    out: list[float] = []
    async with app.run_test(size=(100, 30)):
        deadline = time.monotonic() + 60
        while not app.services.team_listening:
            if time.monotonic() > deadline:
                raise SystemExit("the TUI did not listen within 60 s")
            await asyncio.sleep(0.05)
        for n in range(reps):
            reason = f"TUI-{n}"
            events = bob_change(BASE, ACCOUNT, PROJECT, local_id=10_000 + n, reason=reason)
            began = time.monotonic()
            await pusher.push(events)
            while not any(reason in m for m in arrived):
                if time.monotonic() - began > 30:
                    raise SystemExit(f"rep {n}: no toast within 30 s")
                await asyncio.sleep(0.002)
            out.append(next(t for m, t in arrived.items() if reason in m) - began)
            await asyncio.sleep(0.2)
    await pusher.close()
    return out


def follow_latency(url: str, reps: int, home: Path) -> list[float]:
    env = dict(os.environ, HOME=str(home), BOTTUI_STORE_URL=url, PYTHONUNBUFFERED="1")
    for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[key] = str(home / key.lower())
    proc = subprocess.Popen(
        [sys.executable, "-m", "bottui", "journal", "--follow", "--jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    lines: queue.Queue[tuple[float, str]] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put((time.monotonic(), line))

    threading.Thread(target=pump, daemon=True).start()

    async def run() -> list[float]:
        pusher = TeamStore(check_store_url(url, {}), timeout=20)
        out: list[float] = []
        try:
            for n in range(60):  # until it listens: the first pushes may come before
                await pusher.push(bob_change(BASE, ACCOUNT, PROJECT, local_id=20_000 + n))
                try:
                    lines.get(timeout=1)
                    break
                except queue.Empty:
                    continue
            else:
                raise SystemExit("--follow printed nothing within 60 s")
            time.sleep(0.5)
            while not lines.empty():
                lines.get()
            for n in range(reps):
                events = bob_change(BASE, ACCOUNT, PROJECT, local_id=30_000 + n)
                began = time.monotonic()
                await pusher.push(events)
                when, _ = lines.get(timeout=30)
                out.append(when - began)
                await asyncio.sleep(0.2)
        finally:
            await pusher.close()
        return out

    try:
        return asyncio.run(run())
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--url", default=os.environ.get("BOTTUI_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    server = None
    url = args.url
    if url is None:
        from tests.fixtures.postgres import _own_server, _teardown

        server = _own_server()
        url = server.admin_url(server.new_database())
        print(f"PostgreSQL from {server.origin}")
    try:
        with tempfile.TemporaryDirectory(prefix="bottui-live-") as tmp:
            print(f"load average: {os.getloadavg()}")
            figures("push -> TUI toast", asyncio.run(tui_latency(url, args.reps, Path(tmp))))
            print(f"load average: {os.getloadavg()}")
            figures("push -> --follow line", follow_latency(url, args.reps, Path(tmp)))
            print(f"load average: {os.getloadavg()}")
    finally:
        if server is not None:
            _teardown(server)


if __name__ == "__main__":
    main()
