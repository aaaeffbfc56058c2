"""The TUI's part of team mode: the push thread, the shared journal's reads, their states.

Mixed into :class:`~bottui.tui.services.TuiServices` (the screens ask the
services for ``team_down``, ``journal_pages()``, ``share_soon()``): kept
apart so the services stay one job each. The push runs on a thread of its
own (:class:`~bottui.ops.team_push.SharingThread`); the Journal screen
reads the shared journal on the app's loop with a connection of its own.

The store counts as down for the Journal screen when the push's last
attempt failed, or a read of the shared journal failed: a push with nothing
to send does not reach the store, so only a push that gets through (or a
later read) clears a failed read, and reads try the store again at most
every :data:`READ_RETRY` seconds.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from bottui.store.errors import StoreError
from bottui.tui.messages import InventoryChanged

if TYPE_CHECKING:
    from textual.message import Message

    from bottui.ops.journal_pages import Pages
    from bottui.ops.session import Session
    from bottui.ops.shared_journal import SharedJournal
    from bottui.ops.team_push import SharingThread, SyncState
    from bottui.store.journal.protocol import JournalStore
    from bottui.store.team.pg_store import TeamStore
    from bottui.store.team.read_rows import Unreadable

#: Seconds after a failed read of the shared journal before a read tries it again.
READ_RETRY: Final = 15.0


class TeamServices:
    """The team store's push and shared-journal reads, for the TUI's services."""

    session: Session
    _broadcast: Callable[[Callable[[], Message]], None]
    _show_work: Callable[[], None]
    flush_warnings: Callable[[], None]

    def _init_team(self) -> None:
        #: Why teammates' changes cannot be followed (None: they can, or no team store).
        self.live_down: str | None = None
        #: True once teammates' changes are being followed (LISTEN holds).
        self.team_listening = False
        #: The header's team journal state ("" without a store, or all shared).
        self.team_text = ""
        #: The push found the team store down (its last attempt failed).
        self._push_down = False
        #: When a read of the shared journal last failed (None: the last one worked).
        self._read_failed_at: float | None = None
        self._sharing: SharingThread | None = None
        self._team_reader: SharedJournal | None = None
        #: The reader's own connection to the store (closed by :meth:`stop_team`).
        self._reader_store: TeamStore | None = None

    async def start_sharing(self) -> None:
        """With a team store: push at start, after each change and every 30 s (own thread)."""
        session = self.session
        if session.settings.store_url is None:
            return  # solo: none of team mode's modules (they cost the first frame ~15 ms)
        team = await session.team()
        if team is None:
            return
        import asyncio

        from bottui.ops.shared_journal import SharedJournal
        from bottui.ops.team_push import TUI_INTERVAL, SharingThread, open_team_store_url

        with contextlib.suppress(StoreError):
            await team.register()  # before this run's first change
        loop = asyncio.get_running_loop()

        def on_state(state: SyncState) -> None:  # on the push thread
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._team_state, state)

        self._sharing = SharingThread(team, interval=TUI_INTERVAL, on_state=on_state)
        self._sharing.start()
        session.hand_over_team()
        session.on_shared = self.share_soon  # inventory facts queued: push them now
        # The Journal screen reads with a connection of its own, on this loop.
        with contextlib.suppress(StoreError):
            reader = await open_team_store_url(
                session.settings.store_url, os.environ, session.tokens
            )
            reader.skips.on_skip = self._reader_skipped
            self._reader_store = reader
            self._team_reader = SharedJournal(
                session.journal_store,
                team,
                store=reader,
                on_down=self._read_down,
                on_up=self._read_up,
            )

    @property
    def team_down(self) -> bool:
        """The store is down: the Journal screen reads (and says it shows) the local journal."""
        return self._push_down or self._read_failed_at is not None

    def _team_state(self, state: SyncState) -> None:
        was_down, self._push_down = self._push_down, state.down is not None
        if state.header != self.team_text:
            self.team_text = state.header
            self._show_work()
        if was_down and not self._push_down:
            # The push reached the store again: the shared journal is worth a read.
            self._read_failed_at = None
            self._broadcast(InventoryChanged)

    def _read_down(self, _reason: str) -> None:
        # A read failed while the push, with nothing waiting, may not have tried the
        # store: reads stay local (and say so) until the push or a later read gets
        # through. Never cleared by a push that had nothing to send: that would read,
        # fail and push again in a loop while the store is down.
        self._read_failed_at = time.monotonic()
        self.share_soon()

    def _reader_skipped(self, row: Unreadable) -> None:
        # On the app's loop (the reader reads there): a warning, toasted now.
        self.session.warn(row.line)
        self.flush_warnings()

    def _read_up(self) -> None:
        self._read_failed_at = None

    def share_soon(self) -> None:
        """A change was journaled: push it now (nothing without a team store)."""
        if self._sharing is not None:
            self._sharing.kick()

    def stop_sharing(self, budget: float = 2.0) -> None:
        """Push once more and stop (at quit; what is left waits for the next run)."""
        if self._sharing is not None:
            sharing, self._sharing = self._sharing, None
            sharing.stop(budget)

    async def stop_team(self) -> None:
        """Stop pushing to and reading the team store, its state cleared (a profile switch).

        The push thread's last push is awaited on the store executor, never on the loop.
        """
        from bottui.store.executor import run_blocking

        sharing, self._sharing = self._sharing, None
        if sharing is not None:
            await run_blocking(lambda: sharing.stop(2.0))
        reader = self._reader_store
        self._init_team()
        if reader is not None:
            with contextlib.suppress(StoreError):
                await reader.close()
        self._show_work()

    def journal_pages(self) -> Pages | JournalStore:
        """What the Journal screen reads: the shared journal, or the local one when
        there is no team store or it is down."""
        if self._team_reader is None or self._push_down:
            return self.session.journal_store
        failed = self._read_failed_at
        if failed is not None and time.monotonic() - failed < READ_RETRY:
            return self.session.journal_store
        return self._team_reader


__all__ = ["READ_RETRY", "TeamServices"]
