"""The journal as the ops and the TUI await it: the sync journal, off the loop.

:class:`SqliteJournalStore` runs :class:`~bottui.store.journal.journal_file.Journal`
on the shared :class:`~bottui.store.executor.StoreExecutor`, its methods made
once from the sync ones (:func:`~bottui.store.executor.reads`,
:func:`~bottui.store.executor.writes`: same parameters, same answers):

* writes (``start``, ``finish``, ``run``, a bulk batch) go through the
  file's *write lane* (one thread, one connection), so they are serialised
  in this process and never run on the event loop;
* reads go through the file's *read lane* with connections of their own, so
  a read is answered while a write waits for another process's lock (WAL
  readers do not wait for writers);
* a *started* record waits at most ``start_bound`` seconds
  (:data:`~bottui.store.journal.journal_records.START_BOUND`, 15 by default) and then
  raises :class:`~bottui.store.store_errors.JournalUnavailable`, which the
  caller already turns into the "not journaled" warning. A start not yet
  begun by then is dropped; one already inside SQLite cannot be interrupted
  and may still commit, read back later as *unfinished*.

Every method may raise ``JournalUnavailable`` (the caller warns "not
journaled" and goes ahead). Reading never creates the file: no file means
no entries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar, Unpack

from bottui.store.executor import OffLoop, StoreExecutor, reads, writes
from bottui.store.files import Locations
from bottui.store.journal.journal_file import BatchWriter, Journal
from bottui.store.journal.journal_records import (
    START_BOUND,
    EntryId,
    OutcomeFields,
    RunId,
    StartRecord,
)
from bottui.store.journal.journal_rows import Finish
from bottui.store.journal.journal_schema import BUSY_TIMEOUT
from bottui.store.sqlite_helpers import LockStats
from bottui.store.store_errors import JournalUnavailable
from bottui.store.utc import Clock, system_clock

T = TypeVar("T")

#: Outcomes a bulk batch hands to its writer thread at once.
HOP: Final = 256


class SqliteJournalStore(OffLoop[Journal]):
    """The audit journal on one SQLite file, every call awaited off the event loop.

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
        self._start_bound = start_bound
        options: dict[str, Any] = {"operator": operator, "clock": clock}
        super().__init__(
            Journal(path, busy_timeout=busy_timeout, **options),
            # Separate connections for reads: the writer's is held under its lock
            # for as long as a write waits on another process.
            Journal(path, busy_timeout=busy_timeout, **options),
            kind="journal",
            path=path,
            executor=executor,
        )

    @classmethod
    def at(cls, locations: Locations, **options: Any) -> SqliteJournalStore:
        """The journal of these locations (``Locations.journal_file``)."""
        return cls(locations.journal_file, **options)

    @property
    def lock_stats(self) -> LockStats:
        """How long this store's writes (bulk batches included) waited for the write lock."""
        return self._writer.lock_stats

    # -- writes --------------------------------------------------------------------

    #: :meth:`Journal.start <bottui.store.journal.journal_file.Journal.start>`: waits
    #: at most ``start_bound`` seconds, then raises ``JournalUnavailable``.
    start = writes(Journal.start, bounded=True)
    finish = writes(Journal.finish)
    run = writes(Journal.run)

    async def _bounded_write(self, fn: Callable[[], T]) -> T:
        try:
            return await self._write(fn, timeout=self._start_bound)
        except TimeoutError:
            raise JournalUnavailable(
                f"The journal did not answer within {self._start_bound:g} s",
                f"{self._path}: another process has held it for that long.",
                path=self._path,
            ) from None

    async def batch(self) -> SqliteJournalBatch:
        """A buffered writer for one bulk run, on this file's write lane."""
        writer: BatchWriter = await self._write(lambda: self._writer.batch(interval=0))
        return SqliteJournalBatch(writer, self)

    # -- reads ---------------------------------------------------------------------

    page = reads(Journal.page)
    entry = reads(Journal.entry)
    last_undoable = reads(Journal.last_undoable)
    settled_items = reads(Journal.settled_items)
    item_states = reads(Journal.item_states)
    settled_prefix = reads(Journal.settled_prefix)
    run_rest = reads(Journal.run_rest)


class SqliteJournalBatch:
    """Buffered writes of one bulk run: a :class:`BatchWriter` off the loop.

    Outcomes are checked and packed at :meth:`finish` (a token is refused
    there) and handed to the writer thread :data:`HOP` at a time, at
    :meth:`flush` and at :meth:`close`: one executor round trip per batch,
    not per id (what made the journal a quarter of a bulk run's CPU).
    """

    def __init__(self, writer: BatchWriter, store: SqliteJournalStore) -> None:
        self._writer = writer
        self._store = store
        self._queued: list[Finish] = []

    def _taken(self) -> list[Finish]:
        """The outcomes queued so far (the queue starts again empty)."""
        queued, self._queued = self._queued, []
        return queued

    async def _hand(self, then: Callable[[], T]) -> T:
        """Write the outcomes queued so far, then ``then()``, in one executor round trip
        (the outcomes first: a checkpoint or a chunk never leads what was queued before)."""
        queued = self._taken()

        def work() -> T:
            if queued:
                self._writer.finish_many(queued)
            return then()

        return await self._store._write(work)

    async def start_many(self, records: Sequence[StartRecord]) -> list[EntryId]:
        """Write the started records of a chunk at once; their ids, in order.

        Queued outcomes are written first, in the same transaction.
        """
        chunk = list(records)
        ids = await self._hand(lambda: self._writer.start_many(chunk))
        return [EntryId(i) for i in ids]

    async def finish(self, entry_id: EntryId, **outcome: Unpack[OutcomeFields]) -> None:
        """Queue the outcome of ``entry_id`` (a full buffer writes it now)."""
        self._queued.append(self._writer.pack(int(entry_id), **outcome))
        if len(self._queued) >= HOP:
            await self._hand(lambda: None)

    async def checkpoint(self, run_id: RunId, settled_line: int) -> None:
        """Queue a settled prefix of ``run_id`` (every id on an input line up to
        ``settled_line`` is settled): written after every outcome queued before
        it, in the same or a later transaction, never before them."""
        await self._hand(lambda: self._writer.checkpoint(int(run_id), settled_line))

    async def flush(self) -> None:
        """Write every queued outcome now."""
        await self._hand(self._writer.flush)

    async def close(self) -> None:
        """Flush and close."""
        queued = self._taken()

        def work() -> None:
            try:
                if queued:
                    self._writer.finish_many(queued)
            finally:
                self._writer.close()

        await self._store._write(work)
