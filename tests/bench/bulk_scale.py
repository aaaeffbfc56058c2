"""#12 bulk benchmarks: CPU per request, rate at high concurrency, peak RSS, resume timings.

Run it as a script (pytest does not collect tests/bench); sizes are arguments::

    python tests/bench/bulk_scale.py cpu    [--ids 10000] [--concurrency 64] [--rounds 3]
    python tests/bench/bulk_scale.py rate   [--ids 20000] [--concurrency 256] [--latency 0.1]
    python tests/bench/bulk_scale.py rss    [--ids 1000000] [--concurrency 256]
                                            [--dir DIR [--resume-only]]
                                            [--server sandbox|answer]
    python tests/bench/bulk_scale.py resume [--ids 1000000] [--no-checkpoints | --covered-only]
    python tests/bench/bulk_scale.py first  [--ids 1000000] [--rounds 3] [--against CHECKOUT]

Every figure is of the client process only (the sandbox, in a process of its
own, may well be the bottleneck on 2 cores): CPU seconds and peak RSS from
``wait4`` of the ``python -m bottui revoke --from-file`` process, the bare
aiohttp client (``tests/bench/bare_client.py``) measured the same way, the
two interleaved round by round, medians and ratios printed.

* ``cpu``: CPU per 10,000 requests at 0 ms latency, bottui / bare client
  (goal: at most 1.5x);
* ``rate``: requests per second at ``--concurrency`` and ``--latency``
  (default 256 and 100 ms: the ceiling is 2,560/s), bottui / bare client
  (goal: at least 90%);
* ``rss``: peak RSS of a whole run of ``--ids`` ids, then of its
  ``--resume`` (goal: 100 MB at 1,000,000 ids, 150 MB at 10,000,000);
* ``resume``: a journal holding a settled run of ``--ids`` ids (written
  through the journal's own batch writer, not by sending), then ``--resume``
  of the same input: seconds to the end (nothing is sent; goal < 3 s at
  1,000,000) and peak RSS; then the same with the last tenth of the ids not
  settled: seconds from start to the first request (goal < 1 s);
* ``first``: that first request again, round by round against a fresh run
  of the same input and (``--against``) another checkout's resume.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_ACCOUNT  # noqa: E402
from tests.bench.sandbox_process import Sandbox  # noqa: E402

PROJECT = "shop-prod"


def write_ids(path: Path, count: int, prefix: str = "vis_bench_") -> None:
    """``count`` distinct visitor ids, one per line."""
    with open(path, "w") as handle:
        block = 100_000
        for start in range(0, count, block):
            handle.write(
                "".join(f"{prefix}{n:08d}\n" for n in range(start, min(count, start + block)))
            )


def environment(home: Path) -> dict[str, str]:
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
    return env


def measured(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run ``argv``; its wall seconds, CPU seconds, peak RSS (MB), exit code and stdout."""
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        text = out.read().decode()
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": usage.ru_maxrss / 1024,
        "code": os.waitstatus_to_exitcode(status),
        "out": text,
    }


def cli(sandbox: Any, ids: Path, home: Path, concurrency: int, *extra: str) -> dict[str, Any]:
    """``bottui revoke --from-file`` as a process of its own, measured."""
    argv = [
        sys.executable, "-m", "bottui", "revoke", "--from-file", str(ids),
        "--base-url", sandbox.base_url, "--account", DEMO_ACCOUNT, "--project", PROJECT,
        "--concurrency", str(concurrency), "--json", *extra,
    ]  # fmt: skip
    run = measured(argv, environment(home))
    if run["code"] != 0:
        raise RuntimeError(f"the CLI run failed: exit {run['code']}: {run['out'][:500]}")
    run["summary"] = json.loads(run["out"])
    return run


def bare(sandbox: Sandbox, count: int, concurrency: int, home: Path) -> dict[str, Any]:
    """The bare aiohttp client as a process of its own, measured."""
    script = ROOT / "tests" / "bench" / "bare_client.py"
    argv = [sys.executable, str(script), sandbox.base_url, str(count), str(concurrency)]
    run = measured(argv, environment(home))
    if run["code"] != 0:
        raise RuntimeError(f"the bare client failed: exit {run['code']}")
    run.update(json.loads(run["out"]))  # its own seconds of requests
    return run


