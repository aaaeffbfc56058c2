"""Waiting for another process's SQLite lock: bounded, jittered retry, and its statistics.

Several processes write one journal (the TUI, CLI commands, a bulk run). In
WAL mode only one may write at a time; the others get ``SQLITE_BUSY``.
SQLite's own busy handler is not enough on its own:

* it polls ever more slowly (up to every 100 ms), so a process that has
  waited a while loses the lock, again and again, to whoever asks first
  after it is released: under load a waiter starved past the 2 s timeout;
* some ``SQLITE_BUSY`` answers never reach it (a deferred transaction
  upgrading to write, two connections switching a new file to WAL).

So a connection's own busy handler only gets a short slice
(:data:`HANDLER_SLICE`) and :func:`retry_busy` retries the step (``BEGIN
IMMEDIATE``, ``COMMIT``, opening) until a deadline, sleeping a short,
jittered, growing pause between attempts, capped low (:data:`MAX_PAUSE`) so
an old waiter asks as often as a new one. :class:`LockStats` counts how long
writes waited: a figure for benchmarks and debugging, never shown to users.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, TypeVar

T = TypeVar("T")

#: Seconds SQLite's busy handler waits inside one attempt (it polls at 1, 3, 8 ms).
HANDLER_SLICE: Final = 0.01
#: First pause between attempts, doubled after each until :data:`MAX_PAUSE`.
FIRST_PAUSE: Final = 0.001
#: Longest pause: low, so the lock goes to a waiter within a few ms of its release.
MAX_PAUSE: Final = 0.016

# Primary result codes (sqlite3.h).
SQLITE_BUSY: Final = 5
SQLITE_LOCKED: Final = 6


def is_busy(exc: BaseException) -> bool:
    """True when ``exc`` says another connection holds a lock (worth waiting for)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (SQLITE_BUSY, SQLITE_LOCKED)
    return "locked" in str(exc).lower()  # Python built without error codes


def retry_busy(action: Callable[[], T], deadline: float) -> tuple[T, int]:
    """``action()`` until it does not fail busy, or ``deadline`` (``time.monotonic``) passes.

    Returns its result and how many attempts failed busy first. The last
    attempt is made at the deadline at the latest; then the busy error is
    raised as it is. Other errors are raised at once.
    """
    pause = FIRST_PAUSE
    failed = 0
    while True:
        try:
            return action(), failed
        except sqlite3.OperationalError as exc:
            left = deadline - time.monotonic()
            if not is_busy(exc) or left <= 0:
                raise
        failed += 1
        # Equal jitter: between half and all of the pause, so waiters spread out.
        time.sleep(min(left, pause * (0.5 + random.random() / 2)))
        pause = min(pause * 2, MAX_PAUSE)


@dataclass
class LockStats:
    """How the writes of one store waited for the write lock (seconds).

    ``wait`` runs from the first ``BEGIN IMMEDIATE`` attempt to the lock
    taken (retries and pauses included); ``hold`` from the lock taken to
    ``COMMIT`` returned (the fsync, and a checkpoint that follows a commit).
    Shared by a journal and its bulk writers; safe across threads.
    """

    writes: int = 0
    #: Attempts that found the lock taken and were tried again.
    retries: int = 0
    #: Writes that gave up at the deadline (the caller saw "locked").
    timeouts: int = 0
    max_wait: float = 0.0
    total_wait: float = 0.0
    max_hold: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def note_write(self, wait: float, retries: int, hold: float) -> None:
        """Count one committed write."""
        with self._lock:
            self.writes += 1
            self.retries += retries
            self.total_wait += wait
            self.max_wait = max(self.max_wait, wait)
            self.max_hold = max(self.max_hold, hold)

    def note_timeout(self, wait: float, retries: int) -> None:
        """Count a write that waited past its deadline."""
        with self._lock:
            self.timeouts += 1
            self.retries += retries
            self.total_wait += wait
            self.max_wait = max(self.max_wait, wait)

    def as_dict(self) -> dict[str, float | int]:
        """The figures, e.g. for a benchmark's JSON."""
        with self._lock:
            return {
                "writes": self.writes,
                "retries": self.retries,
                "timeouts": self.timeouts,
                "max_wait": self.max_wait,
                "total_wait": self.total_wait,
                "max_hold": self.max_hold,
            }


__all__ = [
    "FIRST_PAUSE",
    "HANDLER_SLICE",
    "MAX_PAUSE",
    "LockStats",
    "is_busy",
    "retry_busy",
]
