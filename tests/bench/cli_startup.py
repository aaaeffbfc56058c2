"""CLI start-up cost: ``bottui --version``, a plain parse, and the completion callback.

Run from the repository root (pytest does not collect tests/bench)::

    python tests/bench/cli_startup.py [--runs 41]

Prints the median and the quartiles of each, in milliseconds: whole
processes (``python -m bottui ...``, spawn to exit) and, in this process,
``build_parser()`` plus one ``parse_args`` of a normal command.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PROCESSES: dict[str, list[str]] = {
    "bottui --version": ["--version"],
    "bottui limiter enable --help": ["limiter", "enable", "--help"],
    "bottui __complete bash -- limiter ''": ["__complete", "bash", "--", "limiter", ""],
}


def _quartiles(samples: list[float]) -> str:
    q1, median, q3 = statistics.quantiles(samples, n=4)
    return f"median {median:7.2f} ms  (q1 {q1:.2f}, q3 {q3:.2f})"


def _process(words: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bottui", *words],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return (time.perf_counter() - start) * 1000


def _parse_once() -> float:
    from bottui.cli.parser import build_parser

    start = time.perf_counter()
    build_parser().parse_args(["limiter", "enable", "rl-1", "--account", "a", "--project", "p"])
    return (time.perf_counter() - start) * 1000


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=41)
    runs = options.parse_args().runs
    _parse_once()  # imports, once, outside the samples
    print(f"{'build_parser + parse_args':40} {_quartiles([_parse_once() for _ in range(runs)])}")
    for label, words in PROCESSES.items():
        _process(words)  # warm the file cache
        samples = [_process(words) for _ in range(runs)]
        print(f"{label:40} {_quartiles(samples)}")


if __name__ == "__main__":
    main()