def load() -> str:
    """The machine's load average, to read the figures by."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def interleaved(
    args: argparse.Namespace, latency: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rounds of (bare client, bottui CLI) on one sandbox; both lists of runs."""
    sandbox = Sandbox(latency)
    bares: list[dict[str, Any]] = []
    ours: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
            work = Path(tmp)
            ids = work / "ids.txt"
            write_ids(ids, args.ids)
            for n in range(args.rounds):
                sandbox.reset()
                bares.append(bare(sandbox, args.ids, args.concurrency, work))
                sandbox.reset()
                ours.append(cli(sandbox, ids, work / f"home-{n}", args.concurrency))
                b, o = bares[-1], ours[-1]
                print(
                    f"  round {n + 1}: bare {b['cpu']:.2f} CPU-s {args.ids / b['wall']:,.0f}/s"
                    f" | bottui {o['cpu']:.2f} CPU-s {args.ids / o['wall']:,.0f}/s"
                    f" (whole processes)  load {load()}"
                )
    finally:
        sandbox.stop()
    return bares, ours


def cpu(args: argparse.Namespace) -> None:
    print(f"CPU, {args.ids:,} requests at 0 ms, concurrency {args.concurrency}, load {load()}")
    bares, ours = interleaved(args, 0.0)
    per = 10_000 / args.ids
    b = statistics.median(r["cpu"] for r in bares) * per
    o = statistics.median(r["cpu"] for r in ours) * per
    ratios = [o_["cpu"] / b_["cpu"] for b_, o_ in zip(bares, ours, strict=True)]
    print(
        f"median CPU per 10,000 requests: bare aiohttp {b:.2f} s, bottui {o:.2f} s: "
        f"{o / b:.2f}x (per round: {', '.join(f'{r:.2f}' for r in ratios)}; goal <= 1.5x)"
    )


def rate(args: argparse.Namespace) -> None:
    ceiling = args.concurrency / args.latency
    print(
        f"rate, {args.ids:,} requests, concurrency {args.concurrency}, latency "
        f"{args.latency * 1000:g} ms (ceiling {ceiling:,.0f}/s), load {load()}"
    )
    bares, ours = interleaved(args, args.latency)
    # Both processes timed alike, spawn to exit: start-up included on both sides.
    b = statistics.median(args.ids / r["wall"] for r in bares)
    o = statistics.median(args.ids / r["wall"] for r in ours)
    inner = statistics.median(args.ids / r["seconds"] for r in bares)
    print(
        f"median, spawn to exit: bare aiohttp {b:,.0f}/s, bottui {o:,.0f}/s: {o / b:.0%} "
        f"(goal >= 90%; the bare client's requests alone: {inner:,.0f}/s)"
    )


def rss(args: argparse.Namespace) -> None:
    print(
        f"peak RSS, {args.ids:,} ids, concurrency {args.concurrency}, server {args.server},"
        f" load {load()}"
    )
    sandbox: Any
    if args.server == "answer":  # the client's RSS without the sandbox's hours (see there)
        from tests.bench.answer_server import AnswerServer

        sandbox = AnswerServer()
    else:
        sandbox = Sandbox(args.latency)
    try:
        with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
            # --dir keeps the input and the journal, so a long run's --resume
            # can be measured again later (--resume-only) without sending again.
            work = Path(args.dir) if args.dir else Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            ids = work / "ids.txt"
            if not args.resume_only:
                write_ids(ids, args.ids)
                run = cli(sandbox, ids, work / "home", args.concurrency)
                print(
                    f"  run:    {run['rss']:6.1f} MB, {run['wall']:.1f} s, "
                    f"{args.ids / run['wall']:,.0f}/s, {run['cpu']:.1f} CPU-s",
                    flush=True,
                )
            again = cli(sandbox, ids, work / "home", args.concurrency, "--resume")
            print(
                f"  resume: {again['rss']:6.1f} MB, {again['wall']:.1f} s, "
                f"{again['cpu']:.1f} CPU-s "
                f"(sent {again['summary']['total'] - again['summary']['skipped']:,})"
            )
    finally:
        sandbox.stop()


