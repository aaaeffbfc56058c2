"""Live in solo mode: what another bottui of this user wrote, seen within a second (#27).

The CLI, ``bottui run-due`` and a second TUI write the same journal and
inventory files as this TUI. :class:`LocalFeed` has the store executor look
every :data:`INTERVAL` seconds whether either file was written since
(:class:`~bottui.store.file_watch.DataVersionWatch`: ``PRAGMA
data_version`` on connections that never write) and awaits ``on_change``
when one was. The looking is one job on the watch lane's thread: while
nothing is written the event loop is not woken at all. Idle, a look is a
thread's wake and two pragmas: ``tests/bench/local_live.py`` measures it.

The interval is injectable, and :meth:`LocalFeed.rounds` lets a test wait
for the next looks to have happened instead of sleeping.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final

from bottui.store.file_watch import DataVersionWatch

if TYPE_CHECKING:
    from bottui.ops.session import Session

#: Seconds between two looks: a change shows within this and one read of the screens.
INTERVAL: Final = 0.5


class LocalFeed:
    """Calls ``on_change`` after each look that found the journal or inventory written.

    Args:
        watch: What to look at (the session's journal and inventory files).
        on_change: Awaited once per look that found a change.
        interval: Seconds between looks.
    """

    def __init__(
        self,
        watch: DataVersionWatch,
        on_change: Callable[[], Awaitable[None]],
        *,
        interval: float = INTERVAL,
    ) -> None:
        self._watch = watch
        self._on_change = on_change
        self.interval = interval
        #: Looks made so far (counted on the watch lane's thread).
        self.looks = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Futures of :meth:`rounds`, with the look count each waits for.
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []

    def _looked(self) -> None:
        # On the watch lane's thread: the loop is told only when a test waits.
        self.looks += 1
        if self._waiting and self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        still = []
        for target, future in self._waiting:
            if self.looks >= target:
                if not future.done():
                    future.set_result(None)
            else:
                still.append((target, future))
        self._waiting = still

    async def rounds(self, count: int = 1) -> None:
        """Return once ``count`` more looks have been made (for tests: no sleeping)."""
        future = asyncio.get_running_loop().create_future()
        self._waiting.append((self.looks + count, future))
        await future

    async def run(self) -> None:
        """Look until cancelled; closes the watch's connections when it ends."""
        self._loop = asyncio.get_running_loop()
        stop = threading.Event()
        try:
            await self._watch.changed()  # takes the numbers in
            while True:
                if await self._watch.wait_changed(self.interval, stop, self._looked):
                    await self._on_change()
        finally:
            stop.set()  # the lane's job ends at its next wake; then the close runs
            await asyncio.shield(self._watch.close())


def session_watch(session: Session) -> DataVersionWatch:
    """A watch of the session's journal (changes, timed changes) and inventory files."""
    locations = session.locations
    return DataVersionWatch([locations.journal_file, locations.inventory_file])


__all__ = ["INTERVAL", "LocalFeed", "session_watch"]
