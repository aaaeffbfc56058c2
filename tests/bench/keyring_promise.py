"""The keyring promise: a clear message within 5 s of the keyring call (not a test module).

Run from the repository root (pytest does not collect tests/bench)::

    python -m tests.bench.keyring_promise [--runs 3] [--start-delay 0]

Each command of tests/cli/test_keyring_failures.py runs in a child under
keyring's fail backend and under a backend that never answers (a D-Bus
activation that hangs). The child (:mod:`tests.fixtures.timed_cli`) records
when its first keyring call began and when its message was out, so
interpreter start-up on a busy machine is not charged to the keyring;
``--start-delay`` slows start-up on purpose to show it. Prints the worst of
each, the whole process's wall time beside it, and the margin left to 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bottui.sandbox.server import SandboxServer
from tests.fixtures.sandbox import scope

ROOT = Path(__file__).resolve().parents[2]
PROMISE_SECONDS = 5.0
BACKENDS = ("keyring.backends.fail.Keyring", "tests.fixtures.keyrings.BlockingKeyring")
COMMANDS = (
    ["revoke", *scope(), "--visitor-id", "v"],
    ["limiter", "enable", "rl-api", *scope()],
    ["token", "status", *scope()],
)


def one(base_url: str, backend: str, argv: list[str], delay: float) -> tuple[int, float, float]:
    """Exit code, seconds from the keyring call to the message, the child's wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        times = Path(tmp) / "times.json"
        env = {
            **os.environ,
            "HOME": tmp,
            "XDG_CONFIG_HOME": f"{tmp}/config",
            "XDG_DATA_HOME": f"{tmp}/data",
            "XDG_STATE_HOME": f"{tmp}/state",
            "BOTTUI_BASE_URL": base_url,
            "PYTHON_KEYRING_BACKEND": backend,
            "PYTHONPATH": str(ROOT),
            "BOTTUI_TEST_TIMES": str(times),
            "BOTTUI_TEST_START_DELAY": str(delay),
        }
        for var in ("BOTTUI_ACCESS_TOKEN", "BOTTUI_API_KEY", "BOTTUI_PROFILE"):
            env.pop(var, None)
        began = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "tests.fixtures.timed_cli", *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=ROOT,
        )
        wall = time.monotonic() - began
        recorded = json.loads(times.read_text(encoding="utf-8"))
        call = recorded["keyring_call"]
        return proc.returncode, (recorded["ended"] - call) if call else float("nan"), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--start-delay", type=float, default=0.0)
    options = parser.parse_args()
    with SandboxServer() as sandbox:
        for backend in BACKENDS:
            for argv in COMMANDS:
                samples = [
                    one(sandbox.base_url, backend, argv, options.start_delay)
                    for _ in range(options.runs)
                ]
                worst = max(s[1] for s in samples)
                wall = max(s[2] for s in samples)
                codes = sorted({s[0] for s in samples})
                name = " ".join(a for a in argv[:2] if not a.startswith("-"))
                print(
                    f"{backend.rsplit('.', 1)[0].rsplit('.', 1)[-1]:<10} {name:<16}"
                    f" exit {codes}  keyring call -> message: worst {worst:5.2f} s"
                    f" (margin {PROMISE_SECONDS - worst:5.2f} s)  whole process {wall:5.2f} s"
                )


if __name__ == "__main__":
    main()
