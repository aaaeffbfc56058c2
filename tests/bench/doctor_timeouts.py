"""What ``bottui doctor`` costs when something does not answer (not a test module).

Run from the repository root (pytest does not collect tests/bench)::

    python -m tests.bench.doctor_timeouts [--runs 3]

The tests check that each slow thing is cut by its timeout and said so
(tests/cli/test_doctor*.py); the time it costs is measured here, whole
``python -m bottui doctor --json`` processes: a dead port, a listener that
never answers (the 4 s API timeout), a keyring that never answers (3 s), an
unreachable team store (3 s). Printed beside each: the process's start-up
(``bottui --version``) in the same run, as a baseline.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bottui.ops.doctor import DEFAULT_TIMEOUTS
from bottui.sandbox.server import SandboxServer
from tests.fixtures.sandbox import scope

ROOT = Path(__file__).resolve().parents[2]


def run(argv: list[str], extra: dict[str, str]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "HOME": tmp,
            "XDG_CONFIG_HOME": f"{tmp}/config",
            "XDG_DATA_HOME": f"{tmp}/data",
            "XDG_STATE_HOME": f"{tmp}/state",
            "PYTHONPATH": str(ROOT),
            **extra,
        }
        began = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "bottui", *argv],
            capture_output=True,
            env=env,
            cwd=ROOT,
            timeout=300,
            check=False,
        )
        return time.monotonic() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    t = DEFAULT_TIMEOUTS
    with socket.socket() as dead:
        dead.bind(("127.0.0.1", 0))
        dead_port = dead.getsockname()[1]
    with socket.socket() as mute, SandboxServer() as sandbox:
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)
        cases = [
            ("start-up (bottui --version)", None, ["--version"], {}),
            (
                "dead port",
                None,
                ["doctor", "--json", "--base-url", f"http://127.0.0.1:{dead_port}"],
                {},
            ),
            (
                "API never answers",
                t.api,
                ["doctor", "--json", "--base-url", f"http://127.0.0.1:{mute.getsockname()[1]}"],
                {},
            ),
            (
                "keyring never answers",
                t.keyring,
                ["doctor", "--json", "--base-url", sandbox.base_url, *scope()],
                {"PYTHON_KEYRING_BACKEND": "tests.fixtures.keyrings.BlockingKeyring"},
            ),
            (
                "team store unreachable",
                t.store,
                ["doctor", "--json", "--base-url", sandbox.base_url, *scope()],
                {"BOTTUI_STORE_URL": "postgresql://bottui@127.0.0.1:9/bottui"},
            ),
        ]
        for name, timeout, argv, extra in cases:
            samples = [run(argv, extra) for _ in range(runs)]
            budget = "" if timeout is None else f"  (timeout {timeout:g} s + margin {t.margin:g} s)"
            print(
                f"{name:<28} median {statistics.median(samples):5.2f} s"
                f"  worst {max(samples):5.2f} s{budget}"
            )


if __name__ == "__main__":
    main()
