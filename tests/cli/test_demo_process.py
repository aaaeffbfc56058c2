"""``bottui demo`` as a user runs it: a real process in a pseudo-terminal, its sandbox a child.

Flips a rate limiter through the confirmation dialog (the request reaches
the sandbox child over loopback), quits with ``q``, and checks that the exit
code is 0 and that the sandbox process is gone with it.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")


class Terminal:
    """A process in a 100x30 pseudo-terminal; what it wrote, escapes removed."""

    def __init__(self, argv: list[str]) -> None:
        env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            os.chdir(ROOT)
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.raw = b""

    def text(self) -> str:
        return _ANSI.sub(b"", self.raw).decode("utf-8", "replace")

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the process closed the terminal
            return False
        self.raw += chunk
        return bool(chunk)

    def wait_for(self, needle: str, timeout: float = 15.0) -> None:
        start = len(self.text())
        deadline = time.monotonic() + timeout
        while needle not in self.text()[start:]:
            if time.monotonic() > deadline or not self._read(0.05):
                tail = self.text()[-1500:]
                raise AssertionError(f"{needle!r} never appeared; the screen ended with:\n{tail}")

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait_exit(self, timeout: float = 10.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        raise AssertionError("the process did not exit")

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


def _children(pid: int) -> list[tuple[int, str]]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append((int(entry.name), cmdline))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc for the sandbox child")
def test_demo_flips_a_limiter_against_its_sandbox_child_and_quits_cleanly() -> None:
    term = Terminal([sys.executable, "-m", "bottui", "demo"])
    try:
        term.wait_for("shop-prod")
        term.wait_for("rl-api")
        term.send("o")  # enable the selected limiter (rl-api, OFF in the demo)
        term.wait_for("Enable rate limiter?")
        term.send("\t")  # focus starts on Cancel
        term.send("\r")
        term.wait_for("rl-api is now ON")
        # The sandbox that answered is a child of the demo (started after the first frame).
        sandboxes = [pid for pid, cmd in _children(term.pid) if "bottui.sandbox.process" in cmd]
        assert len(sandboxes) == 1, _children(term.pid)
        term.send("q")
        assert term.wait_exit() == 0
        deadline = time.monotonic() + 5
        while _alive(sandboxes[0]) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _alive(sandboxes[0])
    finally:
        term.kill()
