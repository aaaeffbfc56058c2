"""The SQLite :class:`~bottui.store.journal.protocol.JournalStore`: the sync journal, off the loop.

:class:`SqliteJournalStore` wraps :class:`~bottui.store.journal.sync.Journal`
without changing it and awaits every call on the shared
:class:`~bottui.store.executor.StoreExecutor`:

* writes (``start``, ``finish``, ``run``, a bulk batch) go through the
  file's *write lane* (one thread, one connection), so they are serialised
  in this process and never run on the event loop;
* reads go through the file's *read lane* with connections of their own, so
  a read is answered while a write waits for another process's lock (WAL
  readers do not wait for writers);
* a *started* record waits at most ``start_bound`` seconds (15 by default)
  and then raises :class:`~bottui.store.errors.JournalUnavailable`, which
  the caller already turns into the "not journaled" warning. A start not yet
  begun by then is dropped; one already inside SQLite cannot be interrupted
  and may still commit, read back later as *unfinished*.

Pages are read by id, newest first: the cursor says "entries older than
#N", so entries appended meanwhile never shift a page.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

from bottui.store.errors import JournalUnavailable
from bottui.store.executor import StoreExecutor, shared_executor
from bottui.store.files import Locations, real_path
from bottui.store.journal.protocol import (
    DEFAULT_PAGE,
    START_BOUND,
    EntryId,
    EntryPage,
    EntryQuery,
    ItemState,
    RunId,
)
from bottui.store.journal.query import read_page
from bottui.store.journal.records import JournalEntry, StartRecord
from bottui.store.journal.rows import Finish
from bottui.store.journal.schema import BUSY_TIMEOUT, SCHEMA
from bottui.store.journal.sync import BatchWriter, Journal
from bottui.store.journal.undo import UndoCandidate, UndoKind
from bottui.store.paging import Cursor
from bottui.store.sqlite_helpers import Database, LockStats
from bottui.store.utc import Clock, system_clock

R = TypeVar("R")

_CURSOR_PREFIX: Final = "before:"
#: The largest page one read returns, whatever the caller asks.
MAX_PAGE: Final = 10_000
#: Outcomes a bulk batch hands to its writer thread at once.
HOP: Final = 256


def _cursor_id(cursor: Cursor | None) -> int | None:
    if cursor is None:
        return None
    token = cursor.token
    if not token.startswith(_CURSOR_PREFIX) or not token[len(_CURSOR_PREFIX) :].isdigit():
        raise ValueError("not a cursor of this journal")
    return int(token[len(_CURSOR_PREFIX) :])


class SqliteJournalStore:
    """A :class:`~bottui.store.journal.protocol.JournalStore` on one SQLite file.

    Args:
        path: The journal file (``Locations.journal_file``).
        operator: ``user@host`` to record; the local one unless given.
        clock: Source of the current time (UTC).
        busy_timeout: Seconds SQLite waits for another process's lock, per try.
        start_bound: Seconds a started record may wait in all.
        executor: The executor to run on (the process's shared one unless given).
    """

    def __init__(
        self,
        path: Path,
        *,
        operator: str | None = None,
        clock: Clock = system_clock,
        busy_timeout: float = BUSY_TIMEOUT,
        start_bound: float = START_BOUND,
        executor: StoreExecutor | None = None,
    ) -> None:
        self._path = Path(path)
        self._start_bound = start_bound
        self._executor = executor or shared_executor()
        options: dict[str, Any] = {"operator": operator, "clock": clock}
        self._writer = Journal(self._path, busy_timeout=busy_timeout, **options)
        # Separate connections for reads: the writer's is held under its lock
        # for as long as a write waits on another process.
        self._reader = Journal(self._path, busy_timeout=busy_timeout, **options)
        self._pages = Database(
            self._path,
            SCHEMA,
            unavailable=JournalUnavailable,
            synchronous="NORMAL",
            busy_timeout=busy_timeout,
        )
        key = str(real_path(self._path))
        self._write_lane = f"journal-write:{key}"
        self._read_lane = f"journal-read:{key}"

    @classmethod
    def at(cls, locations: Locations, **options: Any) -> SqliteJournalStore:
        """The journal of these locations (``Locations.journal_file``)."""
        return cls(locations.journal_file, **options)

    @property
    def path(self) -> Path:
        """The journal file."""
        return self._path

    @property
    def lock_stats(self) -> LockStats:
        """How long this store's writes (bulk batches included) waited for the write lock."""
        return self._writer.lock_stats

    async def _write(self, fn: Callable[[], R], timeout: float | None = None) -> R:
        return await self._executor.call(fn, lane=self._write_lane, timeout=timeout)

    async def _read(self, fn: Callable[[], R]) -> R:
        return await self._executor.call(fn, lane=self._read_lane)

    # -- writes --------------------------------------------------------------------

    async def start(
        self,
        *,
        profile: str,
        base_url: str,
        operation: str,
        account: str,
        project: str,
        target: Mapping[str, Any],
        request_body: Mapping[str, Any] | None,
        previous: Mapping[str, Any] | None = None,
        undo_of: EntryId | None = None,
        run_id: RunId | None = None,
        item_key: str | None = None,
        operator: str | None = None,
        reason: str | None = None,
    ) -> EntryId:
        """Append a started record durably; waits at most ``start_bound`` seconds."""

        def work() -> int:
            return self._writer.start(
                profile=profile,
                base_url=base_url,
                operation=operation,
                account=account,
                project=project,
                target=target,
                request_body=request_body,
                previous=previous,
                undo_of=undo_of,
                run_id=run_id,
                item_key=item_key,
                operator=operator,
                reason=reason,
            )

        try:
            entry_id = await self._write(work, timeout=self._start_bound)
        except TimeoutError:
            raise JournalUnavailable(
                f"The journal did not answer within {self._start_bound:g} s",
                f"{self._path}: another process has held it for that long.",
                path=self._path,
            ) from None
        return EntryId(int(entry_id))

    async def finish(
        self,
        entry_id: EntryId,
        *,
        outcome: str,
        status: int | None = None,
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
        duration_ms: float | None = None,
    ) -> None:
        """Append the outcome of ``entry_id`` durably."""
        await self._write(
            lambda: self._writer.finish(
                int(entry_id),
                outcome=outcome,
                status=status,
                result=result,
                error=error,
                duration_ms=duration_ms,
            )
        )

    async def run(
        self,
        *,
        profile: str,
        account: str,
        project: str,
        input_sha256: str,
        operation: str,
        resume: bool = True,
    ) -> RunId:
        """The newest bulk run of this input (made if none) with ``resume``, else a new one."""
        run_id = await self._write(
            lambda: self._writer.run(
                profile=profile,
                account=account,
                project=project,
                input_sha256=input_sha256,
                operation=operation,
                resume=resume,
            )
        )
        return RunId(int(run_id))

    async def batch(self) -> SqliteJournalBatch:
        """A buffered writer for one bulk run, on this file's write lane."""
        writer: BatchWriter = await self._write(lambda: self._writer.batch(interval=0))
        return SqliteJournalBatch(writer, self)

    # -- reads ---------------------------------------------------------------------

    async def page(
        self,
        query: EntryQuery | None = None,
        *,
        limit: int = DEFAULT_PAGE,
        cursor: Cursor | None = None,
    ) -> EntryPage:
        """Up to ``limit`` entries matching ``query``, newest first, after ``cursor``.

        Raises:
            ValueError: ``cursor`` was not made by this store.
        """
        before = _cursor_id(cursor)
        size = max(1, min(int(limit), MAX_PAGE))
        wanted = query or EntryQuery()

        def work() -> list[JournalEntry]:
            if not self._path.exists():  # reading never creates the file
                return []
            with self._pages.read() as conn:
                # One more than asked: whether a next page exists, without a second query.
                return read_page(conn, wanted, before, size + 1)

        found: list[JournalEntry] = await self._read(work)
        entries = tuple(found[:size])
        more = len(found) > size
        next_cursor = Cursor(f"{_CURSOR_PREFIX}{entries[-1].id}") if more else None
        return EntryPage(entries, next_cursor)

    async def entry(self, entry_id: EntryId) -> JournalEntry | None:
        """One entry by id."""
        found: JournalEntry | None = await self._read(lambda: self._reader.entry(int(entry_id)))
        return found

    async def last_undoable(self, profile: str, kind: UndoKind) -> UndoCandidate:
        """The newest change of ``kind`` of ``profile`` and what undoes it."""
        found: UndoCandidate = await self._read(lambda: self._reader.last_undoable(profile, kind))
        return found

    async def settled_items(self, run_id: RunId, outcomes: Collection[str]) -> frozenset[str]:
        """Item keys of ``run_id`` whose outcome is one of ``outcomes``."""
        wanted = tuple(outcomes)
        found: set[str] = await self._read(
            lambda: (
                self._reader.settled_items(int(run_id), wanted) if self._path.exists() else set()
            )
        )
        return frozenset(found)

    async def item_states(self, run_id: RunId, keys: Sequence[str]) -> dict[str, ItemState]:
        """The state of each of ``keys`` in ``run_id`` (indexed by run and key)."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, ItemState] = await self._read(
            lambda: self._reader.item_states(int(run_id), wanted) if self._path.exists() else {}
        )
        return found

    async def settled_prefix(self, run_id: RunId) -> int | None:
        """The newest settled-prefix checkpoint of ``run_id`` (an input line), if any."""
        found: int | None = await self._read(
            lambda: self._reader.settled_prefix(int(run_id)) if self._path.exists() else None
        )
        return found

    # -- lifetime ------------------------------------------------------------------

    async def close(self) -> None:
        """Close every connection (each on its own lane, after the calls queued there)."""
        await self._write(self._writer.close)
        await self._read(self._close_readers)

    def _close_readers(self) -> None:
        self._reader.close()
        self._pages.close()


class SqliteJournalBatch:
    """A :class:`~bottui.store.journal.protocol.JournalBatch`: a :class:`BatchWriter` off the loop.

    Outcomes are checked and packed at :meth:`finish` (a token is refused
    there) and handed to the writer thread :data:`HOP` at a time, at
    :meth:`flush` and at :meth:`close`: one executor round trip per batch,
    not per id (what made the journal a quarter of a bulk run's CPU).
    """

    def __init__(self, writer: BatchWriter, store: SqliteJournalStore) -> None:
        self._writer = writer
        self._store = store
        self._queued: list[Finish] = []

    async def start_many(self, records: Sequence[StartRecord]) -> list[EntryId]:
        """Write the started records of a chunk at once; their ids, in order."""
        chunk = list(records)
        queued, self._queued = self._queued, []

        def work() -> list[int]:
            if queued:
                self._writer.finish_many(queued)
            return self._writer.start_many(chunk)

        ids: list[int] = await self._store._write(work)
        return [EntryId(i) for i in ids]

    async def finish(self, entry_id: EntryId, **outcome: Any) -> None:
        """Queue the outcome of ``entry_id`` (a full buffer writes it now)."""
        self._queued.append(self._writer.pack(int(entry_id), **outcome))
        if len(self._queued) >= HOP:
            await self._hand_over()

    async def _hand_over(self) -> None:
        queued, self._queued = self._queued, []
        if queued:
            await self._store._write(lambda: self._writer.finish_many(queued))

    async def checkpoint(self, run_id: RunId, settled_line: int) -> None:
        """Queue a settled prefix after every outcome queued before it (next flush)."""
        queued, self._queued = self._queued, []

        def work() -> None:
            if queued:
                self._writer.finish_many(queued)
            self._writer.checkpoint(int(run_id), settled_line)

        await self._store._write(work)

    async def flush(self) -> None:
        """Write every queued outcome now."""
        queued, self._queued = self._queued, []

        def work() -> None:
            if queued:
                self._writer.finish_many(queued)
            self._writer.flush()

        await self._store._write(work)

    async def close(self) -> None:
        """Flush and close."""
        queued, self._queued = self._queued, []

        def work() -> None:
            try:
                if queued:
                    self._writer.finish_many(queued)
            finally:
                self._writer.close()

        await self._store._write(work)


__all__ = [
    "HOP",
    "MAX_PAGE",
    "SqliteJournalBatch",
    "SqliteJournalStore",
]
