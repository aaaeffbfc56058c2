"""``bottui demo`` as a user runs it: a real process in a pseudo-terminal, its sandbox a child.

Flips a rate limiter through the confirmation dialog (the request reaches
the sandbox child over loopback), quits with ``q``, and checks that the exit
code is 0 and that the sandbox process is gone with it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.pty_terminal import Terminal, wait_gone

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")


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
        assert wait_gone(sandboxes[0], 5)
    finally:
        term.kill()
