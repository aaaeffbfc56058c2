"""Bulk revocation speed and memory: the whole CLI process against a bare aiohttp client.

Run it as a script (pytest does not collect tests/bench)::

    python tests/bench/bulk_revoke.py [--ids 10000] [--concurrency 64] [--latency 0.05]
                                      [--rounds 2] [--rss-ids 100000] [--no-rss]

The sandbox runs in a process of its own (``python -m bottui sandbox``) with
``--latency`` seconds of injected latency per request, so the ceiling is
``concurrency / latency`` requests per second (64 / 0.05 s = 1,280/s). In
the same run, alternating, ``--rounds`` times each:

* **bare aiohttp**: this process, one ``aiohttp.ClientSession`` with a pool of
  ``concurrency`` connections and as many workers, POSTing each revocation
  and reading its JSON: the reference;
* **bottui CLI**: ``python -m bottui revoke --from-file ids.txt --concurrency N
  --json``, timed from spawn to exit (start-up, imports, reading and hashing
  the file, journaling every id, the summary).

The goal: the CLI reaches at least 90% of the bare client's rate. Then the
peak RSS of the CLI process (``wait4``) for 100, ``--ids`` and ``--rss-ids``
ids: the growth must stay under 30 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_ACCOUNT  # noqa: E402
from tests.bench.sandbox_process import Sandbox  # noqa: E402

PROJECT = "shop-prod"
GOAL = 0.90
RSS_GROWTH_LIMIT_MB = 30.0


@dataclass
class Timed:
    """One measured run."""

    label: str
    ids: int
    seconds: float
    peak_in_flight: int
    max_rss_mb: float | None = None

    @property
    def rate(self) -> float:
        return self.ids / self.seconds


def write_ids(path: Path, count: int) -> None:
    with open(path, "w") as handle:
        for n in range(count):
            handle.write(f"vis_bench_{n:07d}\n")


async def bare_aiohttp(base_url: str, count: int, concurrency: int) -> float:
    """Seconds for ``count`` revocations with a plain aiohttp client."""
    import aiohttp

    url = f"{base_url}/api/v1/{DEMO_ACCOUNT}/projects/{PROJECT}/challenges/grant-revocations"
    headers = {"X-Api-Key": DEMO_ACCESS_TOKEN, "Content-Type": "application/json"}
    next_id = iter(range(count))
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def worker() -> None:
            for n in next_id:
                body = json.dumps({"subject": {"visitorId": f"vis_bench_{n:07d}"}}).encode()
                async with session.post(url, data=body, headers=headers) as answer:
                    assert answer.status == 200, answer.status
                    await answer.json()

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


def run_cli(sandbox: Sandbox, ids_file: Path, count: int, concurrency: int, home: Path) -> Timed:
    """Time the whole CLI process; its peak RSS from wait4."""
    env = dict(os.environ)
    env.update(
        {
            "BOTTUI_ACCESS_TOKEN": DEMO_ACCESS_TOKEN,
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_STATE_HOME": str(home / "state"),
            "PYTHONPATH": str(ROOT),
        }
    )
    argv = [
        sys.executable,
        "-m",
        "bottui",
        "revoke",
        "--from-file",
        str(ids_file),
        "--base-url",
        sandbox.base_url,
        "--account",
        DEMO_ACCOUNT,
        "--project",
        PROJECT,
        "--concurrency",
        str(concurrency),
        "--json",
    ]
    sandbox.reset()
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        summary = json.loads(out.read())
    if proc.returncode != 0 or summary["total"] != count:
        raise RuntimeError(f"the CLI run failed: exit {proc.returncode}, {summary}")
    if summary["unknown"]:  # timed out, retried, then "nothing standing"
        print(f"    ({summary['unknown']} ids unknown (retried) after timeouts)")
    peak = sandbox.stats()["peakInFlight"]
    return Timed("bottui CLI", count, seconds, peak, usage.ru_maxrss / 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ids", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rss-ids", type=int, default=100_000)
    parser.add_argument("--no-rss", action="store_true", help="skip the memory runs")
    parser.add_argument("--rss-only", action="store_true", help="only the memory runs")
    args = parser.parse_args()

    ceiling = args.concurrency / args.latency if args.latency else float("inf")
    print(
        f"{args.ids:,} ids, concurrency {args.concurrency}, latency {args.latency * 1000:g} ms:"
        f" ceiling {ceiling:,.0f} req/s"
    )
    sandbox = Sandbox(args.latency)
    try:
        with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
            work = Path(tmp)
            ids_file = work / "ids.txt"
            write_ids(ids_file, args.ids)
            best: dict[str, Timed] = {}
            for _ in range(0 if args.rss_only else args.rounds):
                sandbox.reset()
                seconds = asyncio.run(bare_aiohttp(sandbox.base_url, args.ids, args.concurrency))
                runs = [Timed("bare aiohttp", args.ids, seconds, sandbox.stats()["peakInFlight"])]
                home = work / f"home-{time.monotonic_ns()}"
                runs.append(run_cli(sandbox, ids_file, args.ids, args.concurrency, home))
                for run in runs:
                    rss = f", peak RSS {run.max_rss_mb:.1f} MB" if run.max_rss_mb else ""
                    print(
                        f"  {run.label:<22} {run.rate:8,.0f} req/s  ({run.seconds:.2f} s, "
                        f"peak in flight {run.peak_in_flight}{rss})"
                    )
                    if run.label not in best or run.rate > best[run.label].rate:
                        best[run.label] = run
            reference = best["bare aiohttp"].rate if best else 1.0
            if best:
                print(f"best of {args.rounds}:")
            for label, run in best.items():
                share = run.rate / reference
                verdict = ""
                if label.startswith("bottui"):
                    verdict = "  goal met" if share >= GOAL else f"  BELOW the {GOAL:.0%} goal"
                print(
                    f"  {label:<22} {run.rate:8,.0f} req/s = {share:6.1%} of bare aiohttp, "
                    f"{run.rate / ceiling:6.1%} of the ceiling{verdict}"
                )
            if args.no_rss:
                return
            print("peak RSS of the CLI process:")
            sizes = sorted({100, args.ids, args.rss_ids})
            rss: dict[int, float] = {}
            for count in sizes:
                file = work / f"ids-{count}.txt"
                write_ids(file, count)
                home = work / f"home-rss-{count}"
                run = run_cli(sandbox, file, count, args.concurrency, home)
                assert run.max_rss_mb is not None
                rss[count] = run.max_rss_mb
                print(f"  {count:>8,} ids: {run.max_rss_mb:6.1f} MB  ({run.rate:,.0f} req/s)")
            growth = rss[sizes[-1]] - rss[sizes[0]]
            verdict = "goal met" if growth < RSS_GROWTH_LIMIT_MB else "ABOVE the limit"
            print(
                f"  growth from {sizes[0]:,} to {sizes[-1]:,} ids: {growth:.1f} MB "
                f"(limit {RSS_GROWTH_LIMIT_MB:g} MB): {verdict}"
            )
    finally:
        sandbox.stop()


if __name__ == "__main__":
    main()
