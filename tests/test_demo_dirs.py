"""Directories of demos ended by SIGKILL are removed by a later demo, and nothing else is.

Real directories and real processes: a dead owner is a child that has ended;
a live one is this test process.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from bottui.demo import OWNER_FILE, PREFIX, remove_abandoned, write_owner


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _demo_dir(parent: Path, name: str, owner: object | None) -> Path:
    directory = parent / f"{PREFIX}{name}"
    (directory / "config").mkdir(parents=True)
    (directory / "config" / "config.toml").write_text("x = 1\n")
    (directory / "sandbox.log").write_text("log\n")
    if owner is not None:
        (directory / OWNER_FILE).write_text(json.dumps(owner))
    return directory


def test_only_the_directories_of_dead_demos_of_this_host_are_removed(tmp_path: Path) -> None:
    host = socket.gethostname()
    dead = _demo_dir(tmp_path, "dead", {"pid": _dead_pid(), "host": host})
    live = _demo_dir(tmp_path, "live", {"pid": os.getpid(), "host": host})
    starting = _demo_dir(tmp_path, "starting", None)  # no owner written yet
    elsewhere = _demo_dir(tmp_path, "other-host", {"pid": _dead_pid(), "host": host + "-x"})
    garbled = _demo_dir(tmp_path, "garbled", None)
    (garbled / OWNER_FILE).write_text("{not json")
    bad_pid = _demo_dir(tmp_path, "bad-pid", {"pid": True, "host": host})
    not_demo = tmp_path / "something-else"
    not_demo.mkdir()
    (not_demo / OWNER_FILE).write_text(json.dumps({"pid": _dead_pid(), "host": host}))

    assert remove_abandoned(tmp_path) == [dead]
    assert not dead.exists()
    for kept in (live, starting, elsewhere, garbled, bad_pid, not_demo):
        assert kept.is_dir(), kept


def test_a_symlink_named_like_a_demo_is_not_followed(tmp_path: Path) -> None:
    target = _demo_dir(tmp_path / "elsewhere", "x", {"pid": _dead_pid(), "host": "h"})
    write_owner(target)
    (target / OWNER_FILE).write_text(json.dumps({"pid": _dead_pid(), "host": socket.gethostname()}))
    link = tmp_path / f"{PREFIX}link"
    link.symlink_to(target, target_is_directory=True)
    assert remove_abandoned(tmp_path) == []
    assert (target / "sandbox.log").exists()


def test_the_owner_is_this_process_on_this_host(tmp_path: Path) -> None:
    write_owner(tmp_path)
    owner = json.loads((tmp_path / OWNER_FILE).read_text())
    assert owner == {"pid": os.getpid(), "host": socket.gethostname()}
