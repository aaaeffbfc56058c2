"""Many processes writing one journal at once, under CPU load: the scenario and its children.

Issue #11, fault 1: the TUI and a CLI bulk run (or several CLI commands) on
one laptop write the same journal file. Every process must get its records
in, however long another holds the write lock, and none may fall back to
"not journaled". :func:`run_scenario` starts, all against one file:

* ``writers`` processes making ``changes`` single changes each, journaled as
  ``bottui.ops.mutations`` journals them (``Journal.start`` before the
  request, ``Journal.finish`` after, one durable commit each; a
  ``JournalUnavailable`` becomes the same "NOT journaled" warning). The
  last of them opens and closes the journal for each change, as a CLI
  command per change would; the others keep theirs open, as a TUI does;
* one bulk run of ``bulk_ids`` ids journaled through the bulk run's sink
  (``bottui.ops.bulk.journaling.JournalSink``: the run, started records per
  chunk, outcomes pumped in batches), driven directly, without HTTP;
* one CPU-burning process per core (``os.cpu_count()``), killed at the end.

Every child reports one JSON line: what it wrote, its warnings, and the
journal's lock statistics (``Journal.lock_stats``). The test
(``test_journal_processes.py``) and the benchmark
(``tests/bench/journal_contention.py``) both use it. A child runs as
``python -m tests.store.journal_contention ROLE ...`` from the repository root.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PROFILE = "prod"
BASE_URL = "https://api.example.com"
ACCOUNT = "acc"
PROJECT = "p1"
BULK_CHUNK = 64  # the bulk run's default chunk: one started-record transaction per chunk


def _stats(journal: Any) -> dict[str, Any]:
    """The journal's lock statistics, or nothing on a bottui that has none."""
    stats = getattr(journal, "lock_stats", None)
    return stats.as_dict() if stats is not None else {}


def _merged(stats: list[dict[str, Any]]) -> dict[str, Any]:
    """The lock statistics of several journal objects, as if of one."""
    if not stats:
        return {}
    return {
        key: (max if key.startswith("max_") else sum)(s[key] for s in stats) for key in stats[0]
    }


def single_changes(path: Path, name: str, count: int, reopen: bool) -> dict[str, Any]:
    """``count`` single changes, journaled the way ``ops.mutations`` does it.

    ``reopen``: a new ``Journal`` per change, closed after it, as a CLI command
    per change would (each close may checkpoint and remove the WAL, each open
    may find it being recovered); otherwise one for all, as the TUI keeps it.
    """
    from bottui.store.journal.journal_file import Journal
    from bottui.store.journal.journal_records import Operation, Outcome
    from bottui.store.store_errors import JournalUnavailable

    journal = Journal(path, operator=f"{name}@test")
    stats: list[dict[str, Any]] = []
    warnings: list[str] = []
    journaled = 0
    for n in range(count):
        if reopen and n:
            stats.append(_stats(journal))
            journal.close()
            journal = Journal(path, operator=f"{name}@test")
        try:
            entry_id: int | None = journal.start(
                profile=PROFILE,
                base_url=BASE_URL,
                operation=Operation.REVOKE_GRANT,
                account=ACCOUNT,
                project=PROJECT,
                target={"writer": name, "n": n},
                request_body={"subject": {"visitorId": f"{name}-{n}"}},
            )
        except JournalUnavailable as exc:
            warnings.append(f"this change is NOT journaled: {exc.title}. {exc.details}")
            entry_id = None
        # (the request would be sent here)
        if entry_id is None:
            continue
        try:
            journal.finish(entry_id, outcome=Outcome.WITHDRAWN, status=200, duration_ms=1.0)
            journaled += 1
        except JournalUnavailable as exc:
            warnings.append(f"the outcome is NOT journaled: {exc.title}. {exc.details}")
    stats.append(_stats(journal))
    journal.close()
    return {"journaled": journaled, "warnings": warnings, "lock": _merged(stats)}


