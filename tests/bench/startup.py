"""Start-up speed: time to the first frame in a real pseudo-terminal.

Runs, in the same session, the smallest possible Textual app (one Static)
and ``bottui demo``, each several times, and prints the median time from
spawning the process to the moment its first frame's text reaches the
terminal. Goal (issue #4): ``bottui demo`` within 1.3x of the smallest app.

    python tests/bench/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import signal
import statistics
import struct
import sys
import termios
import time

MINIMAL_APP = """
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("first-frame-marker")

Minimal().run()
"""

_ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")


def first_frame_seconds(argv: list[str], marker: bytes, timeout: float = 20.0) -> float:
    """Seconds from spawn until ``marker`` is on the terminal; the process is then killed."""
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30")
    env.pop("NO_COLOR", None)
    # A user's install has bytecode (pip compiles it; an editable install
    # writes it on first import). With PYTHONDONTWRITEBYTECODE set, as on some
    # CI machines, our editable sources would be compiled on every start while
    # Textual's (pip-compiled) would not: an unfair handicap, not start-up.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    seen = b""
    try:
        while True:
            remaining = timeout - (time.perf_counter() - started)
            if remaining <= 0:
                raise TimeoutError(f"no first frame from {argv} within {timeout} s")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                raise RuntimeError(f"{argv} exited before its first frame") from None
            seen += chunk
            if marker in _ANSI.sub(b"", seen):
                return time.perf_counter() - started
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    python = sys.executable
    cases = {
        "smallest Textual app": ([python, "-c", MINIMAL_APP], b"first-frame-marker"),
        "bottui demo": ([python, "-m", "bottui", "demo"], b"shop-prod"),
    }
    # Warm the OS page cache and .pyc files once, untimed.
    for argv, marker in cases.values():
        first_frame_seconds(argv, marker)
    results: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, (argv, marker) in cases.items():  # interleaved: same conditions
            results[name].append(first_frame_seconds(argv, marker))
    medians = {name: statistics.median(times) for name, times in results.items()}
    for name, times in results.items():
        print(
            f"{name:<22} median {medians[name] * 1000:7.0f} ms   "
            f"min {min(times) * 1000:5.0f}   max {max(times) * 1000:5.0f}   (n={len(times)})"
        )
    ratio = medians["bottui demo"] / medians["smallest Textual app"]
    print(f"ratio bottui demo / smallest app: {ratio:.2f} (goal <= 1.30)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
