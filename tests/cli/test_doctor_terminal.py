"""``bottui doctor``'s terminal checks: TERM, colours, tmux and OSC 52 (#16).

tmux is real: a private server (``-L``, no config file) per test, reached
through ``TMUX`` as a pane would; one test stops it (SIGSTOP) to show a tmux
that does not answer costs its timeout and no more.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.cli.test_doctor import checks
from tests.fixtures.sandbox import scope


class Tmux:
    """A private tmux server: set its options, point ``TMUX`` at it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.run("-f", "/dev/null", "new-session", "-d", "-s", "doctor")
        self.socket, pid = self.run("display", "-p", "#{socket_path} #{pid}").split()
        self.pid = int(pid)

    def run(self, *argv: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.name, *argv], capture_output=True, text=True, timeout=10
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    @property
    def env(self) -> str:
        """``TMUX`` as tmux sets it in its panes: socket, server pid, session."""
        return f"{self.socket},{self.pid},0"


@pytest.fixture
def tmux(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed by these tests"
    server = Tmux(f"bottui-doctor-{secrets.token_hex(4)}")
    monkeypatch.setenv("TMUX", server.env)
    try:
        yield server
    finally:
        os.kill(server.pid, signal.SIGCONT)
        subprocess.run(["tmux", "-L", server.name, "kill-server"], capture_output=True, timeout=10)
        Path(server.socket).unlink(missing_ok=True)


@pytest.fixture
def terminal(env: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Everything else healthy (the sandbox, tokens in the environment), no tmux."""
    for var in ("TMUX", "TERM_PROGRAM", "COLORTERM"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    return monkeypatch


def doctor() -> tuple[int, dict[str, dict[str, Any]]]:
    done = cli("doctor", "--json", *scope())
    return done.code, checks(done)


def test_truecolor_is_ok_and_no_tmux_is_skipped(terminal: pytest.MonkeyPatch) -> None:
    terminal.setenv("COLORTERM", "truecolor")
    code, found = doctor()
    assert found["terminal"]["verdict"] == "ok"
    assert "24-bit colour" in found["terminal"]["detail"]
    assert found["tmux"]["verdict"] == "skipped"
    assert code == 0


def test_256_colours_and_a_dumb_terminal_warn_without_failing(
    terminal: pytest.MonkeyPatch,
) -> None:
    code, found = doctor()
    assert found["terminal"]["verdict"] == "warning"
    assert "export COLORTERM=truecolor" in found["terminal"]["fix"]
    terminal.setenv("TERM", "dumb")
    code, found = doctor()
    assert found["terminal"]["verdict"] == "warning"
    assert "not a terminal the TUI can draw on" in found["terminal"]["detail"]
    assert code == 0


@pytest.mark.parametrize(
    ("variables", "verdict", "words"),
    [
        ({"TERM_PROGRAM": "Apple_Terminal"}, "warning", "macOS Terminal ignores OSC 52"),
        ({"TERM": "xterm-kitty"}, "ok", "kitty takes OSC 52"),
        ({"TERM_PROGRAM": "WezTerm"}, "ok", "WezTerm takes OSC 52"),
        ({}, "skipped", "cannot be known without asking it"),
    ],
)
def test_osc52_as_far_as_the_environment_tells(
    terminal: pytest.MonkeyPatch, variables: dict[str, str], verdict: str, words: str
) -> None:
    for name, value in variables.items():
        terminal.setenv(name, value)
    _, found = doctor()
    assert found["clipboard"]["verdict"] == verdict
    assert words in found["clipboard"]["detail"]


def test_tmux_defaults_warn_of_slow_esc_no_mouse_no_clipboard(
    terminal: pytest.MonkeyPatch, tmux: Tmux
) -> None:
    tmux.run("set", "-sg", "escape-time", "500")
    tmux.run("set", "-g", "mouse", "off")
    tmux.run("set", "-s", "set-clipboard", "external")
    code, found = doctor()
    check = found["tmux"]
    assert check["verdict"] == "warning"
    assert "escape-time 500 ms (above 25 ms: Esc feels slow)" in check["detail"]
    assert "mouse off" in check["detail"]
    assert "set -sg escape-time 10" in check["fix"] and "set -g mouse on" in check["fix"]
    assert found["clipboard"]["verdict"] == "warning"
    assert "set-clipboard is external" in found["clipboard"]["detail"]
    assert "set -s set-clipboard on" in found["clipboard"]["fix"]
    assert code == 0  # warnings do not fail


def test_tmux_set_up_for_a_tui_is_ok(terminal: pytest.MonkeyPatch, tmux: Tmux) -> None:
    tmux.run("set", "-sg", "escape-time", "10")
    tmux.run("set", "-g", "mouse", "on")
    tmux.run("set", "-s", "set-clipboard", "on")
    _, found = doctor()
    assert found["tmux"]["verdict"] == "ok"
    assert found["tmux"]["detail"] == "escape-time 10 ms, mouse on"
    # No client attached: tmux cannot say what the outer terminal takes.
    assert found["clipboard"]["verdict"] == "skipped"
    assert "tmux set-clipboard on" in found["clipboard"]["detail"]


def test_a_tmux_that_does_not_answer_costs_its_timeout(
    terminal: pytest.MonkeyPatch, tmux: Tmux
) -> None:
    os.kill(tmux.pid, signal.SIGSTOP)
    try:
        code, found = doctor()  # a stopped tmux never answers: the 2 s timeout cut it
    finally:
        os.kill(tmux.pid, signal.SIGCONT)
    assert found["tmux"]["verdict"] == "warning"
    assert "tmux did not answer within 2 s" in found["tmux"]["detail"]
    assert found["api"]["verdict"] == "ok"
    assert code == 0


def test_a_tmux_socket_with_no_server(terminal: pytest.MonkeyPatch, tmp_path: Path) -> None:
    terminal.setenv("TMUX", f"{tmp_path}/no-such-socket,1,0")
    _, found = doctor()
    assert found["tmux"]["verdict"] == "warning"
    assert "tmux answered nothing" in found["tmux"]["detail"]