async def settled_journal(
    home: Path, ids: Path, count: int, settled: int, checkpoints: bool = True, *, only: int = 0
) -> None:
    """A journal holding the run of ``ids`` with its first ``settled`` ids settled.

    Written through the journal's own batch writer (``SqliteJournalStore.batch``),
    as a run would, without sending anything; with ``checkpoints``, a
    settled-prefix checkpoint after each chunk, as a run writes them (without:
    a journal of a bottui before checkpoints, every id looked up).
    """
    os.environ.update(environment(home))
    from bottui.ops.bulk.input import BulkSource, subject_key
    from bottui.store.files import Locations
    from bottui.store.journal.journal_records import EntryId, Operation, StartRecord
    from bottui.store.journal.journal_store import SqliteJournalStore

    source = BulkSource.from_path(ids)
    store = SqliteJournalStore(Locations.default().journal_file)
    run_id = await store.run(
        profile="default", account=DEMO_ACCOUNT, project=PROJECT,
        input_sha256=source.sha256, operation=Operation.REVOKE_GRANT,
    )  # fmt: skip
    writer = await store.batch()
    chunk = 2000
    for start in range(0, only or settled, chunk):
        records = []
        for n in range(start, min(settled, start + chunk)):
            visitor = f"vis_bench_{n:08d}"
            records.append(
                StartRecord(
                    profile="default", base_url="http://127.0.0.1",
                    operation=Operation.REVOKE_GRANT, account=DEMO_ACCOUNT, project=PROJECT,
                    target={"visitorId": visitor},
                    request_body={"subject": {"visitorId": visitor}}, run_id=run_id,
                    item_key=subject_key(visitor, None).hex(),
                )
            )  # fmt: skip
        for entry_id in await writer.start_many(records):
            await writer.finish(EntryId(entry_id), outcome="nothing-standing", status=200)
        if checkpoints:  # one id per line: the prefix is the ids settled so far
            await writer.checkpoint(run_id, min(settled, start + chunk))
        await writer.flush()
    if only:  # the shortcut of --covered-only: a checkpoint claiming every line
        await writer.checkpoint(run_id, settled)
        await writer.flush()
    await writer.close()
    await store.close()
    source.close()


