"""The demo's sandbox in a child process (:class:`SandboxProcess`), and its listening sockets.

``bottui demo`` used to serve the sandbox from a thread of its own process.
Importing the server there (uvicorn, and Starlette then: ~150 ms of CPU) held
the GIL while Textual drew the first frame, and later every sandbox request
competed with the UI for it. A child process runs on another core instead, and behaves
more like the remote service it stands for.

The parent binds and listens on a loopback socket first, so the port is
known at once and a client that connects before the child is serving simply
waits in the listen backlog: no port race, no readiness handshake. The child
inherits that socket (``--fd``), serves it until its stdin reaches end of
file, and so also exits when the parent dies, however it dies. It runs in
its own session: a Ctrl-C meant for the parent does not reach it.

Standard library only, so the demo binds its port before the app starts and
does not pay for importing the server to do so: the child runs
``python -m bottui.sandbox.server`` (its ``main``). :func:`bind_tcp` binds the
listening sockets of both, this child's and the in-process
:class:`~bottui.sandbox.server.SandboxServer`'s.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import subprocess
import sys
from pathlib import Path
from typing import IO, Final, Self


class BindError(OSError):
    """The sandbox cannot listen where it was asked; the message says why, in one line."""


def bind_tcp(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``(host, port)`` (port 0: any free one), inheritable by a child.

    Raises :class:`BindError` (an ``OSError``) with a plain reason: a port
    out of 0..65535, an unknown host, an address this machine does not
    have, a port in use or one that needs privileges.
    """
    if not 0 <= port <= 65535:
        raise BindError(f"port {port} is not a number in 0..65535 (0: any free port)")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted sockets only
    # when the proto says TCP; with proto 0, Nagle + delayed ACK add ~40 ms per request.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    reason: str | None = None
    try:
        sock.bind((host, port))
    except (socket.gaierror, UnicodeError, TypeError):
        # TypeError: a host that cannot be encoded (undecodable argv bytes).
        reason = f"unknown host {host!r}"
    except OSError as exc:
        reason = _reason(exc, host, port)
    if reason is not None:
        sock.close()
        raise BindError(reason)
    sock.set_inheritable(True)
    return sock


def _reason(exc: OSError, host: str, port: int) -> str:
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return f"{where} is already in use (choose another --port, or 0 for any free one)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{host!r} is not an address of this machine"
    if exc.errno == errno.EACCES:
        return f"no permission to listen on {where} (ports below 1024 need privileges)"
    return f"cannot listen on {where}: {exc.strerror or exc}"


#: How long :meth:`SandboxProcess.stop` waits for a clean exit before killing.
STOP_TIMEOUT: Final = 5.0


def _listening_socket() -> socket.socket:
    sock = bind_tcp("127.0.0.1", 0)
    try:
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


class SandboxProcess:
    """The demo sandbox served by a child process on a loopback port bound here.

    Args:
        hostile: Serve the hostile data set (markup and escapes everywhere).
        log_path: Where the child's stderr goes (it must never reach the
            terminal the TUI draws on); default: discarded.
    """

    def __init__(self, *, hostile: bool = False, log_path: Path | None = None) -> None:
        self.hostile = hostile
        self.log_path = log_path
        self._sock: socket.socket | None = _listening_socket()
        self.port: int = self._sock.getsockname()[1]
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``: valid as soon as the object exists."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Self:
        """Start the child; returns at once (requests queue until it serves)."""
        if self._sock is None or self._process is not None:
            raise RuntimeError("a SandboxProcess starts once")
        fd = self._sock.fileno()
        argv = [sys.executable, "-m", "bottui.sandbox.server", "--fd", str(fd)]
        if self.hostile:
            argv.append("--hostile")
        log: IO[bytes] | int = subprocess.DEVNULL
        if self.log_path is not None:
            log = self.log_path.open("ab")
        try:
            self._process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=log,
                pass_fds=(fd,),
                start_new_session=True,
            )
        finally:
            if not isinstance(log, int):
                log.close()
            # The child holds its own copy; ours would keep the port open
            # after the child is gone and hide that it died.
            self._sock.close()
            self._sock = None
        return self

    @property
    def pid(self) -> int | None:
        """The child's process id once started."""
        return self._process.pid if self._process is not None else None

    def exit_code(self) -> int | None:
        """The child's exit code if it has ended, else None."""
        return self._process.poll() if self._process is not None else None

    def stop(self) -> int | None:
        """Ask the child to stop (close its stdin), wait, kill if it hangs; its exit code."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        process = self._process
        if process is None:
            return None
        if process.stdin is not None and not process.stdin.closed:
            # OSError: the child is already gone and the pipe is broken.
            with contextlib.suppress(OSError):
                process.stdin.close()
        try:
            return process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait()

    def failure(self) -> str | None:
        """Why the child ended early, from its log: None while it runs or after a clean exit."""
        code = self.exit_code()
        if code is None or code == 0:
            return None
        detail = ""
        if self.log_path is not None and self.log_path.exists():
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
            detail = next((line for line in reversed(lines) if line.strip()), "")
        return f"the sandbox process exited with code {code}" + (f": {detail}" if detail else "")

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
