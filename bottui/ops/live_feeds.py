"""Live: what others wrote, seen as it arrives, in team mode and in solo mode.

**Team mode** (#13). :class:`LiveFeed` follows the shared journal for the TUI
and ``bottui journal --follow``: it LISTENs (a connection of its own), reads
the entries each notification announces, and, when the database goes away,
says so through ``on_state`` and tries again by itself every :data:`RETRY`
seconds, catching up on what was written meanwhile. Nothing here blocks a
change: it only reads. Server ids are given in insert order but committed in
any order, so each read looks :data:`SLACK` ids back from the newest seen and
skips the ids already handed over: an entry committed late is not lost.
:func:`describe` is the one line a teammate's change becomes ("bob@bastion-2
disabled rl-login on shop-prod · INC-4312"); every field is cleaned
(``plaintext.clean``): the database's strings are untrusted.

**Solo mode** (#27). The CLI, ``bottui run-due`` and a second TUI write the
same journal and inventory files as this TUI. :class:`LocalFeed` has the store
executor look every :data:`INTERVAL` seconds whether either file was written
since (:class:`~bottui.store.file_watch.DataVersionWatch`: ``PRAGMA
data_version`` on connections that never write) and awaits ``on_change`` when
one was. The looking is one job on the watch lane's thread: while nothing is
written the event loop is not woken at all. Idle, a look is a thread's wake
and two pragmas: ``tests/bench/local_live.py`` measures it. The interval is
injectable, and :meth:`LocalFeed.rounds` lets a test wait for the next looks
to have happened instead of sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Final

from bottui.ops.journal_view import what, who
from bottui.plaintext import clean
from bottui.store.file_watch import DataVersionWatch
from bottui.store.store_errors import StoreError
from bottui.store.team.pg_schema import INVENTORY_CHANNEL

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.store.team.pg_store import TeamStore
    from bottui.store.team.read_rows import TeamEntry


#: How far back (in server ids) each read looks for entries committed late.
SLACK: Final = 200
#: Seconds between two attempts to listen again.
RETRY: Final = 2.0
_SEEN: Final = 4 * SLACK

EntriesCallback = Callable[[Sequence["TeamEntry"]], Awaitable[None]]
StateCallback = Callable[[str | None], Awaitable[None]]


def describe(entry: TeamEntry) -> str:
    """The toast's and ``--follow``'s line: who, what, where, why."""
    line = f"{who(entry)} {what(entry)}"
    if entry.undo_of is not None:
        line += " (undo)"
    if entry.reason:
        line += f" · {clean(entry.reason)}"
    return line


class LiveFeed:
    """New shared entries as they arrive, and whether the store can be heard.

    Args:
        store: The team store.
        on_entries: Awaited with each batch of new entries, oldest first.
        on_state: Awaited with a one-line reason when the store cannot be
            heard, with None when it can again (and once when first heard).
        on_finished: Awaited with entries handed over earlier (or now) once
            their outcome is known (a teammate's change that succeeded
            teaches the inventory).
        on_inventory: Awaited when the shared inventory changed, and each
            time listening (re)starts (what was written meanwhile).
    """

    def __init__(
        self,
        store: TeamStore,
        on_entries: EntriesCallback,
        on_state: StateCallback,
        *,
        on_finished: EntriesCallback | None = None,
        on_inventory: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._store = store
        self._on_inventory = on_inventory
        self._on_entries = on_entries
        self._on_state = on_state
        self._on_finished = on_finished
        #: Entries handed over without an outcome yet (their ids, oldest first).
        self._pending: deque[int] = deque(maxlen=_SEEN)
        #: The newest server id read (None: not listening yet; from then on, only newer).
        self._mark: int | None = None
        #: Ids at or below it are never handed over (what existed before we listened).
        self._floor = 0
        self._seen: deque[int] = deque(maxlen=_SEEN)
        self._seen_set: set[int] = set()
        #: Why the store cannot be heard (None: it can).
        self._down: str | None = "starting"

    async def run(self) -> None:
        """Listen until cancelled; never raises for the database."""
        while True:
            try:
                await self._listen_once()
                reason = "the team store closed the connection"
            except StoreError as exc:
                reason = clean(exc.title)
            if self._down != reason:
                self._down = reason
                await self._on_state(reason)
            await asyncio.sleep(RETRY)

    async def _listen_once(self) -> None:
        ready = asyncio.Event()
        stream = self._store.listen(ready)
        waiter = asyncio.ensure_future(anext(stream))
        try:
            started = asyncio.ensure_future(ready.wait())
            try:
                await asyncio.wait({waiter, started}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                started.cancel()
            if waiter.done() and not ready.is_set():
                waiter.result()  # raises what stopped the listener
                return
            if self._mark is None:
                self._mark = self._floor = await self._store.last_id()
            else:
                await self._catch_up()  # what was written while not listening
            if self._down is not None:
                self._down = None
                await self._on_state(None)
            if self._on_inventory is not None:
                await self._on_inventory()  # what teammates taught while not listening
            while True:
                change = await waiter
                if change.table == "journal_outcomes":
                    await self._outcomes()
                elif change.channel == INVENTORY_CHANNEL:
                    if self._on_inventory is not None:
                        await self._on_inventory()
                else:
                    # journal_entries, or a payload that is not bottui's (any role
                    # may NOTIFY): a hint to re-read, nothing more.
                    await self._catch_up()
                waiter = asyncio.ensure_future(anext(stream))
        except StopAsyncIteration:
            return
        finally:
            waiter.cancel()
            with contextlib.suppress(BaseException):
                await waiter
            closing = getattr(stream, "aclose", None)
            if closing is not None:
                with contextlib.suppress(BaseException):
                    await closing()

    async def _catch_up(self) -> None:
        while True:
            after = max(0, (self._mark or 0) - SLACK)
            scan = await self._store.scan_after(after, limit=SLACK * 2)
            found = scan.entries  # a row it cannot read is skipped (and said), not a stop
            fresh = [e for e in found if e.id > self._floor and e.id not in self._seen_set]
            for entry in fresh:
                self._remember(entry.id)
            if scan.rows:
                self._mark = max(self._mark or 0, scan.last)
            if fresh:
                await self._on_entries(fresh)
                await self._finished(fresh)
            if scan.rows < SLACK * 2:
                return

    async def _finished(self, entries: Sequence[TeamEntry]) -> None:
        done = [e for e in entries if e.outcome is not None]
        self._pending.extend(e.id for e in entries if e.outcome is None)
        if done and self._on_finished is not None:
            await self._on_finished(done)

    async def _outcomes(self) -> None:
        if not self._pending:
            return
        found = await self._store.entries(list(self._pending))
        done = [e for e in found if e.outcome is not None]
        finished = {e.id for e in done}
        self._pending = deque((i for i in self._pending if i not in finished), maxlen=_SEEN)
        if done and self._on_finished is not None:
            await self._on_finished(done)

    def _remember(self, entry_id: int) -> None:
        if len(self._seen) == self._seen.maxlen:
            self._seen_set.discard(self._seen[0])
        self._seen.append(entry_id)
        self._seen_set.add(entry_id)


async def follow_session(
    session: Session,
    on_entries: EntriesCallback,
    on_state: StateCallback,
    *,
    on_finished: EntriesCallback | None = None,
    on_inventory: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Follow the session's team store until cancelled (nothing when none is configured).

    A store that is refused (its URL, the driver missing) is said once through
    ``on_state`` and not tried again; one that is down is retried by the feed.
    """
    try:
        store = await session.team_store()
    except StoreError as exc:
        await on_state(clean(exc.title))
        return
    if store is None:
        return
    await LiveFeed(
        store, on_entries, on_state, on_finished=on_finished, on_inventory=on_inventory
    ).run()


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