async def bulk_run(root: Path, count: int) -> dict[str, Any]:
    """A bulk run of ``count`` ids, journaled through the bulk run's journal sink."""
    from bottui.ops.bulk.journaling import JournalSink
    from bottui.ops.session import Session, Settings
    from bottui.store.files import Locations
    from bottui.store.journal.journal_records import Operation, Outcome, StartRecord
    from bottui.store.keyring_tokens import TokenStore

    session = Session(
        Locations.under(root),
        Settings(profile_name=PROFILE, base_url=BASE_URL),
        TokenStore(environ={}),
    )
    sink = JournalSink(session)
    await sink.open(
        account=ACCOUNT,
        project=PROJECT,
        input_sha256="b" * 64,
        operation=Operation.REVOKE_GRANT,
        resume=False,
    )
    journaled = 0
    try:
        for first in range(0, count, BULK_CHUNK):
            numbers = range(first, min(first + BULK_CHUNK, count))
            records = [
                StartRecord(
                    profile=PROFILE,
                    base_url=BASE_URL,
                    operation=Operation.REVOKE_GRANT,
                    account=ACCOUNT,
                    project=PROJECT,
                    target={"visitorId": f"bulk-{n}"},
                    request_body={"subject": {"visitorId": f"bulk-{n}"}},
                    run_id=sink.run_id,
                    item_key=f"{n:064x}",
                )
                for n in numbers
            ]
            ids = await sink.start(records)
            if ids is None:
                continue
            await asyncio.sleep(0)  # (the chunk's requests would be sent here)
            for entry_id in ids:
                sink.finish(entry_id, outcome=Outcome.WITHDRAWN.value, status=200, duration_ms=1.0)
                journaled += 1
    finally:
        await sink.close()
    stats = _stats(session.journal_store)
    await session.aclose()
    return {"journaled": journaled, "warnings": session.take_warnings(), "lock": stats}


def burn() -> None:
    """Keep one core busy until killed."""
    while True:
        pass


def _child(argv: list[str]) -> None:
    role = argv[0]
    if role == "burn":
        burn()
    print("ready", flush=True)
    sys.stdin.readline()  # "go": every writer starts at once
    began = time.monotonic()
    if role == "single":
        report = single_changes(Path(argv[1]), argv[2], int(argv[3]), argv[4] == "reopen")
    else:
        report = asyncio.run(bulk_run(Path(argv[1]), int(argv[2])))
    report["seconds"] = time.monotonic() - began
    print(json.dumps(report), flush=True)


@dataclass
class ChildReport:
    """What one writer process said and how it ended."""

    name: str
    returncode: int
    stderr: str
    report: dict[str, Any] = field(default_factory=dict)


@dataclass
class ScenarioResult:
    """The children's reports and the scenario's wall time (from "go" to the last exit)."""

    children: list[ChildReport]
    seconds: float
    journal: Path
    burners: int


@contextlib.contextmanager
def cpu_burners(count: int | None = None) -> Iterator[int]:
    """A process burning CPU per core (or ``count``) for the block; yields how many."""
    if count is None:
        count = os.cpu_count() or 1
    hogs = [_spawn("burn") for _ in range(count)]
    try:
        yield count
    finally:
        for hog in hogs:
            hog.kill()
            hog.communicate()


def _spawn(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store.journal_contention", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def run_scenario(
    root: Path,
    *,
    writers: int = 4,
    changes: int = 500,
    bulk_ids: int = 10_000,
    burners: int | None = None,
    timeout: float = 600.0,
) -> ScenarioResult:
    """Run every writer at once against ``root``'s journal, with a burner per core."""
    from bottui.store.files import Locations

    path = Locations.under(root).journal_file
    named: list[tuple[str, subprocess.Popen[str]]] = []
    with contextlib.ExitStack() as stack:
        burners = stack.enter_context(cpu_burners(burners))
        stack.callback(_kill, named)
        for n in range(writers):
            # The last one opens the journal per change (CLI commands), the others once (TUIs).
            how = "reopen" if n == writers - 1 else "keep"
            named.append((f"w{n}", _spawn("single", str(path), f"w{n}", str(changes), how)))
        if bulk_ids:
            named.append(("bulk", _spawn("bulk", str(root), str(bulk_ids))))
        for name, child in named:
            assert child.stdout is not None
            line = child.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"{name} did not start: {line!r} {child.communicate()[1]}")
        began = time.monotonic()
        for _, child in named:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        reports: list[ChildReport] = []
        for name, child in named:
            out, err = child.communicate(timeout=timeout)
            lines = out.strip().splitlines()
            report = json.loads(lines[-1]) if child.returncode == 0 and lines else {}
            reports.append(ChildReport(name, child.returncode, err, report))
        seconds = time.monotonic() - began
    return ScenarioResult(reports, seconds, path, burners)


def _kill(named: list[tuple[str, subprocess.Popen[str]]]) -> None:
    """End the writers still running (after a failure)."""
    for _, child in named:
        if child.poll() is None:
            child.kill()
            child.communicate()


if __name__ == "__main__":
    _child(sys.argv[1:])
