"""Bulk input that is not a list of ids is refused before any request (exit 2), and Ctrl-C
works while it is read (#25): devices, binary bytes, an endless line, named pipes.

Real files: ``/dev/zero`` and ``/dev/urandom``, a FIFO (``os.mkfifo``) with no writer, with
a writer that writes nothing (then SIGINT), and with one that writes ids; real processes
where a signal or a pipe on stdin is the point.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bottui.api.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_REFUSED
from bottui.ops.bulk.input import MAX_INPUT_LINE_BYTES
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope


def _start(source: str, *, stdin: int | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bottui", "revoke", "--from-file", source, *scope()],
        stdin=stdin if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def _wait_until_open(proc: subprocess.Popen[str], path: Path) -> None:
    """Until ``proc`` holds ``path`` open (a condition, polled; the bound only catches a hang)."""
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, proc.communicate()
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
            held = any(os.readlink(f"/proc/{proc.pid}/fd/{fd}") == str(path) for fd in fds)
        except OSError:  # a descriptor closed while we looked
            held = False
        if held:
            return
        assert time.monotonic() < deadline, "bottui never opened the pipe"
        time.sleep(0.01)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused_before_sending(env: SandboxServer, device: str) -> None:
    done = cli("revoke", "--from-file", device, *scope())
    assert done.code == EXIT_REFUSED, done.err
    assert "device" in done.err
    assert env.state.recorder.log == []


def test_binary_on_stdin_is_refused(env: SandboxServer) -> None:
    with open("/dev/zero", "rb") as zero:
        proc = _start("-", stdin=zero.fileno())
        _out, err = proc.communicate(timeout=120)
    assert proc.returncode == EXIT_REFUSED, err
    assert "binary" in err and "Traceback" not in err
    assert env.state.recorder.log == []


def test_a_nul_byte_or_an_endless_line_refuses_the_whole_input(
    env: SandboxServer, tmp_path: Path
) -> None:
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"vis_1\nvis_\x002\n")
    endless = tmp_path / "endless.txt"
    endless.write_bytes(b"vis_1\n" + b"x" * (MAX_INPUT_LINE_BYTES + 1) + b"\nvis_2\n")
    for path, words in ((nul, "binary"), (endless, "not a list of ids")):
        done = cli("revoke", "--from-file", str(path), *scope())
        assert done.code == EXIT_REFUSED, done.err
        assert words in done.err
    assert env.state.recorder.log == []


def test_a_fifo_with_no_writer_is_refused_at_once(env: SandboxServer, tmp_path: Path) -> None:
    fifo = tmp_path / "ids.fifo"
    os.mkfifo(fifo)
    done = cli("revoke", "--from-file", str(fifo), *scope())
    assert done.code == EXIT_REFUSED, done.err
    assert "no writer" in done.err
    assert env.state.recorder.log == []


def test_ctrl_c_while_a_silent_writer_holds_the_fifo(env: SandboxServer, tmp_path: Path) -> None:
    fifo = tmp_path / "ids.fifo"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer that never writes
    proc = _start(str(fifo))
    try:
        _wait_until_open(proc, fifo)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=300)
    finally:
        os.close(writer)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "interrupted" in err and "Traceback" not in err
    assert env.state.recorder.log == []


def test_a_fifo_with_a_writer_is_read_once_and_sent(env: SandboxServer, tmp_path: Path) -> None:
    fifo = tmp_path / "ids.fifo"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    os.write(writer, b"vis_fifo_1\nvis_fifo_2\n")
    proc = _start(str(fifo))
    try:
        _wait_until_open(proc, fifo)
        os.close(writer)  # the ids wait in the pipe; its end comes with this close
        writer = -1
        _out, err = proc.communicate(timeout=120)
    finally:
        if writer >= 0:
            os.close(writer)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == EXIT_OK, err
    assert len(env.state.recorder.log) == 2  # read once, spooled, both ids sent
