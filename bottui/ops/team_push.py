"""Pushing this machine's outbox to the team store: never in the way of a change.

A change is journaled in the local SQLite journal first (durable, as
without a team store), an inventory fact queued locally, a timed change's
event journaled; all of it is pushed to PostgreSQL afterwards, as one stream
of typed events (:class:`~bottui.store.team.outbox.Outbox`), by
:meth:`TeamSync.sync`: at start, after each change, every 30 s in the TUI,
and by ``bottui store sync``. Pushing is at-least-once (the cursor moves
only after the store said yes) and the store keeps each event once (unique
event id), so a crash between the local write and the push, or a push whose
answer is lost, repeats a push but never loses or duplicates an event.

Nothing here raises to the caller for the store's sake: a store that is
down (stopped, unreachable, credentials revoked, disk full) leaves the
events waiting, and :attr:`TeamSync.state` says so in one line
(the header's "team journal: N not yet shared", the CLI's warning). The
local SQLite work runs on the store executor, the push on psycopg's async
connection: nothing blocks the event loop, and every push is time-bounded.

:class:`SharingThread` runs the pushes on a thread of its own with its own
event loop: building a batch of events (JSON, redaction) and writing it by
``COPY`` is CPU work, and a bulk run of a million ids has a lot of it; there,
none of it delays a key press or a bulk run's requests. It pushes at start,
whenever :meth:`SharingThread.kick` is called (after each change), every
``interval`` seconds, and once more when stopped. Each state it reaches is
handed to ``on_state`` *on the pushing thread*: the caller hops to its own
loop (the TUI with ``loop.call_soon_threadsafe``).

Opening a profile's team store (:func:`open_team_store`): ``BOTTUI_STORE_URL``
wins over the profile's ``store``; the demo reads neither. The URL is checked
before anything connects (no password in it, verified TLS off loopback:
:func:`bottui.store.team.store_target.check_store_url`). The password is
libpq's business (``~/.pgpass``, ``PGPASSWORD``, a client certificate,
``PGSERVICE``) unless the keyring keeps one for this URL (``bottui token set
store``); ``PGPASSWORD`` wins over the keyring, as the environment wins for
the API tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeVar
from uuid import UUID

import msgspec

from bottui.store.config.config_model import Profile
from bottui.store.executor import StoreExecutor, run_blocking, shared_executor
from bottui.store.keyring_tokens import TokenStore
from bottui.store.store_errors import KeyringUnavailable, StoreError
from bottui.store.team import resolve_store_url
from bottui.store.team.outbox import BATCH, Backlog, Batch, Outbox, Scope
from bottui.store.team.push_events import events_of
from bottui.store.team.store_target import StoreTarget, check_store_url
from bottui.store.team.team_errors import StoreUnavailable

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.store.team.pg_store import TeamStore


class NoTeamStore(StoreError):
    """Neither ``BOTTUI_STORE_URL`` nor the profile names a team store."""


def store_target(profile: Profile | None, environ: Mapping[str, str]) -> StoreTarget:
    """The checked team store of ``profile`` (or ``BOTTUI_STORE_URL``)."""
    url = resolve_store_url(None if profile is None else profile.store, environ)
    if url is None:
        raise _no_team_store()
    return check_store_url(url, environ)


def _no_team_store() -> NoTeamStore:
    return NoTeamStore(
        "No team store is configured",
        'Set store = "postgresql://..." in the profile, or BOTTUI_STORE_URL.',
    )


async def open_team_store(
    profile: Profile | None, environ: Mapping[str, str], tokens: TokenStore
) -> TeamStore:
    """The team store of ``profile``, ready to connect on first use."""
    return await _open(store_target(profile, environ), environ, tokens)


async def open_team_store_url(
    url: str, environ: Mapping[str, str], tokens: TokenStore, *, timeout: float = 5.0
) -> TeamStore:
    """The team store at ``url`` (checked first), with a short timeout: the push's."""
    return await _open(check_store_url(url, environ), environ, tokens, timeout=timeout)


async def _open(
    target: StoreTarget,
    environ: Mapping[str, str],
    tokens: TokenStore,
    *,
    timeout: float | None = None,
) -> TeamStore:
    from bottui.store.team.pg_store import DEFAULT_TIMEOUT, TeamStore

    password = None
    if not environ.get("PGPASSWORD"):
        try:
            password = await tokens.store_password_async(target.keyring_username)
        except KeyringUnavailable:
            # A server reached over SSH often has no keyring at all: the store's
            # password is then libpq's business (~/.pgpass, PGSERVICE, a
            # certificate), as it is for every PostgreSQL client there.
            password = None
    return TeamStore(target, password=password, timeout=timeout or DEFAULT_TIMEOUT)


R = TypeVar("R")

#: Seconds a CLI command waits at its end for the push of what it journaled.
EXIT_BUDGET: Final = 5.0
#: Seconds between two pushes in the TUI (and while a bulk run goes, less).
TUI_INTERVAL: Final = 30.0


class SyncState(msgspec.Struct, frozen=True):
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
    """The outbox of one journal file (and its facts) towards one team store.

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
        self._executor = executor or shared_executor()
        self._lane = self._outbox.lane
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

    async def sync(self) -> SyncState:
        """Push what waits, a batch at a time; the state after (never raises for the store)."""
        async with self._lock:
            down: str | None = None
            try:
                await self.register()
                while True:
                    batch: Batch = await self._local(
                        lambda: self._outbox.pending(self.key, self._batch)
                    )
                    down = batch.trouble
                    if batch.empty:
                        break
                    pushed = await self.store.push(batch.events())
                    record = functools.partial(
                        self._outbox.pushed, self.key, batch, orphans=pushed.orphans > 0
                    )
                    await self._local(record)
                    if pushed.orphans:
                        break  # an orphan goes again with the next push, after its entry
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

    async def share_in_background(self, interval: float) -> SharingThread:
        """Register with the store (before the command's first entry: entries from here
        on are shared) and push every ``interval`` seconds from a thread until
        :meth:`SharingThread.finish`; a store that is down is the push's to report."""
        with contextlib.suppress(StoreError):
            await self.register()
        thread = SharingThread(self, interval=interval)
        thread.start()
        return thread

    async def close(self) -> None:
        """Close the store's connection and the outbox's."""
        with contextlib.suppress(Exception):
            await self.store.close()
        with contextlib.suppress(Exception):
            await self._local(self._outbox.close)


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

    async def finish(self) -> str | None:
        """Push once more within :data:`EXIT_BUDGET` seconds and stop: the one warning line
        a command prints when what it journaled could not be shared (None: it was)."""
        # Joined off the loop: the loop stays free for whatever else is closing.
        state = await run_blocking(lambda: self.stop(EXIT_BUDGET), lane="team-push-stop")
        if state is None:
            waiting = self.team.state.waiting
            with contextlib.suppress(StoreError):
                waiting = (await self.team.backlog()).waiting
            state = SyncState(
                waiting, None, f"the team store did not take the entries within {EXIT_BUDGET:g} s"
            )
        if state.down is None:
            return None
        return (
            f"warning: team journal: {state.waiting} not yet shared ({state.down}); "
            "they will be pushed by the next command or `bottui store sync`"
        )

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


async def share_now(session: Session) -> str | None:
    """Push what waits now: by the session's own push, else by kicking the push thread
    (``session.on_shared``, the TUI's; a command's thread pushes within its interval).
    Why the store did not take it (None: it did, or the thread will)."""
    team = await session.team()
    if team is None:
        if session.on_shared is not None:
            session.on_shared()
        return None
    return (await team.sync()).down
