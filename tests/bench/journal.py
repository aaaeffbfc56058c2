"""What journaling costs: one durable single change, and one id of a bulk run.

Run it as a script (pytest does not collect tests/bench)::

    python tests/bench/journal.py [--dir DIR] [--single N] [--bulk N] [--repeat N]

It prints, in microseconds:

* a single change: ``Journal.start`` + ``Journal.finish``, each committed
  with ``synchronous=FULL`` (one fsync of the WAL each) -- goal under 1 ms;
* a bulk id: ``BatchWriter.start_many`` (chunks of 256) + ``finish``, one
  ``synchronous=NORMAL`` transaction per batch, ``close()`` included -- goal
  under 20 us;
* the same with ``BatchWriter.record`` (started+outcome written together).

The figures depend on the disk under ``--dir`` (default: a temporary
directory; the file system is printed with them) and on what else runs:
fsync stalls show in the single change's mean and p95, which is why its
median is the headline; CPU time is shown next to the bulk wall times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bottui.store.journal.journal_file import Journal  # noqa: E402
from bottui.store.journal.journal_records import Operation, StartRecord  # noqa: E402

BASE_URL = "https://api.example.com"


def file_system(path: Path) -> str:
    """The mount holding ``path`` and its type, from /proc/mounts (Linux)."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return "unknown"
    best = ("", "unknown")
    resolved = str(path.resolve())
    for line in mounts:
        parts = line.split()
        if len(parts) >= 3 and resolved.startswith(parts[1]) and len(parts[1]) > len(best[0]):
            best = (parts[1], parts[2])
    return f"{best[1]} (mounted on {best[0]})"


def single_change(journal: Journal, n: int) -> None:
    entry_id = journal.start(
        profile="prod",
        base_url=BASE_URL,
        operation=Operation.SET_LIMITER_ACTIVE,
        account="acc-1",
        project="proj-1",
        target={"rate_limiter_id": f"rl-{n}"},
        request_body={"isActive": bool(n % 2)},
        previous={"isActive": not n % 2},
    )
    journal.finish(
        entry_id,
        outcome="ok",
        status=200,
        result={"isActive": bool(n % 2), "source": "response"},
        duration_ms=42.0,
    )


def bulk_record(n: int, run_id: int) -> StartRecord:
    subject = {"visitorId": f"visitor-{n:08d}"}
    return StartRecord(
        profile="prod",
        base_url=BASE_URL,
        operation=Operation.REVOKE_GRANT,
        account="acc-1",
        project="proj-1",
        target=subject,
        request_body={"subject": subject},
        run_id=run_id,
    )


def bench_single(directory: Path, count: int) -> list[float]:
    journal = Journal(directory / "single.sqlite3")
    single_change(journal, -1)  # open and create the schema outside the timing
    times = []
    for n in range(count):
        began = time.perf_counter()
        single_change(journal, n)
        times.append((time.perf_counter() - began) * 1e6)
    journal.close()
    return times


def bench_bulk(directory: Path, count: int, name: str, mode: str) -> tuple[float, float]:
    journal = Journal(directory / f"{name}.sqlite3")
    run_id = journal.run(
        profile="prod", account="acc-1", project="proj-1", input_sha256="0" * 64,
        operation=Operation.REVOKE_GRANT,
    )  # fmt: skip
    records = [bulk_record(n, run_id) for n in range(count)]
    result = {"revoked": True, "reportId": "r-1", "outcome": "withdrawn"}
    began, cpu = time.perf_counter(), time.process_time()
    with journal.batch(batch_size=256, interval=0.5) as batch:
        if mode == "start_many":
            for first in range(0, count, 256):
                ids = batch.start_many(records[first : first + 256])
                for entry_id in ids:
                    batch.finish(
                        entry_id, outcome="withdrawn", status=200, result=result, duration_ms=30.0
                    )
        else:
            for record in records:
                batch.record(
                    record, outcome="withdrawn", status=200, result=result, duration_ms=30.0
                )
    elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
    assert len(journal.entries(run_id=run_id, outcome="withdrawn")) == count
    journal.close()
    return elapsed * 1e6 / count, cpu * 1e6 / count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, help="where to put the databases (default: a temp dir)")
    parser.add_argument("--single", type=int, default=300, help="single changes to time")
    parser.add_argument("--bulk", type=int, default=20000, help="bulk ids to time")
    parser.add_argument("--repeat", type=int, default=3, help="bulk runs (the median is shown)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bottui-bench-") as tmp:
        directory = Path(tmp)
        print(f"databases in {directory}: {file_system(directory)}")
        print(f"python {sys.version.split()[0]}, sqlite {__import__('sqlite3').sqlite_version}")

        times = bench_single(directory, args.single)
        times.sort()
        p95 = times[int(len(times) * 0.95)]
        report(
            f"single durable change (start + finish, synchronous=FULL), n={args.single}",
            statistics.median(times),
            1000.0,
            f"median; mean {statistics.mean(times):.0f} us, p95 {p95:.0f} us",
        )
        for mode, label in (("start_many", "start_many + finish"), ("record", "record")):
            runs = [
                bench_bulk(directory, args.bulk, f"{mode}-{n}", mode) for n in range(args.repeat)
            ]
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            report(
                f"bulk id, batched ({label}, 256 per transaction, synchronous=NORMAL), "
                f"n={args.bulk} x {args.repeat}",
                wall,
                20.0,
                f"median of {args.repeat} runs; CPU time {cpu:.1f} us",
            )
    return 0


def report(label: str, micros: float, goal: float, extra: str = "") -> None:
    verdict = "ok" if micros < goal else "OVER GOAL"
    tail = f"; {extra}" if extra else ""
    print(f"{label}: {micros:.1f} us (goal < {goal:g} us: {verdict}){tail}")


if __name__ == "__main__":
    raise SystemExit(main())
