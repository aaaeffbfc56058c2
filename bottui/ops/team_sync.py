"""Pushing the local journal to the team store: never in the way of a change.

A change is journaled in the local SQLite journal first (durable, as
without a team store) and pushed to PostgreSQL afterwards, by
:meth:`TeamSync.sync`: at start, after each change, every 30 s in the TUI,
and by ``bottui store sync``. Pushing is at-least-once (the cursor moves
only after the store said yes) and the store keeps each event once (unique
event id), so a crash between the local write and the push, or a push whose
answer is lost, repeats a push but never loses or duplicates an event.

Nothing here raises to the caller for the store's sake: a store that is
down (stopped, unreachable, credentials revoked, disk full) leaves the
entries waiting, and :attr:`TeamSync.state` says so in one line
(the header's "team journal: N not yet shared", the CLI's warning). The
local SQLite work runs on the store executor, the push on psycopg's async
connection: nothing blocks the event loop, and every push is time-bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeVar
from uuid import UUID

from bottui.store.errors import StoreError
from bottui.store.executor import StoreExecutor, shared_executor
from bottui.store.files import real_path
from bottui.store.team.errors import StoreUnavailable
from bottui.store.team.facts_outbox import FactsOutbox, facts_file
from bottui.store.team.from_local import events_of
from bottui.store.team.outbox import BATCH, Backlog, Outbox, Pending, Scope

if TYPE_CHECKING:
    from bottui.store.team.store import TeamStore

R = TypeVar("R")

#: Seconds a CLI command waits at its end for the push of what it journaled.
EXIT_BUDGET: Final = 5.0
#: Seconds between two pushes in the TUI (and while a bulk run goes, less).
TUI_INTERVAL: Final = 30.0


@dataclass(frozen=True)
class SyncState:
    """Where sharing stands: events waiting, the last push, and why it stopped."""

    waiting: int = 0
    last_sync: datetime | None = None
    #: One cleaned line when the store could not be reached (None: it answered).
    down: str | None = None

    @property
    def header(self) -> str:
        """The header's words ("" when everything is shared)."""
        if self.down is not None:
            if not self.waiting:
                return "team journal: store down"
            return f"team journal: store down, {self.waiting} not yet shared"
        if self.waiting:
            return f"team journal: {self.waiting} not yet shared"
        return ""


