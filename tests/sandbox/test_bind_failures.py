"""#10.10: ``bottui sandbox`` where it cannot listen: one clear error, exit 2, no traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from bottui.sandbox.process import BindError, bind_tcp
from tests.cli.helpers import cli

NOT_HERE = "203.0.113.7"  # TEST-NET-3: an address no test machine has


@pytest.fixture
def held_port() -> Iterator[int]:
    """A loopback port this test holds bound and listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


def sandbox_process(*argv: str | bytes) -> subprocess.CompletedProcess[str]:
    """``python -m bottui sandbox argv`` as a real process (it must not start serving)."""
    return subprocess.run(
        [sys.executable, "-m", "bottui", "sandbox", *argv],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,  # a hang guard
        stdin=subprocess.DEVNULL,
    )


def assert_refused(proc: subprocess.CompletedProcess[str], words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: Cannot serve the sandbox\n")
    assert words in proc.stderr
    assert "serving at" not in proc.stdout  # no banner, no tokens printed


def test_a_port_in_use(held_port: int) -> None:
    proc = sandbox_process("--port", str(held_port))
    assert_refused(proc, f"127.0.0.1:{held_port} is already in use")


@pytest.mark.parametrize("port", ["99999", "-1", "65536"])
def test_a_port_out_of_range(port: str) -> None:
    assert_refused(sandbox_process("--port", port), f"port {port} is not a number in 0..65535")


def test_an_unknown_host() -> None:
    assert_refused(sandbox_process("--host", "nowhere.invalid"), "unknown host 'nowhere.invalid'")


def test_an_address_this_machine_does_not_have() -> None:
    assert_refused(sandbox_process("--host", NOT_HERE), "is not an address of this machine")


def test_an_undecodable_host() -> None:
    proc = sandbox_process("--host", b"h\xff")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_in_process_through_run(held_port: int) -> None:
    r = cli("sandbox", "--port", str(held_port))
    assert r.code == 2 and "already in use" in r.err and r.out == ""
    r = cli("sandbox", "--port", "99999")
    assert r.code == 2 and "0..65535" in r.err


def test_bind_errors_are_oserrors(held_port: int) -> None:
    # Callers that caught OSError (the demo's) still do.
    with pytest.raises(OSError) as caught:
        bind_tcp("127.0.0.1", held_port)
    assert isinstance(caught.value, BindError)