def resume(args: argparse.Namespace) -> None:
    kind = "without checkpoints" if args.no_checkpoints else "with checkpoints"
    print(f"resume, {args.ids:,} ids, {kind}, load {load()}")
    sandbox = Sandbox(0.0)
    try:
        with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
            work = Path(tmp)
            ids = work / "ids.txt"
            write_ids(ids, args.ids)
            cases = (("settled", args.ids), ("nine tenths", args.ids * 9 // 10))
            for label, settled in cases[:1] if args.covered_only else cases:
                home = work / f"home-{label}"
                started = time.perf_counter()
                only = 2000 if args.covered_only else 0
                marks = not args.no_checkpoints
                asyncio.run(settled_journal(home, ids, args.ids, settled, marks, only=only))
                took = time.perf_counter() - started
                print(
                    f"  journal of {only or settled:,} settled ids, checkpoint at line "
                    f"{settled:,}, written in {took:.0f} s"
                )
                sandbox.reset()
                first_at: list[float] = []
                watcher = _first_request_watcher(sandbox, first_at)
                t0 = time.perf_counter()
                run = cli(sandbox, ids, home, 64, "--resume")
                watcher.join()
                sent = run["summary"]["total"] - run["summary"]["skipped"]
                first = f", first request after {first_at[0] - t0:.2f} s" if first_at else ""
                print(
                    f"  {label}: --resume took {run['wall']:.2f} s, sent {sent:,}{first}, "
                    f"peak RSS {run['rss']:.1f} MB, {run['cpu']:.1f} CPU-s"
                )
    finally:
        sandbox.stop()


def first(args: argparse.Namespace) -> None:
    """Seconds from spawn to the first request of a ``--resume`` of ``--ids`` ids whose last
    tenth is unsettled, round by round against a fresh run (no ``--resume``) and, with
    ``--against CHECKOUT``, the same resume by that checkout's code; the CLI is stopped
    (SIGINT) at its first request, and the journal copied anew for each round."""
    import shutil
    import signal

    print(f"first request, {args.ids:,} ids, last tenth unsettled, load {load()}")
    codes = {"this": str(ROOT), "fresh": str(ROOT)}
    if args.against:
        codes["against"] = str(Path(args.against).resolve())
    times: dict[str, list[float]] = {label: [] for label in codes}
    sandbox = Sandbox(0.0)
    try:
        with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
            work = Path(tmp)
            ids = work / "ids.txt"
            write_ids(ids, args.ids)
            asyncio.run(settled_journal(work / "made", ids, args.ids, args.ids * 9 // 10))
            for n in range(args.rounds):
                for label, code in codes.items():
                    home = work / "round"
                    shutil.rmtree(home, ignore_errors=True)
                    if label != "fresh":
                        shutil.copytree(work / "made", home)
                    sandbox.reset()
                    env = environment(home) | {"PYTHONPATH": code}
                    argv = [
                        sys.executable, "-m", "bottui", "revoke", "--from-file", str(ids),
                        "--base-url", sandbox.base_url, "--account", DEMO_ACCOUNT,
                        "--project", PROJECT, "--concurrency", "64", "--json",
                    ] + ([] if label == "fresh" else ["--resume"])  # fmt: skip
                    started = time.perf_counter()
                    proc = subprocess.Popen(
                        argv, env=env, cwd=code, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )  # fmt: skip
                    while proc.poll() is None and sandbox.stats()["requests"] == 0:
                        time.sleep(0.005)
                    times[label].append(time.perf_counter() - started)
                    if proc.poll() is None:
                        proc.send_signal(signal.SIGINT)
                    proc.wait()
                print(
                    f"  round {n + 1}: "
                    + ", ".join(f"{label} {t[-1]:.2f} s" for label, t in times.items())
                    + f"  load {load()}"
                )
    finally:
        sandbox.stop()
    for label, found in times.items():
        print(f"median {label}: {statistics.median(found):.2f} s")


def _first_request_watcher(sandbox: Sandbox, found: list[float]) -> Any:
    """A thread noting when the sandbox counts its first request (polling its stats)."""
    import threading

    def watch() -> None:
        deadline = time.perf_counter() + 600
        while time.perf_counter() < deadline:
            try:
                if sandbox.stats()["requests"] > 0:
                    found.append(time.perf_counter())
                    return
            except OSError:
                pass
            if done.is_set():
                return
            time.sleep(0.005)

    done = threading.Event()
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()

    class Watcher:
        def join(self) -> None:
            done.set()
            thread.join()

    return Watcher()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("cpu", "rate", "rss", "resume", "first"))
    parser.add_argument("--ids", type=int)
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--latency", type=float)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--no-checkpoints",
        action="store_true",
        help="resume: a journal without settled-prefix checkpoints (every id looked up)",
    )
    parser.add_argument(
        "--against", help="first: a checkout of another version, its resume interleaved"
    )
    parser.add_argument(
        "--covered-only",
        action="store_true",
        help="resume: a journal of the first 2,000 ids and a checkpoint claiming every line "
        "(a settled resume's reading of the covered lines, time and RSS, without writing "
        "--ids entries first)",
    )
    parser.add_argument(
        "--dir", help="rss: keep the input and the journal in this directory (under /tmp)"
    )
    parser.add_argument(
        "--server",
        choices=("sandbox", "answer"),
        default="sandbox",
        help="rss: answer with the sandbox, or with tests/bench/answer_server.py (answers"
        " 'nothing was standing' and stores nothing: for 10,000,000 ids)",
    )
    parser.add_argument(
        "--resume-only",
        action="store_true",
        help="rss: only the --resume of the run already in --dir",
    )
    args = parser.parse_args()
    defaults = {
        "cpu": (10_000, 64, 0.0),
        "rate": (20_000, 256, 0.1),
        "rss": (1_000_000, 256, 0.0),
        "resume": (1_000_000, 64, 0.0),
        "first": (1_000_000, 64, 0.0),
    }[args.what]
    args.ids = args.ids or defaults[0]
    args.concurrency = args.concurrency or defaults[1]
    args.latency = defaults[2] if args.latency is None else args.latency
    {"cpu": cpu, "rate": rate, "rss": rss, "resume": resume, "first": first}[args.what](args)


if __name__ == "__main__":
    main()
