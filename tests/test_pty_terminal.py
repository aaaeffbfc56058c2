"""The test harness's process reader, against the machine's other processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pty_terminal import children


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_children_reads_a_child_whose_name_and_argv_are_not_utf8(tmp_path: Path) -> None:
    # A program whose file name (the process's comm) and argument hold a byte no UTF-8
    # decodes: what another test's hostile child looks like from /proc.
    hostile = b"bt-\xff\xfe-name"
    program = os.path.join(os.fsencode(tmp_path), hostile)
    os.symlink(os.fsencode(sys.executable), program)
    child = subprocess.Popen(
        [program, b"-c", b"import time; time.sleep(600)", hostile],
        stdin=subprocess.DEVNULL,
    )
    try:
        found = dict(children(os.getpid()))
        assert child.pid in found, found
        # The bytes are kept as replacement characters; the sleep is still recognisable.
        assert "bt-\ufffd\ufffd-name" in found[child.pid] and "600" in found[child.pid]
    finally:
        child.kill()
        child.wait()
