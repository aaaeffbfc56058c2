"""A change made while the team store never answers: what the bounded push costs.

Run from the repository root (pytest does not collect tests/bench)::

    python -m tests.bench.outbox_cut [--runs 3]

tests/team/test_outbox.py checks that a command facing a store that accepts
the connection and never answers ends with its change made and its warnings
(the push cut at ``EXIT_BUDGET``, 5 s). This measures whole
``python -m bottui limiter disable`` processes against such a store, beside
the same command without a store in the same run (the baseline).
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

from bottui.ops.team_push import EXIT_BUDGET
from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_PROJECT_TOKENS
from bottui.sandbox.server import SandboxServer
from tests.fixtures.sandbox import PROJ, scope

ROOT = Path(__file__).resolve().parents[2]


def run(base_url: str, store_url: str | None) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "HOME": tmp,
            "XDG_CONFIG_HOME": f"{tmp}/config",
            "XDG_DATA_HOME": f"{tmp}/data",
            "XDG_STATE_HOME": f"{tmp}/state",
            "BOTTUI_BASE_URL": base_url,
            "BOTTUI_ACCESS_TOKEN": DEMO_ACCESS_TOKEN,
            "BOTTUI_API_KEY": DEMO_PROJECT_TOKENS[PROJ],
        }
        env.pop("BOTTUI_STORE_URL", None)
        if store_url is not None:
            env["BOTTUI_STORE_URL"] = store_url
        began = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "bottui", "limiter", "disable", "rl-login", *scope()],
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
    with socket.socket() as hole, SandboxServer() as sandbox:
        hole.bind(("127.0.0.1", 0))
        hole.listen(8)
        cut = f"postgresql://bottui@127.0.0.1:{hole.getsockname()[1]}/bottui"
        base = [run(sandbox.base_url, None) for _ in range(runs)]
        cuts = [run(sandbox.base_url, cut) for _ in range(runs)]
    print(f"no store           median {statistics.median(base):5.2f} s  worst {max(base):5.2f} s")
    print(
        f"store never answers median {statistics.median(cuts):5.2f} s  worst {max(cuts):5.2f} s"
        f"  (push budget {EXIT_BUDGET:g} s; extra over baseline"
        f" {statistics.median(cuts) - statistics.median(base):5.2f} s)"
    )


if __name__ == "__main__":
    main()
