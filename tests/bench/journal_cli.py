"""``bottui journal`` on a big journal against an empty one: wall time and peak RSS (#12).

Run it as a script (pytest does not collect tests/bench)::

    python -m tests.bench.journal_cli [--entries N] [--dir DIR] [--repeat R] [--reuse]
                                      [--only WORD ...] [--no-first-pages]
                                      [--no-streams | --streams jsonl,json,text,export]

It makes a journal of N entries (default 1,000,000; :mod:`tests.bench.journal_data`,
bulk SQL) under DIR (default ``/tmp/bottui-bench-journal``; ``--reuse``
keeps one made before with the same N) and an empty one, then:

1. **first pages**: each command of :data:`COMMANDS` (the default page, the
   JSON forms, every filter) as a real ``python -m bottui`` process, R times,
   interleaved with the same command on the empty journal. Prints the median
   wall time of each, the difference (target: within 100 ms) and the peak
   RSS of the process on the big journal (``os.wait4``'s ``ru_maxrss``);
2. **queries**: the store's first page of each filter in this process
   (``SqliteJournalStore.page``, limit 50), median of R (target: < 50 ms);
3. **streams** (unless ``--no-streams``): ``--all --jsonl``, ``--all --json``
   and ``--export`` of the whole journal, once each: wall time, entries per
   second and peak RSS (target: < 100 MB at any size);
4. **whole commands in process**: each command of 1. run whole by
   ``bottui.cli.run`` in this process, big and empty interleaved, median of R:
   the same difference without Python's start-up, which on a loaded machine
   swings the figures of 1. by more than the target.

Keyring lookups are out of the picture (``keyring.backends.fail``): the
figures are the journal's. On a shared machine, compare the ratios of one
run (big and empty alternate), not absolute times across runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bottui.store.journal.journal_records import EntryId, EntryQuery, RunId  # noqa: E402
from bottui.store.journal.journal_store import SqliteJournalStore  # noqa: E402
from tests.bench import journal_data  # noqa: E402

NEWEST: Final = journal_data.NEWEST


def _iso(moment: object) -> str:
    return str(moment).replace("+00:00", "Z").replace(" ", "T")


def commands(n: int) -> list[tuple[str, list[str]]]:
    """(name, argv after ``bottui journal``) of every first-page command measured."""
    oldest = journal_data._oldest(n)
    middle = oldest + (NEWEST - oldest) / 2
    return [
        ("journal", []),
        ("--json", ["--json"]),
        ("--jsonl", ["--jsonl"]),
        ("--limit 20", ["--limit", "20"]),
        ("--limit 1000 --json", ["--limit", "1000", "--json"]),
        ("--before (middle)", ["--before", str(n // 2)]),
        ("--project (hot)", ["--project", journal_data.HOT_PROJECT]),
        ("--project (bulk)", ["--project", "proj-3" if n > 300_000 else "proj-0"]),
        ("--operation limiter", ["--operation", "limiter"]),
        ("--outcome failed --limit 20", ["--outcome", "failed", "--limit", "20"]),
        ("--outcome withdrawn", ["--outcome", "withdrawn"]),
        ("--unfinished", ["--unfinished"]),
        ("--since (last hour)", ["--since", _iso(NEWEST - timedelta(hours=1))]),
        ("--until (first hour)", ["--until", _iso(oldest + timedelta(hours=1))]),
        (
            "--since --until (an hour mid-way)",
            ["--since", _iso(middle), "--until", _iso(middle + timedelta(hours=1))],
        ),
        ("--run (oldest run)", ["--run", "2"]),
        ("--profile staging", ["--profile", "staging"]),
        (
            "--project --operation --outcome",
            [
                "--project",
                journal_data.HOT_PROJECT,
                "--operation",
                "thresholds",
                "--outcome",
                "ok",
            ],
        ),
    ]


def queries(n: int) -> list[tuple[str, EntryQuery]]:
    """(name, query) of the in-process first-page reads."""
    oldest = journal_data._oldest(n)
    middle = oldest + (NEWEST - oldest) / 2
    return [
        ("newest", EntryQuery()),
        ("before (middle)", EntryQuery(before=EntryId(n // 2))),
        ("project (hot)", EntryQuery(project=journal_data.HOT_PROJECT)),
        ("project (bulk)", EntryQuery(project="proj-3" if n > 300_000 else "proj-0")),
        ("operation limiter", EntryQuery(operation="limiter.set-active")),
        (
            "outcome failed",
            EntryQuery(
                outcomes=frozenset(
                    {
                        "api-error",
                        "network-error",
                        "unusable-body",
                        "refused",
                        "interrupted",
                        "not-sent",
                    }
                )
            ),
        ),
        ("outcome withdrawn", EntryQuery(outcomes=frozenset({"withdrawn"}))),
        ("unfinished", EntryQuery(unfinished=True)),
        ("since (last hour)", EntryQuery(since=NEWEST - timedelta(hours=1))),
        ("until (first hour)", EntryQuery(until=oldest + timedelta(hours=1))),
        ("since+until (mid-way)", EntryQuery(since=middle, until=middle + timedelta(hours=1))),
        ("run (oldest)", EntryQuery(run_id=RunId(2))),
        ("profile staging", EntryQuery(profile="staging")),
        ("profile prod, project (hot)", EntryQuery(profile="prod", project="shop-prod")),
    ]


@dataclass
class Run:
    """One process: wall seconds, peak RSS in MB, exit code."""

    wall: float
    rss_mb: float
    code: int


def run_bottui(state: Path, argv: list[str], home: Path) -> Run:
    """``python -m bottui journal ARGV`` with the journal under ``state``; stdout discarded."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOTTUI_")}
    env.update(
        XDG_STATE_HOME=str(state),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "bottui", "journal", *argv],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            print(f"  ! exit {proc.returncode}: {err.read().decode()[-300:]}", file=sys.stderr)
    return Run(wall, usage.ru_maxrss / 1024, proc.returncode)


