"""A bare answering server for the 10,000,000-id memory benchmark (not a test module).

The sandbox keeps every revoked id, grows past 2.7 GB at 3.5M ids and tops
out near 1,900 answers/s on this machine, so a 10M run against it takes
hours. What ``bulk_scale.py rss`` measures is the *client's* peak RSS, so
the server only has to answer: this one answers every request with the
sandbox's "nothing was standing" body (``{"reportId", "revoked": false}``)
on plain asyncio, keep-alive, nothing stored.

``AnswerServer()`` runs it in a process of its own and offers the same
``base_url``/``stop()`` as :class:`tests.bench.sandbox_process.Sandbox`;
``python tests/bench/answer_server.py`` serves on a free port and prints
``serving at URL``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BODY = b'{"reportId":"rep_bench","revoked":false}'
ANSWER = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
    + str(len(BODY)).encode()
    + b"\r\n\r\n"
    + BODY
)


class _Answering(asyncio.Protocol):
    """HTTP/1.1 with Content-Length bodies, pipelined or not; every request answered."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        out = bytearray()
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                break
            head = bytes(self.buffer[:end]).lower()
            found = re.search(rb"\r\ncontent-length:\s*(\d+)", head)
            length = int(found.group(1)) if found else 0
            total = end + 4 + length
            if len(self.buffer) < total:
                break
            del self.buffer[:total]
            out += ANSWER
        if out and self.transport is not None:
            self.transport.write(bytes(out))


async def _serve() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(_Answering, "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"serving at http://127.0.0.1:{port}", flush=True)
    async with server:
        await server.serve_forever()


class AnswerServer:
    """The answering server in a process of its own (``base_url``, ``stop()``)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve())],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"serving at (http://\S+)", line)
        if not found:
            raise RuntimeError("the answering server did not start")
        self.base_url = found.group(1)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve())
