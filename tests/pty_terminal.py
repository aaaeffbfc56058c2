"""A program in a pseudo-terminal, and what it has written with the escapes removed.

Shared by the test that runs ``bottui demo`` as a user would
(``tests/cli/test_demo_process.py``) and the start-up benchmark
(``tests/bench/startup.py``); :func:`wait_gone` also by ``tests/sandbox/test_process.py``,
:func:`children` by the demos' process tests.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: CSI, OSC, DCS/PM/APC strings and two-byte escapes: what a terminal would not print.
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")


class Terminal:
    """``argv`` started in a pseudo-terminal of ``columns`` x ``lines``, from the repo root.

    Args:
        argv: The program and its arguments.
        env: Its whole environment (default: ours with TERM=xterm-256color and the size).
    """

    def __init__(
        self,
        argv: list[str],
        *,
        env: Mapping[str, str] | None = None,
        columns: int = 100,
        lines: int = 30,
    ) -> None:
        if env is None:
            env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(columns), LINES=str(lines))
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            os.chdir(ROOT)
            os.execvpe(argv[0], argv, dict(env))
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self.raw = b""

    def text(self) -> str:
        """Everything written so far, escapes removed."""
        return ANSI.sub(b"", self.raw).decode("utf-8", "replace")

    def _read(self, timeout: float) -> bool:
        """Read what is there within ``timeout``; False once the program closed the terminal."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the process closed the terminal
            return False
        self.raw += chunk
        return bool(chunk)

    def wait_for(self, needle: str, timeout: float = 120.0) -> None:
        """Read until ``needle`` appears in what is written from now on."""
        start = len(self.text())
        deadline = time.monotonic() + timeout
        while needle not in self.text()[start:]:
            if time.monotonic() > deadline or not self._read(0.05):
                tail = self.text()[-1500:]
                raise AssertionError(f"{needle!r} never appeared; the screen ended with:\n{tail}")

    def send(self, keys: str) -> None:
        """Type ``keys``."""
        os.write(self.fd, keys.encode())

    def wait_exit(self, timeout: float = 120.0) -> int:
        """The exit code, once the program has ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        raise AssertionError("the process did not exit")

    def quit(self, key: str = "q", keys_back: str = "Mark", timeout: float = 120.0) -> int:
        """Press ``key`` to quit and return the exit code, pressing it again when the
        app dropped it as typed ahead (within its window after a dialog closed, the key
        bar says so; once the bar shows the screen's keys again, ``keys_back``, the
        window is over)."""
        start = len(self.text())
        self.send(key)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            seen = self.text()[start:]
            note = seen.find("keys typed ahead ignored")
            if note >= 0 and keys_back in seen[note:]:
                start = len(self.text())
                self.send(key)
        raise AssertionError("the process did not exit")

    def kill(self) -> None:
        """End the program if it still runs and close the terminal."""
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


def _stat_fields(stat: bytes) -> list[bytes]:
    """The fields of a ``/proc/PID/stat`` after the command name, which may hold any byte."""
    return stat.rsplit(b")", 1)[1].split()


def children(pid: int) -> list[tuple[int, str]]:
    """The processes whose parent is ``pid``, with their command lines (Linux ``/proc``).

    Any process on the machine may be read on the way, so its name and arguments are
    bytes, not text: another test's child may carry hostile argv (an invalid UTF-8
    byte failed a CI run when this decoded strictly).
    """
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        if int(_stat_fields(stat)[1]) == pid:
            found.append((int(entry.name), cmdline.replace(b"\0", b" ").decode(errors="replace")))
    return found


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs; a zombie (ended, not yet reaped) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:  # reaped meanwhile, or no /proc: then kill is all we know
        return not Path("/proc").is_dir()
    return _stat_fields(stat)[0] not in (b"Z", b"X")


def wait_gone(pid: int, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for process ``pid`` to be gone (zombies count as gone)."""
    deadline = time.monotonic() + timeout
    while _running(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True
