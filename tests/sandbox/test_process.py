"""SandboxProcess: the demo's sandbox served by a child process on a socket bound here."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from bottui.sandbox.demo_data import (
    DEMO_PROJECT_TOKENS,
    HOSTILE_LIMITER_IDS,
    HOSTILE_MARKUP,
    HOSTILE_PROJECT_ID,
    HOSTILE_PROJECT_TOKEN,
)
from bottui.sandbox.process import SandboxProcess
from tests.pty_terminal import wait_gone
from tests.sandbox.helpers import PROD, limiter_path

ROOT = Path(__file__).resolve().parents[2]


def _activate(
    base_url: str, project: str = PROD, limiter: str = "rl-login", token: str | None = None
) -> httpx.Response:
    return httpx.patch(
        base_url + limiter_path(limiter, project),
        headers={"X-Api-Key": token or DEMO_PROJECT_TOKENS[project]},
        json={"isActive": False},
        timeout=20,
    )


def test_the_port_is_known_before_start_and_early_requests_wait(tmp_path: Path) -> None:
    sandbox = SandboxProcess(log_path=tmp_path / "sandbox.log")
    assert sandbox.base_url == f"http://127.0.0.1:{sandbox.port}" and sandbox.port > 0
    with sandbox:
        # Sent at once, long before the child has imported uvicorn: the
        # connection waits in the listen backlog instead of being refused.
        response = _activate(sandbox.base_url)
        assert response.status_code == 200, response.text
        assert sandbox.exit_code() is None and sandbox.failure() is None
        pid = sandbox.pid
    assert pid is not None and wait_gone(pid, 1)
    assert sandbox.exit_code() == 0 and sandbox.failure() is None
    with pytest.raises(httpx.ConnectError):
        _activate(sandbox.base_url)


@pytest.mark.parametrize("hostile", [True, False])
def test_hostile_data_set_only_when_asked(hostile: bool) -> None:
    with SandboxProcess(hostile=hostile) as sandbox:
        response = _activate(
            sandbox.base_url, HOSTILE_PROJECT_ID, HOSTILE_LIMITER_IDS[0], HOSTILE_PROJECT_TOKEN
        )
    if hostile:
        assert response.status_code == 200, response.text
        assert response.json()["name"] == HOSTILE_MARKUP
    else:
        assert response.status_code in (401, 403, 404), response.text


def test_the_child_exits_when_its_parent_is_killed(tmp_path: Path) -> None:
    script = (
        "import sys, time\n"
        "from bottui.sandbox.process import SandboxProcess\n"
        "s = SandboxProcess().start()\n"
        "print(s.pid, s.base_url, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        pid_text, base_url = parent.stdout.readline().split()
        assert _activate(base_url).status_code == 200
        parent.send_signal(signal.SIGKILL)
        parent.wait(120)
        # Its stdin pipe reaches end of file: the orphan stops by itself.
        assert wait_gone(int(pid_text), 5)
    finally:
        parent.kill()
        parent.wait(120)


def test_a_child_that_fails_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'Traceback ...' >&2\necho 'boom: no uvicorn' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake))
    sandbox = SandboxProcess(log_path=tmp_path / "sandbox.log").start()
    assert sandbox.stop() == 3
    assert sandbox.failure() == "the sandbox process exited with code 3: boom: no uvicorn"
    with pytest.raises(httpx.ConnectError):
        _activate(sandbox.base_url)


def test_start_twice_is_refused() -> None:
    sandbox = SandboxProcess().start()
    try:
        with pytest.raises(RuntimeError, match="starts once"):
            sandbox.start()
    finally:
        assert sandbox.stop() == 0
    assert sandbox.stop() == 0  # idempotent
