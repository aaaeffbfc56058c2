"""Several processes writing one journal under CPU load: the worst wait for the write lock.

Run it as a script (pytest does not collect tests/bench)::

    python tests/bench/journal_contention.py [--writers 4] [--changes 500] [--bulk 10000]
                                             [--burners N] [--repeat 3] [--dir DIR]

Each round is the scenario of issue #11, fault 1 (the same as
``test_four_writers_and_a_bulk_run_under_cpu_load_lose_nothing``, see
``tests/store/journal_contention.py``): ``--writers`` processes making
``--changes`` single changes each (``Journal.start`` + ``Journal.finish``, one
durable commit each), one bulk run of ``--bulk`` ids through the bulk run's
journal sink, and a CPU-burning process per core, all on one new journal.

It prints, per round: the worst wait for the write lock of any write
(``Journal.lock_stats.max_wait``: from the first ``BEGIN IMMEDIATE`` attempt
to the lock taken, retries included) by kind of writer, the mean wait, the
longest hold (lock taken to ``COMMIT`` returned), retries and timeouts, what
was lost (entries missing or unfinished, "NOT journaled" warnings), and the
throughput: journal entries (started + outcome) per second of wall time,
and committed transactions per second.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bottui.store.journal.journal_file import Journal  # noqa: E402
from tests.bench.journal import file_system  # noqa: E402
from tests.store.journal_contention import ScenarioResult, run_scenario  # noqa: E402


def summarize(result: ScenarioResult, expected: int) -> dict[str, float]:
    """Print one round's figures; return the headline ones."""
    lost = expected
    unfinished = 0
    if result.journal.exists():
        with Journal(result.journal) as journal:
            entries = journal.entries()
        lost = expected - len(entries)
        unfinished = sum(1 for e in entries if e.unfinished)
    failed = [c.name for c in result.children if c.returncode != 0]
    warnings = sum(len(c.report.get("warnings", [])) for c in result.children)
    stats = {c.name: c.report.get("lock", {}) for c in result.children if c.report}
    singles = [s for name, s in stats.items() if name != "bulk"]
    bulk = stats.get("bulk", {})
    writes = sum(s.get("writes", 0) for s in stats.values())
    waited = sum(s.get("total_wait", 0.0) for s in stats.values())
    worst = max((s.get("max_wait", 0.0) for s in stats.values()), default=0.0)
    worst_single = max((s.get("max_wait", 0.0) for s in singles), default=0.0)
    hold = max((s.get("max_hold", 0.0) for s in stats.values()), default=0.0)
    print(
        f"  worst wait for the write lock: {worst * 1000:.0f} ms "
        f"(single changes {worst_single * 1000:.0f} ms, "
        f"bulk run {bulk.get('max_wait', 0.0) * 1000:.0f} ms); "
        f"mean {waited / max(writes, 1) * 1000:.2f} ms over {writes} writes; "
        f"longest hold {hold * 1000:.0f} ms"
    )
    print(
        f"  retries {sum(s.get('retries', 0) for s in stats.values())}, "
        f"timeouts {sum(s.get('timeouts', 0) for s in stats.values())}, "
        f"lost {lost}, unfinished {unfinished}, 'NOT journaled' warnings {warnings}, "
        f"failed processes {failed or 0}"
    )
    print(
        f"  throughput: {expected} entries in {result.seconds:.2f} s = "
        f"{expected / result.seconds:,.0f} entries/s; {writes / result.seconds:,.0f} commits/s "
        f"(with {result.burners} CPU burner(s))"
    )
    return {"worst": worst, "seconds": result.seconds, "lost": lost + unfinished + warnings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--changes", type=int, default=500)
    parser.add_argument("--bulk", type=int, default=10_000)
    parser.add_argument("--burners", type=int, default=None, help="default: os.cpu_count()")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    expected = args.writers * args.changes + args.bulk
    base = args.dir or Path(tempfile.gettempdir())
    print(f"journals under {base}: {file_system(base)}")
    print(f"{args.writers} writers x {args.changes} single changes + a bulk run of {args.bulk} ids")
    rounds = []
    for n in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="bottui-contention-", dir=args.dir) as tmp:
            print(f"round {n + 1}:")
            result = run_scenario(
                Path(tmp),
                writers=args.writers,
                changes=args.changes,
                bulk_ids=args.bulk,
                burners=args.burners,
            )
            rounds.append(summarize(result, expected))
    worst = max(r["worst"] for r in rounds)
    print(
        f"over {len(rounds)} rounds: worst wait {worst * 1000:.0f} ms; "
        f"wall time {min(r['seconds'] for r in rounds):.2f}-"
        f"{max(r['seconds'] for r in rounds):.2f} s; "
        f"lost or not journaled: {sum(int(r['lost']) for r in rounds)}"
    )


if __name__ == "__main__":
    main()
