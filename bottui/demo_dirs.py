"""The demo's temporary directories: who owns each, and removing those of dead demos.

A demo ended by SIGKILL (or a power cut) cannot remove its directory. Each
demo writes its owner (pid and host) into its directory when it starts, and
a later demo, once its first frame is on screen, removes the directories
whose owner is certainly gone: same user, same host, a recorded pid that no
longer runs. A directory without an owner file (another version, or a demo
still starting) or of another host (a shared ``/tmp`` seen from a container
with its own pids) is left alone: when in doubt, nothing is removed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import threading
from pathlib import Path
from typing import Final

#: The prefix ``tempfile`` gives a demo's directory.
PREFIX: Final = "bottui-demo-"
#: The owner file inside a demo's directory.
OWNER_FILE: Final = "owner.json"


def write_owner(root: Path) -> None:
    """Record this process as the owner of the demo directory ``root``."""
    owner = {"pid": os.getpid(), "host": socket.gethostname()}
    (root / OWNER_FILE).write_text(json.dumps(owner), encoding="utf-8")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


def _abandoned(directory: Path) -> bool:
    """Whether ``directory`` is a demo's whose owner certainly no longer runs."""
    try:
        if directory.is_symlink() or not directory.is_dir():
            return False
        if directory.stat().st_uid != os.getuid():
            return False
        owner = json.loads((directory / OWNER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(owner, dict) or owner.get("host") != socket.gethostname():
        return False
    pid = owner.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or pid == os.getpid():
        return False
    return not _alive(pid)


def _remove(directory: Path) -> None:
    # The owner file goes last: a removal cut short is found and finished next time.
    for child in directory.iterdir():
        if child.name == OWNER_FILE:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                child.unlink()
    with contextlib.suppress(OSError):
        (directory / OWNER_FILE).unlink()
        directory.rmdir()


def remove_abandoned(parent: Path) -> list[Path]:
    """Remove the directories of dead demos directly under ``parent``; those removed."""
    removed = []
    try:
        candidates = [p for p in parent.iterdir() if p.name.startswith(PREFIX)]
    except OSError:
        return []
    for directory in candidates:
        if _abandoned(directory):
            _remove(directory)
            removed.append(directory)
    return removed


def _sweep(parent: Path) -> None:
    # A thread's uncaught exception would print a traceback over the TUI.
    with contextlib.suppress(Exception):
        remove_abandoned(parent)


def remove_abandoned_later(parent: Path) -> threading.Thread:
    """:func:`remove_abandoned` on a daemon thread (never on the start-up path)."""
    thread = threading.Thread(target=_sweep, args=(parent,), name="bottui-demo-sweep", daemon=True)
    thread.start()
    return thread
