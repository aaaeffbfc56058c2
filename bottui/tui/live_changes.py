"""Changes made elsewhere, live in the TUI: by teammates (#13) and by another bottui here (#27).

**Teammates** (:class:`TeamLive`). With a team store configured, one task
follows the shared journal (:class:`~bottui.ops.live_feeds.LiveFeed`: LISTEN
on a connection of its own, off the event loop's turn, reconnecting by
itself). A teammate's change becomes a toast ("bob@bastion-2 disabled
rl-login on shop-prod · INC-4312", plain text: every string from the
database is cleaned) and every screen re-reads what it shows; once it
succeeded, the limiter's or dimension's known state follows
(:mod:`bottui.ops.team_inventory`), and what teammates taught the shared
inventory is merged into the local one at start and on each of its
notifications (:mod:`bottui.ops.team_inventory`). This process's own entries
(same journal origin) are not toasted. When the store cannot be heard, the
context bar says so and a warning toast says why; it clears itself when the
store is back. Never a traceback: the worker only reads.

**Another bottui on this machine** (:class:`LocalLive`). A CLI change,
``bottui run-due`` or a second TUI writes the journal and the inventory this
TUI reads, but tells it nothing. One task
(:class:`~bottui.ops.live_feeds.LocalFeed`, looking at both files'
``PRAGMA data_version`` on the store executor: nothing on the event loop's
turn) notices the write, and then every screen reads again what it shows
(tables, result panels, the Journal) and the header's countdown of timed
changes is read again, as a teammate's change does in team mode. It runs in
team mode too: the team feed leaves out this machine's own entries, and the
CLI's are among them.

Both are tasks on the app's loop, not Textual workers: they run as long as
the app, and a worker that never completes would hold up everything waiting
for the workers to finish. Imported after the first frame (the team feed's
modules cost it ~30 ms).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from bottui.ops import team_inventory
from bottui.ops.journal_view import own_origin
from bottui.ops.live_feeds import INTERVAL, LocalFeed, describe, follow_session, session_watch
from bottui.tui.services import LoopTask, TuiServices

if TYPE_CHECKING:
    from bottui.store.team.read_rows import TeamEntry


# -- teammates' changes ----------------------------------------------------------------

#: At most this many toasts per batch of arrivals; the rest are counted.
MAX_TOASTS: Final = 3


class TeamLive(LoopTask):
    """The live task of one TUI run (nothing when no team store is configured)."""

    TASK_NAME = "team live"

    def __init__(self, services: TuiServices) -> None:
        self._services = services

    def start(self) -> None:
        """Start following the shared journal (with a team store only)."""
        if self._services.session.settings.store_url:
            super().start()

    async def _run(self) -> None:
        # A row of the store the feed cannot read is toasted when skipped.
        self._services.session.on_skipped = self._services.flush_warnings
        try:
            await follow_session(
                self._services.session,
                self._arrived,
                self._state,
                on_finished=self._finished,
                on_inventory=self._inventory,
            )
        except Exception as exc:  # a bug must not pass silently, nor as a traceback
            self._services.report(exc)

    async def _arrived(self, entries: Sequence[TeamEntry]) -> None:
        mine = await own_origin(self._services.session)
        others = [e for e in entries if mine is None or e.origin != mine]
        if not others:
            return
        single = [e for e in others if e.run_id is None]
        bulk = len(others) - len(single)
        for entry in single[-MAX_TOASTS:]:
            self._services.say(describe(entry), "Teammate", timeout=8)
        hidden = max(0, len(single) - MAX_TOASTS) + bulk
        if hidden:
            self._services.say(f"and {hidden} more shared journal entries", "Teammate")
        self._services.inventory_changed()  # every screen re-reads (the Journal too)

    async def _finished(self, entries: Sequence[TeamEntry]) -> None:
        mine = await own_origin(self._services.session)
        others = [e for e in entries if mine is None or e.origin != mine]
        if others and await team_inventory.learn(self._services.session, others):
            self._services.inventory_changed()

    async def _inventory(self) -> None:
        """The shared inventory changed (or listening began): merge it, screens re-read."""
        session = self._services.session
        if await team_inventory.refresh_shared(session):
            self._services.inventory_changed()
        self._services.flush_warnings()

    async def _state(self, reason: str | None) -> None:
        services = self._services
        was_down = services.live_down is not None
        services.live_down = reason
        services.team_listening = reason is None
        services.redraw_bars()
        if reason is not None:
            services.say(
                f"Teammates' changes cannot be followed: {reason}. Trying again by itself.",
                "Team store unavailable",
                severity="warning",
                timeout=8,
            )
        elif was_down:
            services.say("The team store is back: teammates' changes arrive again.", "Team store")


# -- another bottui's changes on this machine ------------------------------------------


class LocalLive(LoopTask):
    """The solo live task of one TUI run.

    Args:
        services: The app's services (what is told of a change).
        interval: Seconds between two looks (None: :data:`~bottui.ops.live_feeds.INTERVAL`;
            tests make it short).
    """

    TASK_NAME = "local live"

    def __init__(self, services: TuiServices, *, interval: float | None = None) -> None:
        self._services = services
        self.feed = LocalFeed(
            session_watch(services.session),
            self._changed,
            interval=INTERVAL if interval is None else interval,
        )

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
