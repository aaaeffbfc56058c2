"""Ctrl-C in the middle of a real ``python -m bottui revoke --from-file`` run, then
``--resume``: every id reaches the service exactly once over both runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bottui.sandbox.server import SandboxServer
from tests.bulk.conftest import logged, visitor_ids
from tests.fixtures.sandbox import scope

IDS = 600


def _start(path: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bottui",
            "revoke",
            "--from-file",
            str(path),
            *scope(),
            "--concurrency",
            "8",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def test_sigint_then_resume_sends_every_id_exactly_once(
    env: SandboxServer, ids_file: Callable[..., Path]
) -> None:
    path = ids_file([f"vis_sig_{n:04d}" for n in range(IDS)])
    env.faults.configure(latency=0.05)  # 8 in flight: about 160 requests a second
    first = _start(path)
    try:
        deadline = time.monotonic() + 120
        while env.stats.requests < 80:
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the run did not start"
            time.sleep(0.01)
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 130, err
    assert "stopping: finishing the" in err
    assert "interrupted:" in out and "--resume" in out
    assert "Traceback" not in err
    sent_first = env.stats.requests
    assert 80 <= sent_first < IDS

    second = _start(path, "--resume", "--json")
    out, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    summary = json.loads(out)
    assert summary["skipped"] == sent_first
    assert summary["nothingStanding"] == IDS - sent_first

    counts = Counter(visitor_ids(logged(env)))
    assert len(counts) == IDS
    assert set(counts.values()) == {1}, [v for v, n in counts.items() if n != 1]
