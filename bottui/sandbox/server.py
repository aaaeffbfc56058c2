"""Running the sandbox over real HTTP: :class:`SandboxServer` and :func:`serve`.

:class:`SandboxServer` runs uvicorn (h11, no lifespan, no access log) on
127.0.0.1 with an ephemeral port, in a daemon thread (``with SandboxServer()
as s``, or ``async with`` inside a running event loop). Start-up returns once
uvicorn is serving; stop takes a few milliseconds (the graceful wait of stock
uvicorn is replaced by a short one), and an idle server does not poll: its
main loop waits on an event.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import Final, Self, TextIO

import uvicorn
from uvicorn.protocols.http import h11_impl

from bottui.sandbox.demo_data import (
    DEMO_ACCESS_TOKEN,
    DEMO_ACCOUNT,
    DEMO_PROJECT_TOKENS,
    project_tokens,
)
from bottui.sandbox.endpoints import create_app, install_drop_filter
from bottui.sandbox.faults import Faults
from bottui.sandbox.process import bind_tcp
from bottui.sandbox.state import SandboxState, Stats, demo_state

# The hostile status of ``hostileBody="status999"``: h11 sends any three-digit
# status, uvicorn only those it has a reason phrase for.
h11_impl.STATUS_PHRASES.setdefault(999, b"")

START_TIMEOUT: Final = 5.0
STOP_GRACE: Final = 1.0
_POLL: Final = 0.002


class _Uvicorn(uvicorn.Server):
    """uvicorn with a fast stop; signals captured only when asked (``serve``).

    Idle, it sleeps: its main loop waits on an event that setting
    ``should_exit`` sets (from any thread or a signal handler), where stock
    uvicorn (and bottui before #27) woke every 10 ms to look at the flag,
    ~2% of a core for the demo's sandbox child doing nothing.
    """

    def __init__(self, config: uvicorn.Config, *, capture_signals: bool) -> None:
        self._exit_flag = False
        self._wakeup = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Times the main loop woke up (one when it was never asked to exit).
        self.wakeups = 0
        super().__init__(config)
        self._capture = capture_signals

    @property
    def should_exit(self) -> bool:
        """Whether to stop serving; setting it wakes the main loop at once."""
        return self._exit_flag

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self._exit_flag = value
        loop = self._loop
        if value and loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._wakeup.set)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if self._capture:
            with super().capture_signals():
                yield
        else:
            yield

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        while not self.should_exit:  # set before the loop was known: seen here
            self.wakeups += 1
            await self._wakeup.wait()
            self._wakeup.clear()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STOP_GRACE
        while self.server_state.tasks and not self.force_exit and loop.time() < deadline:
            await asyncio.sleep(_POLL)
        for task in list(self.server_state.tasks):
            task.cancel()
        for connection in list(self.server_state.connections):
            transport = getattr(connection, "transport", None)
            if transport is not None:
                transport.close()
        await asyncio.sleep(0)
        for server in self.servers:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait_closed(), STOP_GRACE)


def _config(app: object, host: str, port: int) -> uvicorn.Config:
    return uvicorn.Config(
        app,  # type: ignore[arg-type]
        host=host,
        port=port,
        http="h11",
        loop="asyncio",
        lifespan="off",
        access_log=False,
        log_level="warning",
        log_config=None,
        server_header=False,
        date_header=False,
    )


class SandboxServer:
    """The sandbox served over loopback HTTP.

    Args:
        state: What to serve; default a fresh :func:`demo_state`.
        faults: Faults to inject; default none.
        host: Interface to bind (loopback by default).
        port: 0 for an ephemeral port.
        sock: An already bound socket to serve instead of binding ``host:port``
            (the demo's child process serves one its parent bound).
    """

    def __init__(
        self,
        state: SandboxState | None = None,
        faults: Faults | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        sock: socket.socket | None = None,
    ) -> None:
        self.state = state if state is not None else demo_state()
        self.faults = faults if faults is not None else Faults()
        self.host = str(sock.getsockname()[0]) if sock is not None else host
        self.app = create_app(self.state, self.faults)
        self._requested_port = port
        self._given_sock = sock
        self._port: int | None = None
        self._sock: socket.socket | None = None
        self._server: _Uvicorn | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ properties

    @property
    def port(self) -> int:
        """The port actually bound (after start)."""
        if self._port is None:
            raise RuntimeError("the sandbox server is not started")
        return self._port

    @property
    def base_url(self) -> str:
        """``http://host:port``, no trailing slash."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def stats(self) -> Stats:
        """The request counters now."""
        return self.state.recorder.stats()

    @property
    def running(self) -> bool:
        """Whether uvicorn is serving."""
        return self._server is not None and self._server.started and not self._server.should_exit

    # ------------------------------------------------------------ threaded

    def _prepare(self, *, capture_signals: bool = False) -> tuple[_Uvicorn, socket.socket]:
        if self._server is not None:
            raise RuntimeError("the sandbox server is already started")
        install_drop_filter()
        sock = self._given_sock or bind_tcp(self.host, self._requested_port)
        self._given_sock = None  # served once: a restart binds afresh
        self._sock = sock
        self._port = sock.getsockname()[1]
        server = _Uvicorn(_config(self.app, self.host, self._port), capture_signals=capture_signals)
        self._server = server
        return server, sock

    def start(self) -> Self:
        """Serve from a daemon thread; returns once uvicorn is serving."""
        server, sock = self._prepare()
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="bottui-sandbox", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self._cleanup()
                raise RuntimeError("the sandbox server did not start")
            time.sleep(_POLL)
        return self

    def stop(self) -> None:
        """Release held requests, stop serving and wait for the thread (idempotent)."""
        self.faults.release()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=START_TIMEOUT)
        self._cleanup()

    def _cleanup(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = None
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        # The same daemon thread, started off the loop: the loop keeps serving meanwhile.
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)


def banner(base_url: str, *, hostile: bool = False) -> str:
    """What :func:`serve` prints: URL, demo account, demo tokens, how to use them."""
    lines = [
        f"bottui sandbox serving at {base_url}",
        "",
        f"  account:                {DEMO_ACCOUNT}",
        f"  personal access token:  {DEMO_ACCESS_TOKEN}",
        "  project API tokens:",
    ]
    lines += [f"    {pid}: {token}" for pid, token in project_tokens(hostile).items()]
    lines += [
        "",
        "These are sandbox credentials: they work against this sandbox only.",
        "Point the CLI at it:",
        f"  export BOTTUI_BASE_URL={base_url}",
        f"  export BOTTUI_ACCESS_TOKEN={DEMO_ACCESS_TOKEN}",
        f"  export BOTTUI_API_KEY={DEMO_PROJECT_TOKENS['shop-prod']}  # shop-prod",
        "",
        "Press Ctrl-C to stop.",
    ]
    return "\n".join(lines) + "\n"


def serve(
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    latency: float = 0.0,
    out: TextIO = sys.stdout,
    hostile: bool = False,
) -> None:
    """Serve the demo sandbox until Ctrl-C (blocking); prints the banner first.

    The demo state uses the system clock, so grants expire in real time.
    Returns normally on Ctrl-C / SIGTERM after a clean stop.
    """
    faults = Faults()
    faults.configure(latency=latency)
    sandbox = SandboxServer(demo_state(hostile=hostile), faults, host=host, port=port)
    server, sock = sandbox._prepare(capture_signals=True)
    out.write(banner(sandbox.base_url, hostile=hostile))
    out.flush()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sandbox._cleanup()
    out.write("sandbox stopped\n")
    out.flush()


def main(argv: list[str] | None = None) -> int:
    """The demo's child (:class:`~bottui.sandbox.process.SandboxProcess`): serve the
    inherited socket until stdin reaches end of file."""
    parser = argparse.ArgumentParser(prog="python -m bottui.sandbox.server")
    parser.add_argument("--fd", type=int, required=True, help="an inherited listening socket")
    parser.add_argument("--hostile", action="store_true")
    args = parser.parse_args(argv)

    sock = socket.socket(fileno=args.fd)
    server = SandboxServer(demo_state(hostile=args.hostile), sock=sock).start()
    try:
        # Blocks until the parent closes the pipe or dies.
        while os.read(sys.stdin.fileno(), 4096):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