def prepare(root: Path, n: int, reuse: bool) -> tuple[Path, Path]:
    """The state directories of the big and the empty journal (made unless reusable)."""
    big, empty = root / f"big-{n}" / "state", root / "empty" / "state"
    big_file, empty_file = (d / "bottui" / "journal.sqlite3" for d in (big, empty))
    mark = root / f"big-{n}" / "made"
    if not (reuse and mark.exists() and big_file.exists()):
        mark.unlink(missing_ok=True)
        started = time.perf_counter()
        # In a process of its own: a child forked from a big parent reports the
        # parent's size as its own peak RSS (ru_maxrss survives exec on Linux).
        made = subprocess.run(
            [sys.executable, "-m", "tests.bench.journal_data", str(big_file), str(n)],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        how = "sql" if " by sql " in made.stdout else "api"
        mark.write_text(how)
        print(f"made {n:,} entries by {how} in {time.perf_counter() - started:.0f} s")
    if not empty_file.exists():
        journal_data.make(empty_file, 0)
    size = sum(p.stat().st_size for p in big_file.parent.glob("journal.sqlite3*"))
    print(f"journal: {n:,} entries, {size / 1e6:,.0f} MB ({big_file})")
    return big, empty


def first_pages(n: int, big: Path, empty: Path, home: Path, repeat: int, only: list[str]) -> None:
    print(f"\n1. first pages: median of {repeat}, big and empty interleaved")
    print(f"{'command':40} {'big ms':>8} {'empty ms':>9} {'diff ms':>8} {'RSS MB':>7}")
    for name, argv in commands(n):
        if only and not any(word in name for word in only):
            continue
        runs: dict[str, list[Run]] = {"big": [], "empty": []}
        for i in range(repeat):
            order = (
                (("big", big), ("empty", empty)) if i % 2 == 0 else (("empty", empty), ("big", big))
            )
            for label, state in order:
                runs[label].append(run_bottui(state, argv, home))
        b = statistics.median(r.wall for r in runs["big"]) * 1000
        e = statistics.median(r.wall for r in runs["empty"]) * 1000
        rss = max(r.rss_mb for r in runs["big"])
        flag = "" if b - e <= 100 else "  > 100 ms"
        print(f"{name:40} {b:8.0f} {e:9.0f} {b - e:8.0f} {rss:7.1f}{flag}")


def in_process(n: int, big: Path, repeat: int) -> None:
    print(f"\n2. first-page queries in process (limit 50): median of {repeat} after one warm-up")
    print(f"{'query':32} {'ms':>8} {'entries':>8}")

    async def measure() -> None:
        store = SqliteJournalStore(big / "bottui" / "journal.sqlite3")
        try:
            for name, query in queries(n):
                times = []
                found = 0
                for _ in range(repeat + 1):
                    started = time.perf_counter()
                    page = await store.page(query, limit=50)
                    times.append((time.perf_counter() - started) * 1000)
                    found = len(page.entries)
                median = statistics.median(times[1:])
                flag = "" if median < 50 else "  >= 50 ms"
                print(f"{name:32} {median:8.1f} {found:8}{flag}")
        finally:
            await store.close()

    asyncio.run(measure())


def commands_in_process(
    n: int, big: Path, empty: Path, home: Path, repeat: int, only: list[str]
) -> None:
    """Each command run whole in this process (``bottui.cli.run``), big and empty
    interleaved: the journal's share without Python's start-up, which on a loaded
    machine swings the process figures of section 1 by more than 100 ms."""
    import contextlib
    import io

    from bottui.cli import run

    print(f"\n4. whole commands in process: median of {repeat} after one warm-up")
    print(f"{'command':40} {'big ms':>8} {'empty ms':>9} {'diff ms':>8}")
    os.environ.update(
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )
    for name, argv in commands(n):
        if only and not any(word in name for word in only):
            continue
        times: dict[Path, list[float]] = {big: [], empty: []}
        for i in range(repeat + 1):
            for state in (big, empty) if i % 2 == 0 else (empty, big):
                os.environ["XDG_STATE_HOME"] = str(state)
                sink = io.StringIO()
                started = time.perf_counter()
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    run(["journal", *argv])
                if i:
                    times[state].append((time.perf_counter() - started) * 1000)
        b, e = (statistics.median(times[state]) for state in (big, empty))
        flag = "" if b - e <= 100 else "  > 100 ms"
        print(f"{name:40} {b:8.1f} {e:9.1f} {b - e:8.1f}{flag}")


def streams(n: int, big: Path, home: Path, root: Path, which: list[str]) -> None:
    print("\n3. whole-journal streams, once each")
    print(f"{'command':28} {'s':>8} {'entries/s':>10} {'RSS MB':>7}")
    export = root / "export.jsonl"
    for key, name, argv in (
        ("jsonl", "--all --jsonl", ["--all", "--jsonl"]),
        ("json", "--all --json", ["--all", "--json"]),
        ("text", "--all (text)", ["--all"]),
        ("export", "--export F.jsonl", ["--export", str(export)]),
    ):
        if key not in which:
            continue
        run = run_bottui(big, argv, home)
        flag = "" if run.rss_mb < 100 else "  >= 100 MB"
        print(f"{name:28} {run.wall:8.1f} {n / run.wall:10,.0f} {run.rss_mb:7.1f}{flag}")
    export.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bottui-bench-journal"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reuse", action="store_true", help="keep a journal made before")
    parser.add_argument("--no-streams", action="store_true")
    parser.add_argument(
        "--streams", default="jsonl,json,text,export", help="which streams (comma-separated)"
    )
    parser.add_argument("--no-first-pages", action="store_true")
    parser.add_argument("--only", nargs="*", default=[], help="commands whose name has a word")
    args = parser.parse_args(argv)
    root: Path = args.dir
    root.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    big, empty = prepare(root, args.entries, args.reuse)
    home = root / "home"
    if not args.no_first_pages:
        first_pages(args.entries, big, empty, home, args.repeat, args.only)
        in_process(args.entries, big, args.repeat)
    if not args.no_streams:
        streams(args.entries, big, home, root, args.streams.split(","))
    if not args.no_first_pages:
        commands_in_process(args.entries, big, empty, home, args.repeat, args.only)
    print(f"\nload average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
