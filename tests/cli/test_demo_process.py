"""``bottui demo`` as a user runs it: a real process in a pseudo-terminal, its sandbox a child.

Flips a rate limiter through the confirmation dialog (the request reaches
the sandbox child over loopback), quits with ``q``, and checks that the exit
code is 0 and that the sandbox process is gone with it. Then what an SSH drop
does: the terminal hangs up (SIGHUP) or the process is told to end
(SIGTERM); the demo still removes its temporary directory and its sandbox,
and the directory a demo ended by SIGKILL left behind as well.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.pty_terminal import Terminal, children, wait_gone

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")


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
        sandboxes = [pid for pid, cmd in children(term.pid) if "bottui.sandbox.server" in cmd]
        assert len(sandboxes) == 1, children(term.pid)
        # Right after a confirmation, q may be dropped as typed ahead (#24): again then.
        assert term.quit() == 0
        assert wait_gone(sandboxes[0], 5)
    finally:
        term.kill()


def _wait_for_sandbox(pid: int, timeout: float = 120.0) -> int:
    """The sandbox child's pid, once the demo has started it (after the first frame)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [c for c, cmd in children(pid) if "bottui.sandbox.server" in cmd]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no sandbox child under {pid}: {children(pid)}")


def _wait_exit(pid: int, timeout: float = 120.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    raise AssertionError(f"the demo (pid {pid}) did not exit within {timeout} s")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc for the sandbox child")
@pytest.mark.parametrize("how", ["hangup", "sigterm"])
def test_demo_removes_its_directory_and_sandbox_on_hangup_and_sigterm(
    tmp_path: Path, how: str
) -> None:
    # Its own TMPDIR: what the demo leaves behind is all that is in it.
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    # What a demo ended by SIGKILL leaves: this demo removes it, off its start-up path.
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    stale = tmpdir / "bottui-demo-killed"
    stale.mkdir()
    (stale / "sandbox.log").write_text("")
    (stale / "owner.json").write_text(json.dumps({"pid": ended.pid, "host": socket.gethostname()}))
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30", TMPDIR=str(tmpdir))
    term = Terminal([sys.executable, "-m", "bottui", "demo"], env=env)
    closed = False
    try:
        term.wait_for("rl-api")  # the first frame, with the inventory
        sandbox = _wait_for_sandbox(term.pid)
        assert len([p for p in tmpdir.iterdir() if p != stale]) == 1
        if how == "hangup":
            # As an SSH drop does: the terminal goes away, the kernel sends SIGHUP.
            os.close(term.fd)
            closed = True
            expected = 128 + signal.SIGHUP
        else:
            os.kill(term.pid, signal.SIGTERM)
            expected = 128 + signal.SIGTERM
        assert _wait_exit(term.pid) == expected
        assert list(tmpdir.iterdir()) == []
        assert wait_gone(sandbox, 10), "the sandbox child survived the demo"
    finally:
        if closed:
            try:
                os.kill(term.pid, signal.SIGKILL)
                os.waitpid(term.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        else:
            term.kill()
