"""The throwaway PostgreSQL of ``bottui demo --team`` (and of the test fixture).

Its server is a child of the process that started it and ends with it, even
when that process is killed by SIGKILL (a parent-death signal): a real
process is killed here. A socket path that cannot fit is refused before
initdb runs, with the remedy.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from bottui.store.team.local_server import LocalPostgres, NoPostgres
from tests.pty_terminal import wait_gone

_STARTER = """
import sys, time
from pathlib import Path
from bottui.store.team.local_server import LocalPostgres, server_account

server = LocalPostgres(Path(sys.argv[1]), account=server_account())
server.initdb()
server.start()
print(server.pid, flush=True)
time.sleep(120)
"""


def test_the_server_ends_with_the_process_that_started_it_even_on_sigkill() -> None:
    # A PostgreSQL test never skips: elsewhere the promise does not hold, and says so.
    if not sys.platform.startswith("linux"):
        pytest.fail("the server's end with its parent rests on Linux's parent-death signal")
    root = Path(tempfile.mkdtemp(prefix="bt-", dir="/tmp"))
    starter = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_STARTER), str(root / "pg")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert starter.stdout is not None
        line = starter.stdout.readline()  # initdb and the start: seconds on a busy machine
        assert line.strip().isdigit(), starter.stderr.read() if starter.stderr else line
        server = int(line)
        os.kill(starter.pid, signal.SIGKILL)
        starter.wait(120)
        assert wait_gone(server, 20), "PostgreSQL outlived the process that started it"
    finally:
        if starter.poll() is None:
            starter.kill()
            starter.wait()
        shutil.rmtree(root, ignore_errors=True)


def test_a_socket_path_too_long_is_refused_with_the_remedy(tmp_path: Path) -> None:
    server = LocalPostgres(tmp_path / ("x" * 120), bindir=tmp_path, origin="test")
    with pytest.raises(NoPostgres) as refused:
        server.initdb()
    assert "TMPDIR" in refused.value.details
    assert not (tmp_path / ("x" * 120)).exists()  # refused before anything was made
