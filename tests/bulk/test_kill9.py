"""#12: a run killed with SIGKILL mid-run, then ``--resume``: real processes.

With latency at the sandbox, answers are in flight and outcomes wait in
memory for their batch when the run is killed: their entries stay
unfinished. The resume sends those ids again and reports each "unknown
(retried)" (per id and in the summary), skips the settled ones, and leaves
no entry of the run unfinished (each gets its closing record).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from tests.fixtures.sandbox import scope

IDS = 3000


def start(path: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bottui", "revoke", "--from-file", str(path), *scope(), *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def test_kill9_then_resume_reports_lost_outcomes_and_closes_every_entry(
    env: SandboxServer, tmp_path: Path
) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("".join(f"vis_k{n:05d}\n" for n in range(IDS)), encoding="utf-8")
    env.faults.configure(latency=0.05)
    first = start(path, "--concurrency", "32")
    deadline = time.monotonic() + 90
    while env.stats.requests < 600 and first.poll() is None:  # well into the run
        assert time.monotonic() < deadline, "the run did not get going"
        time.sleep(0.01)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=300)
    assert first.returncode == -signal.SIGKILL

    with Journal.at(Locations.default()) as journal:
        entries = journal.entries()
    lost = {e.target["visitorId"] for e in entries if e.unfinished}
    settled = {e.target["visitorId"] for e in entries if e.outcome == "nothing-standing"}
    assert lost and settled  # cut off mid-run: some answers written, some lost
    run_id = entries[0].run_id

    env.faults.configure(latency=0)
    results = tmp_path / "results.jsonl"
    second = start(path, "--resume", "--json", "--output", str(results))
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    summary = json.loads(out)
    assert summary["runId"] == run_id and summary["total"] == IDS
    assert summary["unknown"] == summary["unknownRetried"] == len(lost)  # never "withdrawn"
    assert summary["skipped"] == len(settled)
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    outcome = {row["visitorId"]: row["outcome"] for row in rows}
    assert len(outcome) == IDS
    assert {outcome[v] for v in lost} == {"unknown (retried)"}
    assert {outcome[v] for v in settled} == {"skipped"}
    rest = set(outcome) - lost - settled
    assert {outcome[v] for v in rest} <= {"nothing was standing"}

    with Journal.at(Locations.default()) as journal:
        after = journal.entries(run_id=run_id)
    assert [e.id for e in after if e.unfinished] == []  # every entry closed
    closed = [e for e in after if e.outcome == "superseded"]
    assert len(closed) == len(lost)
    newer = {e.id: e for e in after}
    for entry in closed:
        assert newer[entry.result["supersededBy"]].outcome == "unknown-retried"
