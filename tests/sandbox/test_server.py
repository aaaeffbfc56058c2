"""SandboxServer start/stop (thread and in-loop) and the blocking ``serve``."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_ACCOUNT, DEMO_PROJECT_TOKENS
from bottui.sandbox.server import SandboxServer, banner
from tests.sandbox.helpers import PERSONAL, SSL, revoke_path

ROOT = Path(__file__).resolve().parents[2]


def test_start_serves_and_stop_ends_the_serving_thread() -> None:
    """What start and stop do; how fast they are is ``tests/bench/sandbox_start_stop.py``."""
    server = SandboxServer().start()
    thread = server._thread
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", server.base_url)
        assert server.port > 0 and server.running
        assert thread is not None and thread.is_alive()
        assert httpx.get(server.base_url + "/_sandbox/stats").status_code == 200
    finally:
        server.stop()
    assert not thread.is_alive()
    assert not server.running
    server.stop()  # idempotent
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.base_url + "/_sandbox/stats")


@pytest.fixture
def no_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop that waited for a connection would wait an hour: the thread would still
    be alive when ``stop`` gives up joining it (a hang guard of 60 s, never reached)."""
    monkeypatch.setattr("bottui.sandbox.server.STOP_GRACE", 3600.0)
    monkeypatch.setattr("bottui.sandbox.server.START_TIMEOUT", 60.0)


def test_cannot_start_twice(sandbox: SandboxServer) -> None:
    with pytest.raises(RuntimeError):
        sandbox.start()


def test_port_before_start_is_an_error() -> None:
    with pytest.raises(RuntimeError):
        _ = SandboxServer().base_url


def test_keep_alive_connection_does_not_delay_stop(no_grace: None) -> None:
    server = SandboxServer().start()
    thread = server._thread
    assert thread is not None
    http = httpx.Client(verify=SSL, base_url=server.base_url)
    http.post(revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL)
    server.stop()
    assert not thread.is_alive()  # the open connection was closed, not waited for
    http.close()


async def test_in_loop_variant() -> None:
    before = signal.getsignal(signal.SIGINT)
    async with (
        SandboxServer() as server,
        httpx.AsyncClient(verify=SSL, base_url=server.base_url) as http,
    ):
        r = await http.post(
            revoke_path(), json={"subject": {"visitorId": "vis_7Hq2kP9xLm"}}, headers=PERSONAL
        )
        assert r.json()["revoked"] is True
    assert not server.running
    assert signal.getsignal(signal.SIGINT) is before  # no handler installed


def test_banner_names_the_demo_credentials() -> None:
    text = banner("http://127.0.0.1:8765")
    assert "http://127.0.0.1:8765" in text and DEMO_ACCOUNT in text
    assert "export BOTTUI_BASE_URL=http://127.0.0.1:8765" in text
    assert f"export BOTTUI_ACCESS_TOKEN={DEMO_ACCESS_TOKEN}" in text
    for project, token in DEMO_PROJECT_TOKENS.items():
        assert f"{project}: {token}" in text


def test_serve_until_ctrl_c() -> None:
    code = (
        "import sys; from bottui.sandbox.server import serve; "
        "serve(port=0, latency=0.0, out=sys.stdout)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-u", "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+", first)
        assert match, first
        url = match.group(0)
        deadline = time.monotonic() + 120  # a hang guard: it printed its URL, it serves
        while True:
            try:
                r = httpx.post(
                    url + revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL
                )
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.02)
        assert r.status_code == 200
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "sandbox stopped" in out
    assert "Traceback" not in err


def test_serve_writes_banner_to_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve`` prints before serving; uvicorn's run is stubbed to return at once."""
    from bottui.sandbox import server

    monkeypatch.setattr(server._Uvicorn, "run", lambda self, sockets=None: None)
    out = io.StringIO()
    server.serve(port=0, out=out)
    assert out.getvalue().startswith("bottui sandbox serving at http://127.0.0.1:")
    assert out.getvalue().endswith("sandbox stopped\n")
