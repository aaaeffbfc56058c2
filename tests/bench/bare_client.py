"""The reference of the bulk benchmarks: a bare aiohttp client, as a process of its own.

Run as ``python tests/bench/bare_client.py BASE_URL COUNT CONCURRENCY [PREFIX]``:
``COUNT`` revocations over one ``aiohttp.ClientSession`` with a pool of
``CONCURRENCY`` connections and as many workers, each POSTing one id and
reading its JSON. Prints one JSON line: ``{"seconds": ..., "cpu": ...}``
(wall seconds of the requests; CPU seconds of this process from
``resource.getrusage``, start-up included, as for the CLI it is compared with).
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time

ACCOUNT = "acme"
PROJECT = "shop-prod"
TOKEN_ENV = "BOTTUI_ACCESS_TOKEN"


async def revoke_all(base_url: str, count: int, concurrency: int, prefix: str, token: str) -> float:
    """Seconds for ``count`` revocations, ``concurrency`` at a time."""
    import aiohttp

    url = f"{base_url}/api/v1/{ACCOUNT}/projects/{PROJECT}/challenges/grant-revocations"
    headers = {"X-Api-Key": token, "Content-Type": "application/json"}
    numbers = iter(range(count))
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def worker() -> None:
            for n in numbers:
                body = json.dumps({"subject": {"visitorId": f"{prefix}{n:08d}"}}).encode()
                async with session.post(url, data=body, headers=headers) as answer:
                    if answer.status != 200:
                        raise RuntimeError(f"HTTP {answer.status}")
                    await answer.json()

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


def cpu_seconds() -> float:
    """User + system CPU seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    import os

    base_url, count, concurrency = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    prefix = sys.argv[4] if len(sys.argv) > 4 else "vis_bare_"
    seconds = asyncio.run(revoke_all(base_url, count, concurrency, prefix, os.environ[TOKEN_ENV]))
    print(json.dumps({"seconds": seconds, "cpu": cpu_seconds()}))


if __name__ == "__main__":
    main()
