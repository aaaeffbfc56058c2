"""One live bulk run per input: an OS file lock next to the journal.

Two runs of the same input (same profile, account, project and input hash)
share one run id; both sending every id would send each twice. The first
run holds an exclusive ``flock`` on ``bulk-runs/<key>.lock`` in the state
directory for as long as it runs, with its pid, host and run id written in
the file; a second run finds the lock taken and is refused, naming them.
The operating system drops the lock when its holder ends in any way,
SIGKILL included, so a stale lock never blocks a ``--resume``.

``fcntl`` locks exist on Linux and macOS. Where there is none (Windows),
:func:`acquire` returns None: the run goes ahead unguarded, and the caller
warns.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
from pathlib import Path
from typing import Any, Final

from bottui.store.paths import FILE_MODE, ensure
from bottui.store.utc import stamp, system_clock

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

LOCK_DIR: Final = "bulk-runs"
_MAX_HOLDER_BYTES: Final = 4096


class RunLive(Exception):
    """Another process holds the lock of this run; ``holder`` is what it wrote."""

    def __init__(self, holder: dict[str, Any]) -> None:
        self.holder = holder
        super().__init__(describe(holder))


def run_key(profile: str, account: str, project: str, input_sha256: str) -> str:
    """The lock's name for a run identity (hex; safe as a file name)."""
    data = json.dumps([profile, account, project, input_sha256.lower()]).encode()
    return hashlib.sha256(data).hexdigest()[:32]


def describe(holder: dict[str, Any]) -> str:
    """``pid 123 on host h (run #7, started 2026-...)`` from a lock file's contents."""
    pid = holder.get("pid")
    host = holder.get("host")
    words = (
        f"pid {pid if isinstance(pid, int) else '?'} on {host if isinstance(host, str) else '?'}"
    )
    extra = []
    if isinstance(holder.get("runId"), int):
        extra.append(f"run #{holder['runId']}")
    if isinstance(holder.get("started"), str):
        extra.append(f"started {holder['started']}")
    return f"{words} ({', '.join(extra)})" if extra else words


class RunLock:
    """A held lock; :meth:`release` (or the process's end) lets it go."""

    def __init__(self, path: Path, fd: int, holder: dict[str, Any]) -> None:
        self.path = path
        self._fd: int | None = fd
        self.holder = holder

    def __repr__(self) -> str:
        return f"RunLock({str(self.path)!r})"

    def note_run(self, run_id: int | None) -> None:
        """Add the run id to what a refused second run is told."""
        if run_id is not None and self._fd is not None:
            self.holder["runId"] = run_id
            _write(self._fd, self.holder)

    def release(self) -> None:
        """Let the lock go (the file stays: removing it would race a new holder)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing the last descriptor drops the flock


def acquire(state_dir: Path, key: str) -> RunLock | None:
    """Take the lock of run ``key`` without waiting.

    Returns None where the system has no ``flock``.

    Raises:
        RunLive: another process holds it.
        OSError: the lock file cannot be made or opened.
    """
    if fcntl is None:
        return None
    path = ensure(state_dir / LOCK_DIR) / f"{key}.lock"
    # No O_TRUNC: the file may hold the live holder's description.
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        live = _read(fd)
        os.close(fd)
        raise RunLive(live) from None
    except BaseException:
        os.close(fd)
        raise
    holder: dict[str, Any] = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": stamp(system_clock()),
    }
    _write(fd, holder)
    return RunLock(path, fd, holder)


def _write(fd: int, holder: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the description is a courtesy; the lock holds
        data = json.dumps(holder).encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)


def _read(fd: int) -> dict[str, Any]:
    try:
        data = os.pread(fd, _MAX_HOLDER_BYTES, 0)
        holder = json.loads(data.decode("utf-8")) if data else {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        holder = {}
    return holder if isinstance(holder, dict) else {}


__all__ = ["LOCK_DIR", "RunLive", "RunLock", "acquire", "describe", "run_key"]
