"""The sandbox in a process of its own, for the benchmarks (not a test module).

``Sandbox(latency)`` starts ``python -m bottui sandbox --port 0 --latency L``,
waits until it answers, and offers its control endpoints (``/_sandbox/...``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


class Sandbox:
    """The sandbox in its own process, with its control endpoints."""

    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bottui", "sandbox", "--port", "0", "--latency", str(latency)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            found = re.search(r"serving at (http://\S+)", line)
            if found:
                self.base_url = found.group(1)
                break
        else:
            raise RuntimeError("the sandbox did not start")
        deadline = time.monotonic() + 10
        while True:  # the banner comes before uvicorn listens
            try:
                self.stats()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def control(self, method: str, path: str) -> Any:
        request = urllib.request.Request(self.base_url + path, method=method, data=b"")
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def reset(self) -> None:
        self.control("POST", "/_sandbox/reset")

    def stats(self) -> dict[str, int]:
        stats: dict[str, int] = self.control("GET", "/_sandbox/stats")
        return stats

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