class TeamSync:
    """The outbox of one journal file towards one team store.

    Args:
        journal: The local journal file.
        store: The team store (opened lazily by its first call).
        executor: Where the SQLite side runs (the process's shared one).
    """

    def __init__(
        self,
        journal: Path,
        store: TeamStore,
        *,
        executor: StoreExecutor | None = None,
        batch: int = BATCH,
    ) -> None:
        self.store = store
        self.key = store.target.keyring_username
        self._outbox = Outbox(journal)
        #: The shared inventory's facts learned here (pushed after the journal's events).
        self._facts = FactsOutbox(facts_file(journal))
        self._executor = executor or shared_executor()
        self._lane = f"team-outbox:{real_path(journal)}"
        self._batch = batch
        self._lock = asyncio.Lock()
        self._registered = False
        self.state = SyncState()
        #: Called with the new state after each sync (the TUI's header).
        self.on_state: Callable[[SyncState], None] | None = None

    async def _local(self, fn: Callable[[], R]) -> R:
        return await self._executor.call(fn, lane=self._lane)

    async def register(self) -> None:
        """Share what is journaled from now on (before the first change of a run)."""
        if not self._registered:
            await self._local(lambda: self._outbox.register(self.key))
            self._registered = True

    async def backfill(self, scope: Scope) -> int:
        """Share the history journaled here before the store was configured, of the
        store's own base URL, account and project (``scope``) only: how many entries
        went (``bottui store sync --backfill``). Idempotent: the store keeps each
        event once. An entry unfinished then is shared as it stands.

        Raises:
            StoreUnavailable: the store could not take them (what went stays).
        """
        await self.register()
        sent, after = 0, 0
        while True:
            batch = await self._local(
                functools.partial(self._outbox.older, self.key, scope, after, self._batch)
            )
            if batch.entries:
                await self.store.push(events_of(batch.entries, ()))
                sent += len(batch.entries)
            if batch.after is None:
                return sent
            after = batch.after

    async def since_id(self) -> int | None:
        """Entries up to this id were journaled before the store was configured here."""
        return await self._local(lambda: self._outbox.since_id(self.key))

    async def not_shared(self, scope: Scope) -> int:
        """Entries of ``scope`` journaled before the store was configured and not in it."""
        since = await self.since_id()
        origin = await self.origin()
        if not since or origin is None:
            return 0
        total = await self._local(lambda: self._outbox.older_count(self.key, scope))
        held = await self.store.held_count(UUID(origin), since)
        return max(0, total - held)

    async def backlog(self) -> Backlog:
        """Events waiting and the last successful push (local only: no store call)."""
        return await self._local(lambda: self._outbox.backlog(self.key))

    async def pushed_id(self) -> int | None:
        """Local entries above this id are not yet shared (None: not registered)."""
        return await self._local(lambda: self._outbox.pushed_id(self.key))

    async def origin(self) -> str | None:
        """The local journal's origin UUID (a run id is per journal file)."""
        return await self._local(self._outbox.origin)

    async def sync(self, *, until_empty: bool = True) -> SyncState:
        """Push what waits, a batch at a time; the state after (never raises for the store)."""
        async with self._lock:
            down: str | None = None
            try:
                await self.register()
                while True:
                    pending: Pending = await self._local(
                        lambda: self._outbox.pending(self.key, self._batch)
                    )
                    if pending.empty:
                        break
                    events = events_of(pending.entries, pending.outcomes)
                    pushed = await self.store.push(events)
                    await self._record(pending, orphans=pushed.orphans > 0)
                    if not until_empty:
                        break
                await self._push_facts(until_empty=until_empty)
            except StoreUnavailable as exc:
                down = exc.title
            except StoreError as exc:  # the local journal itself: the change went ahead anyway
                down = exc.title
            try:
                backlog = await self.backlog()
            except StoreError:
                backlog = Backlog(self.state.waiting, self.state.last_sync)
            self.state = SyncState(backlog.waiting, backlog.last_sync, down)
        if self.on_state is not None:
            self.on_state(self.state)
        return self.state

    async def _push_facts(self, *, until_empty: bool) -> None:
        """The inventory's facts waiting here, after the journal (a teammate's
        live feed then learns the change before the state it taught)."""
        while True:
            facts, seqs = await self._local(lambda: self._facts.pending(self.key))
            if not facts:
                return
            await self.store.put_facts(facts)
            await self._local(functools.partial(self._facts.pushed, self.key, facts, seqs))
            if not until_empty:
                return

    async def _record(self, pending: Pending, *, orphans: bool) -> None:
        await self._local(lambda: self._outbox.pushed(self.key, pending, orphans=orphans))

    async def sync_within(self, budget: float) -> SyncState:
        """:meth:`sync`, given up after ``budget`` seconds (what waits stays waiting)."""
        try:
            async with asyncio.timeout(budget):
                return await self.sync()
        except TimeoutError:
            return await self.gave_up(budget)

    async def gave_up(self, budget: float) -> SyncState:
        """The state after a push cut off at ``budget`` seconds (its connection dropped)."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1):
                # A push cancelled mid-transaction leaves its connection in doubt.
                await self.store.close()
        backlog = Backlog(self.state.waiting, self.state.last_sync)
        with contextlib.suppress(StoreError, TimeoutError):
            async with asyncio.timeout(2):
                backlog = await self.backlog()
        self.state = SyncState(
            backlog.waiting,
            backlog.last_sync,
            f"the team store did not take the entries within {budget:g} s",
        )
        return self.state

    async def close(self) -> None:
        """Close the store's connection and the outbox's."""
        with contextlib.suppress(Exception):
            await self.store.close()
        with contextlib.suppress(Exception):
            await self._local(self._outbox.close)
        with contextlib.suppress(Exception):
            await self._local(self._facts.close)


__all__ = ["EXIT_BUDGET", "TUI_INTERVAL", "SyncState", "TeamSync"]
