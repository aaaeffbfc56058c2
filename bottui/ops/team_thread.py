"""The push to the team store on a thread of its own: off the event loop of the TUI or a command.

Building a batch of events (JSON, redaction) and writing it by ``COPY`` is
CPU work; a bulk run of a million ids has a lot of it. On its own thread
with its own event loop, none of it delays a key press or a bulk run's
requests: the change never waits for PostgreSQL.

:class:`SharingThread` pushes at start, whenever :meth:`kick` is called
(after each change), every ``interval`` seconds, and once more when
stopped. Each state it reaches is handed to ``on_state`` *on the pushing
thread*: the caller hops to its own loop (the TUI with
``loop.call_soon_threadsafe``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable

from bottui.ops.team_sync import SyncState, TeamSync


class SharingThread:
    """Pushes of one :class:`TeamSync`, on a daemon thread with its own event loop.

    Args:
        team: The outbox and store (used by this thread only, once started).
        interval: Seconds between two pushes when nothing calls :meth:`kick`.
        on_state: Called (on this thread) with the state after each push.
    """

    def __init__(
        self,
        team: TeamSync,
        *,
        interval: float,
        on_state: Callable[[SyncState], None] | None = None,
    ) -> None:
        self.team = team
        self._interval = interval
        self._on_state = on_state
        self._thread = threading.Thread(target=self._main, name="bottui-team-push", daemon=True)
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kicked: asyncio.Event | None = None
        self._stopping = False

    def start(self) -> None:
        """Start pushing (returns once the thread's loop runs)."""
        self._thread.start()
        self._ready.wait()

    def kick(self) -> None:
        """Push now (a change was just journaled); thread-safe."""
        loop, kicked = self._loop, self._kicked
        if loop is not None and kicked is not None:
            with contextlib.suppress(RuntimeError):  # the loop has ended already
                loop.call_soon_threadsafe(kicked.set)

    def stop(self, budget: float) -> SyncState | None:
        """Push once more and stop, waiting at most ``budget`` seconds.

        Returns the last state, or ``None`` when the push did not end in
        time (the daemon thread is abandoned; what it had not pushed waits in
        the outbox for the next run).
        """
        self._stopping = True
        self.kick()
        self._thread.join(budget)
        return None if self._thread.is_alive() else self.team.state

    def _main(self) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._kicked = asyncio.Event()
        self._ready.set()
        try:
            while not self._stopping:
                self._report(await self.team.sync())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._kicked.wait(), self._interval)
                self._kicked.clear()
            # Stopping: what was journaled since the last push goes now.
            self._report(await self.team.sync())
        finally:
            await self.team.close()

    def _report(self, state: SyncState) -> None:
        if self._on_state is not None:
            with contextlib.suppress(Exception):  # a face that has gone away
                self._on_state(state)


__all__ = ["SharingThread"]
