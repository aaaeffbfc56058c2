"""The in-process sandbox's start and stop, and its fault timings (not a test module).

Run from the repository root (pytest does not collect tests/bench)::

    python -m tests.bench.sandbox_start_stop [--runs 21]

The promises the tests used to bound by the clock (tests/sandbox: start and
stop within 0.5 s, a stop with an open keep-alive connection within 0.5 s, a
stop with a held request within 2 s, a control endpoint not delayed by
``latency``) are measured here: median and worst of each, in milliseconds, next
to the promise. The tests check the behaviour (the thread ended, nothing was
waited for) with hang guards only.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable

import httpx

from bottui.sandbox.server import SandboxServer
from tests.sandbox.helpers import PERSONAL, SSL, revoke_path


def start_stop() -> tuple[float, float]:
    began = time.perf_counter()
    server = SandboxServer().start()
    started = time.perf_counter() - began
    began = time.perf_counter()
    server.stop()
    return started, time.perf_counter() - began


def stop_with_keep_alive() -> float:
    server = SandboxServer().start()
    with httpx.Client(verify=SSL, base_url=server.base_url) as http:
        http.post(revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL)
        began = time.perf_counter()
        server.stop()
        return time.perf_counter() - began


def stop_with_held_request() -> float:
    server = SandboxServer().start()
    server.faults.hold_requests()

    def call() -> None:
        try:
            with httpx.Client(verify=SSL, base_url=server.base_url, timeout=60) as http:
                http.post(revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL)
        except httpx.HTTPError:
            pass

    worker = threading.Thread(target=call)
    worker.start()
    server.faults.wait_until_held(1)
    began = time.perf_counter()
    server.stop()
    took = time.perf_counter() - began
    worker.join(60)
    return took


def control_under_latency() -> float:
    server = SandboxServer().start()
    try:
        server.faults.configure(latency=0.2)
        with httpx.Client(verify=SSL, base_url=server.base_url) as http:
            began = time.perf_counter()
            http.get("/_sandbox/stats")
            return time.perf_counter() - began
    finally:
        server.stop()


def report(name: str, promise_ms: float, samples: list[float]) -> None:
    ms = sorted(s * 1000 for s in samples)
    print(
        f"{name:<36} median {statistics.median(ms):7.1f} ms  worst {ms[-1]:7.1f} ms"
        f"  (promise < {promise_ms:g} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    runs = parser.parse_args().runs
    pairs = [start_stop() for _ in range(runs)]
    report("start", 500, [a for a, _ in pairs])
    report("stop", 500, [b for _, b in pairs])
    cases: list[tuple[str, float, Callable[[], float]]] = [
        ("stop, a keep-alive connection open", 500, stop_with_keep_alive),
        ("stop, a request held", 2000, stop_with_held_request),
        ("control endpoint, latency 200 ms", 200, control_under_latency),
    ]
    for name, promise, case in cases:
        report(name, promise, [case() for _ in range(runs)])


if __name__ == "__main__":
    main()
