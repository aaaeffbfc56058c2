"""CLI start-up cost: ``bottui --version``, a plain parse, and the completion callback.

Run from the repository root (pytest does not collect tests/bench)::

    python tests/bench/cli_startup.py [--runs 41] [--base DIR]

Prints the median and quartiles of each, in milliseconds: whole processes
(``python -m bottui ...``, spawn to exit) and ``build_parser()`` plus one
``parse_args`` of a normal command (200 in one process, per sample). With
``--base DIR`` (another checkout, e.g. ``git worktree add DIR main``), each
sample runs there too, alternately, so a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROCESSES: dict[str, list[str]] = {
    "bottui --version": ["--version"],
    "bottui limiter enable --help": ["limiter", "enable", "--help"],
    "bottui __complete bash -- limiter enable ''": [
        "__complete",
        "bash",
        "--",
        "limiter",
        "enable",
        "",
    ],
}

PARSE = """
import time
from bottui.cli.parser import build_parser
build_parser()
start = time.perf_counter()
for _ in range(200):
    build_parser().parse_args(["limiter", "enable", "rl-1", "--account", "a", "--project", "p"])
print((time.perf_counter() - start) * 1000 / 200)
"""


def _quartiles(samples: list[float]) -> str:
    q1, median, q3 = statistics.quantiles(samples, n=4)
    return f"median {median:7.2f} ms  (q1 {q1:.2f}, q3 {q3:.2f})"


def _process(root: Path, words: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bottui", *words],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return (time.perf_counter() - start) * 1000


def _parse(root: Path) -> float:
    done = subprocess.run(
        [sys.executable, "-c", PARSE], cwd=root, capture_output=True, text=True, check=True
    )
    return float(done.stdout)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=41)
    options.add_argument("--base", type=Path, help="another checkout to compare with")
    parsed = options.parse_args()
    roots = {"this": ROOT} if parsed.base is None else {"this": ROOT, "base": parsed.base}
    jobs = {"build_parser + parse_args": _parse} | {
        label: (lambda root, words=words: _process(root, words))
        for label, words in PROCESSES.items()
    }
    for label, job in jobs.items():
        samples: dict[str, list[float]] = {name: [] for name in roots}
        for root in roots.values():
            job(root)  # warm the file cache
        for _ in range(parsed.runs):
            for name, root in roots.items():
                samples[name].append(job(root))
        for name in roots:
            print(f"{label:45} {name:5} {_quartiles(samples[name])}")


if __name__ == "__main__":
    main()
