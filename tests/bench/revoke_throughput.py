"""Issue #2: revocations per second through the service layer (``BotProtectionClient``).

Run it as a script (pytest does not collect tests/bench)::

    python tests/bench/revoke_throughput.py [--count 1000] [--concurrency 1,8]
                                            [--latency 0] [--server sandbox|answer]
                                            [--transports aiohttp,objects,httpx,bulk]

The sandbox runs in a process of its own, over loopback. For each transport
(``aiohttp``: the client's own, ``objects``: the same aiohttp pool reached
through httpx's request and response objects, what ``AiohttpTransport.exchange``
spares the client, ``httpx``: httpx's ``AsyncHTTPTransport`` handed to the
client, for comparison, and ``bulk``: the client's pool as a bulk run uses
it, ``with_pool`` and a shared pause) and each concurrency (1 = one after
the other), ``--count`` revocations go through
``BotProtectionClient.revoke_grant`` (validation, request building, the
retry loop, the transport, parsing the answer); the script prints requests
per second and this process's CPU per 1,000 requests (``--server answer``:
against ``tests/bench/answer_server.py``, which costs the shared CPU less
than the sandbox). With ``--latency`` (seconds per request at the sandbox) the
ceiling is ``concurrency / latency``: ``--concurrency 16,32,64 --latency 0.05``
shows how each transport holds up as concurrency grows.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bottui.api.client import BotProtectionClient  # noqa: E402
from bottui.api.sending import SharedPause  # noqa: E402
from bottui.api.tokens import AccessToken  # noqa: E402
from bottui.api.transport import AiohttpTransport  # noqa: E402
from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_ACCOUNT  # noqa: E402
from tests.bench.answer_server import AnswerServer  # noqa: E402
from tests.bench.sandbox_process import Sandbox  # noqa: E402

PROJECT = "shop-prod"


class ThroughObjects(httpx.AsyncBaseTransport):
    """The aiohttp pool behind httpx's request and response objects (not ``exchange``)."""

    def __init__(self, size: int) -> None:
        self.inner = AiohttpTransport(max_connections=size)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def revocations(
    base_url: str, count: int, concurrency: int, transport: str
) -> tuple[float, float]:
    """Seconds and CPU seconds for ``count`` revocations, ``concurrency`` at a time."""
    token = AccessToken(DEMO_ACCESS_TOKEN)
    numbers = iter(range(count))
    size = max(concurrency, 1)
    chosen: httpx.AsyncBaseTransport | None = None
    if transport == "httpx":
        chosen = httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=size))
    elif transport == "objects":
        chosen = ThroughObjects(size)
    async with BotProtectionClient(base_url, transport=chosen, max_connections=size) as client:
        sender = client.with_pool(size) if transport == "bulk" else client
        pause = SharedPause() if transport == "bulk" else None

        async def worker() -> None:
            for n in numbers:
                await sender.revoke_grant(
                    DEMO_ACCOUNT, PROJECT, token, visitor_id=f"vis_t{n}", pause=pause
                )

        await sender.revoke_grant(DEMO_ACCOUNT, PROJECT, token, visitor_id="warm-up")
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        if sender is not client:
            await sender.aclose()
        return seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--concurrency", default="1,8", help="comma-separated, e.g. 1,8,64")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--transports", default="aiohttp,objects,httpx,bulk")
    parser.add_argument("--server", choices=("sandbox", "answer"), default="sandbox")
    args = parser.parse_args()
    levels = [int(x) for x in args.concurrency.split(",")]
    print(
        f"{args.count:,} revocations via BotProtectionClient, sandbox latency "
        f"{args.latency * 1000:g} ms, loopback"
    )
    if args.server == "answer":
        sandbox: Any = AnswerServer()
    else:
        sandbox = Sandbox(args.latency)
    try:
        for transport in args.transports.split(","):
            for concurrency in levels:
                if args.server == "sandbox":
                    sandbox.reset()
                seconds, cpu = asyncio.run(
                    revocations(sandbox.base_url, args.count, concurrency, transport)
                )
                label = "sequential" if concurrency == 1 else f"concurrency {concurrency}"
                extra = ""
                if args.latency:
                    peak = sandbox.stats()["peakInFlight"]
                    extra = f" (ceiling {concurrency / args.latency:,.0f}, peak in flight {peak})"
                rate = args.count / seconds
                per = cpu / args.count * 1000
                print(f"  {transport:<8} {label:<15} {rate:8,.0f} req/s {per:6.3f} CPU-s/1k{extra}")
    finally:
        sandbox.stop()


if __name__ == "__main__":
    main()
