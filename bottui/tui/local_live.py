"""Solo mode, live: another bottui's changes on this machine show within a second (#27).

A CLI change, ``bottui run-due`` or a second TUI writes the journal and the
inventory this TUI reads, but tells it nothing. One task
(:class:`~bottui.ops.live_feeds.LocalFeed`, looking at both files'
``PRAGMA data_version`` on the store executor: nothing on the event loop's
turn) notices the write, and then every screen reads again what it shows
(tables, result panels, the Journal) and the header's countdown of timed
changes is read again, as a teammate's change does in team mode
(:mod:`bottui.tui.team_live`). It runs in team mode too: the team feed
leaves out this machine's own entries, and the CLI's are among them.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from bottui.ops.live_feeds import INTERVAL, LocalFeed, session_watch

if TYPE_CHECKING:
    from bottui.tui.services import TuiServices


class LocalLive:
    """The solo live task of one TUI run.

    Args:
        services: The app's services (what is told of a change).
        interval: Seconds between two looks (None: :data:`~bottui.ops.live_feeds.INTERVAL`;
            tests make it short).
    """

    def __init__(self, services: TuiServices, *, interval: float | None = None) -> None:
        self._services = services
        self.feed = LocalFeed(
            session_watch(services.session),
            self._changed,
            interval=INTERVAL if interval is None else interval,
        )
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start looking (a task on the app's loop, not a worker that never completes)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="local live")

    def stop(self) -> None:
        """Stop looking (the app is closing)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    async def _run(self) -> None:
        try:
            await self.feed.run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug must not pass silently, nor as a traceback
            self._services.report(exc)

    async def _changed(self) -> None:
        # Every screen reads again (the Journal too), and the header's countdown.
        self._services.inventory_changed()


__all__ = ["LocalLive"]
