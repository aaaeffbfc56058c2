"""#10.15: one live run per input; ``--force`` starts a run of its own.

Real processes: the first run is held in flight by the sandbox's ``hold``;
a second run of the same input is refused (exit 2) naming the live one's
pid and host; ``--force`` runs with its own run id; a SIGKILLed holder
never blocks the ``--resume`` that follows.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from bottui.ops.bulk.journaling import run_key
from bottui.sandbox.server import SandboxServer
from bottui.store import files
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from tests.bulk.conftest import logged, visitor_ids
from tests.fixtures.sandbox import scope

IDS = 20


@pytest.fixture
def ids_path(tmp_path: Path) -> Path:
    path = tmp_path / "ids.txt"
    path.write_text("".join(f"vis_l{n:03d}\n" for n in range(IDS)), encoding="utf-8")
    return path


def start(path: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bottui", "revoke", "--from-file", str(path), *scope(), *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def finish(proc: subprocess.Popen[str], timeout: float = 300) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def test_second_run_of_a_live_input_is_refused_and_force_runs_its_own(
    env: SandboxServer, ids_path: Path
) -> None:
    env.faults.hold_requests()
    first = start(ids_path, "--json", "--concurrency", "2")
    try:
        assert env.faults.wait_until_held(2, timeout=60)
        code, out, err = finish(start(ids_path, "--json"))
        assert code == 2, err
        assert f"pid {first.pid} on {socket.gethostname()}" in err
        assert "--force" in err and "Traceback" not in err
        assert json.loads(out)["error"]["message"].startswith("Another run of this input is live")
        held_before = env.stats.requests
        forced = start(ids_path, "--json", "--force", "--concurrency", "2")
        assert env.faults.wait_until_held(4, timeout=60)
    finally:
        env.faults.release()
    code_first, out_first, err_first = finish(first)
    code_forced, out_forced, err_forced = finish(forced)
    assert (code_first, code_forced) == (0, 0), err_first + err_forced
    first_doc, forced_doc = json.loads(out_first), json.loads(out_forced)
    assert first_doc["runId"] != forced_doc["runId"]  # a run of its own
    assert first_doc["total"] == forced_doc["total"] == IDS
    # A request held past the client's read timeout (10 s: the refused run starting slowly
    # on a busy machine) has an unknown outcome and is sent again (a revocation is
    # idempotent); each run counts such ids as "unknownRetried". Every id was sent by
    # both runs, and more than twice only if a run says it retried that many ids.
    retried = first_doc["unknownRetried"] + forced_doc["unknownRetried"]
    sent = Counter(visitor_ids(logged(env)))
    assert sorted(sent) == [f"vis_l{n:03d}" for n in range(IDS)]
    assert min(sent.values()) == 2  # each run sent each id
    assert len([n for n in sent.values() if n > 2]) <= retried
    # The refused run sent nothing (had it run, every id would have been sent 3 times).
    assert held_before <= 2 or first_doc["unknownRetried"] > 0
    # Once the live run ended, the same input runs again without --force.
    code, _, err = finish(start(ids_path, "--resume", "--json"))
    assert code == 0, err


def test_a_sigkilled_run_never_blocks_its_resume(env: SandboxServer, ids_path: Path) -> None:
    env.faults.hold_requests()
    first = start(ids_path, "--concurrency", "3")
    try:
        assert env.faults.wait_until_held(3, timeout=60)
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=300)
    finally:
        env.faults.release()
    assert first.returncode == -signal.SIGKILL
    with Journal.at(Locations.default()) as journal:
        unfinished = journal.entries(unfinished=True)
    assert unfinished  # it was cut off mid-run
    run_id = unfinished[0].run_id
    code, out, err = finish(start(ids_path, "--resume", "--json"))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["runId"] == run_id and doc["total"] == IDS


def test_force_and_resume_exclude_each_other(env: SandboxServer, ids_path: Path) -> None:
    code, _, err = finish(start(ids_path, "--resume", "--force"))
    assert code == 2 and "--force" in err
    assert env.stats.requests == 0


def test_lock_in_process_is_exclusive_and_released(tmp_path: Path) -> None:
    key = run_key("p", "acc", "proj", "a" * 64)
    held = files.acquire_run_lock(tmp_path, key)
    assert held is not None
    held.note_run(7)
    with pytest.raises(files.RunLive) as live:
        files.acquire_run_lock(tmp_path, key)
    assert live.value.holder["pid"] == os.getpid() and live.value.holder["runId"] == 7
    other = files.acquire_run_lock(tmp_path, run_key("p", "acc", "proj", "b" * 64))
    assert other is not None  # another input: its own lock
    other.release()
    held.release()
    again = files.acquire_run_lock(tmp_path, key)
    assert again is not None
    again.release()
