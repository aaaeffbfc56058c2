"""#10.10: base URLs that cannot be sent to are refused before anything is sent (exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bottui.api.errors import RefusedError
from bottui.api.transport import check_base_url
from bottui.sandbox.demo_data import DEMO_PROJECT_TOKENS
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import PROJ, scope


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://127.0.0.1:99999", "port '99999' is not a number in 1..65535"),
        ("http://127.0.0.1:0", "port '0'"),
        ("http://127.0.0.1:-1", "port '-1'"),
        ("http://127.0.0.1:http", "port 'http'"),
        ("http://127.0.0.1:8765/\udcff", "not valid UTF-8"),
        ("http://127.0.0.1:8765/a b", "spaces or control characters"),
        ("http://127.0.0.1:8765/\x1b[2J", "spaces or control characters"),
        ("http://[::1", "Invalid base URL"),
    ],
)
def test_refused_by_url_validation(url: str, words: str) -> None:
    with pytest.raises(RefusedError) as caught:
        check_base_url(url)
    assert words in str(caught.value)


@pytest.mark.parametrize("url", ["http://127.0.0.1:65535", "http://[::1]:1", "https://h.example"])
def test_ports_in_range_pass(url: str) -> None:
    assert check_base_url(url) == url


def test_the_cli_refuses_a_port_out_of_range_before_sending(
    sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_API_KEY", DEMO_PROJECT_TOKENS[PROJ])
    r = cli("limiter", "enable", "rl-api", *scope(), "--base-url", "http://127.0.0.1:99999")
    assert r.code == 2
    assert r.err == "error: Invalid base URL\n  port '99999' is not a number in 1..65535\n"
    assert sandbox.stats.requests == 0


def test_undecodable_bytes_in_the_url_from_argv(sandbox: SandboxServer) -> None:
    env = dict(os.environ, BOTTUI_API_KEY=DEMO_PROJECT_TOKENS[PROJ])
    url = sandbox.base_url.encode() + b"/\xff"
    argv = ["limiter", "enable", "rl-api", *scope(), "--base-url"]
    proc = subprocess.run(
        [sys.executable, "-m", "bottui", *argv, url],
        capture_output=True,
        env=env,
        timeout=300,  # a hang guard
    )
    assert proc.returncode == 2, proc.stderr
    assert b"Traceback" not in proc.stderr and b"Unexpected failure" not in proc.stderr
    assert sandbox.stats.requests == 0
