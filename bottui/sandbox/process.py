"""The demo's sandbox in a child process: :class:`SandboxProcess`, and the child's ``main``.

``bottui demo`` used to serve the sandbox from a thread of its own process.
Importing starlette and uvicorn there (~150 ms of CPU) held the GIL while
Textual drew the first frame, and later every sandbox request competed with
the UI for it. A child process runs on another core instead, and behaves
more like the remote service it stands for.

The parent binds and listens on a loopback socket first, so the port is
known at once and a client that connects before the child is serving simply
waits in the listen backlog: no port race, no readiness handshake. The child
inherits that socket (``--fd``), serves it until its stdin reaches end of
file, and so also exits when the parent dies, however it dies. It runs in
its own session: a Ctrl-C meant for the parent does not reach it.

Only the standard library (and :mod:`bottui.sandbox.sockets`, which binds
the socket as the in-process server does) is imported at module level; the child imports
the server when it starts.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import TracebackType
from typing import IO, Final, Self

from bottui.sandbox.sockets import bind_tcp

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
        argv = [sys.executable, "-m", "bottui.sandbox.process", "--fd", str(fd)]
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

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """The child: serve the inherited socket until stdin reaches end of file."""
    import argparse  # the child's alone: the parent imports this module at start-up

    parser = argparse.ArgumentParser(prog="python -m bottui.sandbox.process")
    parser.add_argument("--fd", type=int, required=True, help="an inherited listening socket")
    parser.add_argument("--hostile", action="store_true")
    args = parser.parse_args(argv)

    from bottui.sandbox.demo import demo_state
    from bottui.sandbox.server import SandboxServer

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
