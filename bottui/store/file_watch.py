"""Has any process written these SQLite files since the last look? (#27, solo mode live)

:class:`DataVersionWatch` keeps one connection per file that never writes
and asks it ``PRAGMA data_version``: SQLite changes that number whenever
another connection (of this process or any other) commits to the file, and
reading it touches no page of the database (a shared-memory read under WAL).
So a look costs a few microseconds, and nothing changes while nothing is
written: cheap enough to ask twice a second in an open TUI.

A file that does not exist yet (no change journaled so far) is not created:
each look checks whether it appeared, and one that appears counts as a
change. A file that cannot be opened or read counts as unchanged (the
screens say what is wrong when they read it). Every look runs on a store
executor lane of the watch's own (``file-watch-N``), never on the event loop:
a second watch in the process (a test's second app) never queues behind the
first one's long wait.

:meth:`DataVersionWatch.wait_changed` keeps looking on that lane's thread
until something was written: while nothing is, the event loop is never
woken (a wake of the loop costs more than the look itself).
"""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from bottui.store.executor import StoreExecutor, shared_executor

#: The executor lanes of the looks, one per watch (``file-watch-N``; one thread each: its
#: connections are used by one at a time).
WATCH_LANE: Final = "file-watch"
_numbers = itertools.count(1)


class _Watched:
    """One file, its watching connection (None until it could be opened), its last number."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn: sqlite3.Connection | None = None
        self.version: int | None = None

    def look(self) -> bool:
        """True when the file was written (or appeared) since the last look."""
        if self.conn is None:
            if not self.path.exists():
                return False
            try:
                # mode=rw: never creates the file; the connection itself never writes.
                self.conn = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=rw",
                    uri=True,
                    check_same_thread=False,  # one lane, but its thread may be replaced
                    isolation_level=None,
                )
            except (sqlite3.Error, OSError, ValueError):
                return False
        try:
            (number,) = self.conn.execute("PRAGMA data_version").fetchone()
        except sqlite3.Error:
            self.close()
            return False
        before, self.version = self.version, int(number)
        # The first number read says nothing by itself, except that the file appeared.
        return before is None or before != self.version

    def close(self) -> None:
        conn, self.conn = self.conn, None
        self.version = None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()


class DataVersionWatch:
    """Whether any of ``paths`` was written since the previous :meth:`changed`.

    The first call only takes the numbers in (it reports the files that
    exist as unchanged), so a watch started on an idle machine says nothing
    until something is written.
    """

    def __init__(self, paths: Sequence[Path], *, executor: StoreExecutor | None = None) -> None:
        self._files = [_Watched(p) for p in paths]
        self._executor = executor or shared_executor()
        self._lane = f"{WATCH_LANE}-{next(_numbers)}"
        self._primed = False

    def _look(self) -> bool:
        seen = [f.look() for f in self._files]  # every file: each keeps its number
        if not self._primed:
            self._primed = True
            return False
        return any(seen)

    async def changed(self) -> bool:
        """True when some file was written (by anyone) since the last call."""
        return await self._executor.call(self._look, lane=self._lane)

    async def wait_changed(
        self,
        interval: float,
        stop: threading.Event,
        each_look: Callable[[], None] | None = None,
    ) -> bool:
        """Look every ``interval`` seconds until a file was written (True) or ``stop`` is set.

        The looks run on the watch lane's thread, one job for the whole wait;
        ``each_look`` is called there after each look (a test counts them).
        Set ``stop`` when the awaiting task is cancelled: the job ends at its
        next wake.
        """

        def work() -> bool:
            while not stop.wait(interval):
                changed = self._look()
                if each_look is not None:
                    each_look()
                if changed:
                    return True
            return False

        return await self._executor.call(work, lane=self._lane)

    def _close(self) -> None:
        for watched in self._files:
            watched.close()

    async def close(self) -> None:
        """Close the watching connections (on the lane that uses them)."""
        await self._executor.call(self._close, lane=self._lane)
