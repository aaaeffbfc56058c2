"""The journal writer of bulk runs: one transaction per batch, not per id.

A bulk run sends hundreds or thousands of requests; a durable commit
(``synchronous=FULL``, one fsync) per id would cost more than the journal is
worth. :class:`BatchWriter` has its own connection with ``synchronous=NORMAL``
and writes:

* :meth:`BatchWriter.start_many`: the started records of a chunk of ids, at
  once, in one transaction, before that chunk is sent;
* :meth:`BatchWriter.finish` and :meth:`BatchWriter.record`: outcomes (and
  started+outcome pairs) kept in memory and written in one transaction when
  ``batch_size`` are waiting or the oldest has waited ``interval`` seconds
  (a background thread sees to the interval), at :meth:`flush` and at
  :meth:`close`;
* :meth:`BatchWriter.checkpoint`: a run's settled prefix, written in the
  transaction of the next write, after every outcome buffered before it: a
  checkpoint may trail the outcomes it covers, never lead them.

Durability: a committed batch survives a crash of the process (WAL); a power
loss or OS crash may undo the batches committed since the last WAL
checkpoint. A crash of the process loses the batch still in memory, at most
``batch_size`` outcomes or ``interval`` seconds of them; their started
records (when :meth:`start_many` wrote them) stay, shown as unfinished, and
``--resume`` sends those ids again (harmless: a revocation of nothing that
stands reports so).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

from bottui.store import journal_rows
from bottui.store.db_errors import JournalUnavailable
from bottui.store.journal_codec import micros
from bottui.store.journal_migrations import SCHEMA
from bottui.store.journal_records import StartRecord, local_host
from bottui.store.journal_rows import Dictionaries, Finish, Start, finish_of, write
from bottui.store.journal_schema import BUSY_TIMEOUT, INSERT_CHECKPOINT, NEXT_ENTRY_ID
from bottui.store.sqlite_retry import LockStats
from bottui.store.sqlite_util import ClosesOnExit, Database
from bottui.store.utc import Clock, stamp, system_clock

DEFAULT_BATCH_SIZE: Final = 256
DEFAULT_INTERVAL: Final = 0.5


class BatchWriter(ClosesOnExit):
    """Buffered journal writes for bulk runs (a context manager; ``close`` flushes).

    Args:
        path: The journal file.
        operator: ``user@host`` written in every started record that names none.
        host: The machine's name written with every started record.
        clock: Source of the current time.
        batch_size: Buffered outcomes that trigger a write.
        interval: Seconds the oldest buffered outcome may wait (0 or less:
            no background thread; only size, ``flush`` and ``close`` write).
        busy_timeout: Seconds to wait for another process's lock.
        lock_stats: Where to count the waits for the write lock (the
            journal's, when it made this writer).

    A failed write (:class:`JournalUnavailable`) keeps the buffered records
    and tries them again at the next write; the error is raised to the caller
    of the method that wrote (or, for a background write, of the next
    method called), so it can warn and carry on.
    """

    def __init__(
        self,
        path: Path,
        *,
        operator: str,
        host: str | None = None,
        clock: Clock = system_clock,
        batch_size: int = DEFAULT_BATCH_SIZE,
        interval: float = DEFAULT_INTERVAL,
        busy_timeout: float = BUSY_TIMEOUT,
        lock_stats: LockStats | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._db = Database(
            path,
            SCHEMA,
            unavailable=JournalUnavailable,
            synchronous="NORMAL",
            busy_timeout=busy_timeout,
            lock_stats=lock_stats,
        )
        self._operator = operator
        self._host = local_host() if host is None else host
        self._clock = clock
        self._pid = os.getpid()
        self._batch_size = batch_size
        self._interval = interval
        self._lock = threading.Lock()
        # Pending work, in arrival order: (started record or None, outcome).
        # A started record of None means the outcome's entry id is already set.
        self._pending: list[tuple[Start | None, Finish]] = []
        self._names = Dictionaries()
        self._oldest: float | None = None
        self._background_error: JournalUnavailable | None = None
        self._refused: list[int] = []
        # The newest settled prefix (run id, input line) waiting for a write.
        self._checkpoint: tuple[int, int] | None = None
        self._closed = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if interval > 0:
            self._thread = threading.Thread(
                target=self._tick, name="bottui-journal-batch", daemon=True
            )
            self._thread.start()

    @property
    def lock_stats(self) -> LockStats:
        """How long this writer's transactions waited for the write lock."""
        return self._db.lock_stats

    @property
    def pending(self) -> int:
        """How many outcomes wait in memory."""
        return len(self._pending)

    # -- writing -----------------------------------------------------------------

    def start_many(self, records: Sequence[StartRecord]) -> list[int]:
        """Write the started records of a chunk now, in one transaction; their ids.

        Pending outcomes are written in the same transaction.

        Raises:
            JournalUnavailable: nothing of this chunk was written (send it
                unjournaled, with a warning); pending outcomes are kept.
            TypeError: a record holds a token or a value that is not JSON.
        """
        moment = self._clock()
        now, us = stamp(moment), micros(moment)
        rows = [
            journal_rows.start_row(record, us, now, self._operator, self._pid, self._host)
            for record in records
        ]
        with self._lock:
            self._check_open()
            self._raise_background_error()
            return self._write(rows)

    def finish(
        self,
        entry_id: int,
        *,
        outcome: str,
        status: int | None = None,
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
        duration_ms: float | None = None,
    ) -> None:
        """Buffer the outcome of an entry written by :meth:`start_many`."""
        row = self.pack(
            entry_id,
            outcome=outcome,
            status=status,
            result=result,
            error=error,
            duration_ms=duration_ms,
        )
        self._add(None, row)

    def pack(
        self,
        entry_id: int,
        *,
        outcome: str,
        status: int | None = None,
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
        duration_ms: float | None = None,
    ) -> Finish:
        """An outcome checked, redacted and stamped now, for :meth:`finish_many`
        (needs no lock: an async caller packs on its own thread)."""
        return finish_of(
            entry_id,
            micros(self._clock()),
            outcome=outcome,
            status=status,
            result=result,
            error=error,
            duration_ms=duration_ms,
        )

    def finish_many(self, rows: Sequence[Finish]) -> None:
        """Buffer packed outcomes (:meth:`pack`); a full buffer writes them now."""
        with self._lock:
            self._check_open()
            self._pending.extend((None, row) for row in rows)
            if self._oldest is None and self._pending:
                self._oldest = time.monotonic()
            self._raise_background_error()
            if len(self._pending) >= self._batch_size or self._due():
                self._write([])

    def record(
        self,
        record: StartRecord,
        *,
        outcome: str,
        status: int | None = None,
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
        duration_ms: float | None = None,
    ) -> None:
        """Buffer a whole entry (started and outcome at once), for ids whose
        started record need not precede the request."""
        finished = self._clock()
        started = finished - timedelta(milliseconds=duration_ms or 0.0)
        started_row = journal_rows.start_row(
            record, micros(started), stamp(started), self._operator, self._pid, self._host
        )
        row = finish_of(
            0,
            micros(finished),
            outcome=outcome,
            status=status,
            result=result,
            error=error,
            duration_ms=duration_ms,
        )
        self._add(started_row, row)

    def checkpoint(self, run_id: int, settled_line: int) -> None:
        """Buffer a settled prefix of ``run_id``: every id on an input line up to
        ``settled_line`` is settled, its outcome already given to this writer.

        Written in the transaction of the next write, after the outcomes
        buffered before it (a newer one replaces one not yet written).
        """
        with self._lock:
            self._check_open()
            self._checkpoint = (run_id, settled_line)
            if self._oldest is None:
                self._oldest = time.monotonic()

    def flush(self) -> None:
        """Write everything buffered now, in one transaction.

        Raises:
            JournalUnavailable: the batch could not be written (it is kept).
            ValueError: outcomes the database refused since the last report
                (no such entry, or it already had an outcome); they were dropped.
        """
        with self._lock:
            self._background_error = None  # this write tries again anyway
            if self._pending or self._checkpoint is not None:
                self._write([])
            self._raise_refused()

    def close(self) -> None:
        """Stop the background thread, flush, close the connection.

        Raises:
            JournalUnavailable: the last batch could not be written (it is lost;
                ``details`` says how many outcomes).
            ValueError: as for :meth:`flush`.
        """
        if self._closed:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._closed = True
            self._background_error = None  # this write tries again anyway
            try:
                if self._pending or self._checkpoint is not None:
                    self._write([])
            except JournalUnavailable as exc:
                lost = len(self._pending)
                self._pending.clear()
                raise JournalUnavailable(
                    exc.title, f"{exc.details} {lost} outcome(s) were not journaled.", path=exc.path
                ) from None
            finally:
                self._db.close()
            self._raise_refused()

    # -- internals ----------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError("this BatchWriter is closed")

    def _raise_refused(self) -> None:
        refused, self._refused = self._refused, []
        if refused:
            raise ValueError(
                "outcomes refused (no such entry, or it already has one): "
                + ", ".join(f"#{entry_id}" for entry_id in refused)
            )

    def _raise_background_error(self) -> None:
        error, self._background_error = self._background_error, None
        if error is not None:
            raise error

    def _add(self, start_row: Start | None, row: Finish) -> None:
        with self._lock:
            self._check_open()
            self._pending.append((start_row, row))
            if self._oldest is None:
                self._oldest = time.monotonic()
            self._raise_background_error()
            if len(self._pending) >= self._batch_size or self._due():
                self._write([])

    def _due(self) -> bool:
        return (
            self._interval > 0
            and self._oldest is not None
            and time.monotonic() - self._oldest >= self._interval
        )

    def _write(self, start_rows: list[Start]) -> list[int]:
        """One transaction: pending work, then ``start_rows``. Lock held.

        An outcome the database refuses (its entry does not exist, or already
        has an outcome) is dropped and kept for :meth:`flush`/:meth:`close` to
        report; it never costs the rest of the batch.
        """
        try:
            ids = self._write_batch(start_rows, tolerant=False)
        except sqlite3.IntegrityError:
            try:
                ids = self._write_batch(start_rows, tolerant=True, refused=self._refused)
            except sqlite3.IntegrityError:
                raise ValueError(
                    "a started record names a run or an entry (undo_of) that does not exist"
                ) from None
        self._pending.clear()
        self._oldest = None
        return ids

    def _write_batch(
        self,
        start_rows: list[Start],
        *,
        tolerant: bool,
        refused: list[int] | None = None,
    ) -> list[int]:
        try:
            with self._db.write() as conn:
                # The write lock is ours until COMMIT: ids follow the largest one.
                next_id = int(conn.execute(NEXT_ENTRY_ID).fetchone()[0])
                if not tolerant:
                    ids = self._write_all(conn, next_id, start_rows)
                elif refused is not None:
                    before = len(refused)
                    ids = self._write_each(conn, next_id, start_rows, refused)
                    if len(refused) > before:
                        # An outcome it covers was not written: never a leading checkpoint.
                        self._checkpoint = None
                else:
                    ids = self._write_each(conn, next_id, start_rows, refused)
                if self._checkpoint is not None:
                    run_id, line = self._checkpoint
                    conn.execute(INSERT_CHECKPOINT, (run_id, line, micros(self._clock())))
        except BaseException:
            self._names.forget()
            raise
        self._names.commit()
        self._checkpoint = None
        return ids

    def _write_all(
        self, conn: sqlite3.Connection, next_id: int, start_rows: list[Start]
    ) -> list[int]:
        """Everything in two ``executemany`` per table (the usual case)."""
        first = next_id
        starts: list[Start] = []
        finishes: list[Finish] = []
        for start_row, row in self._pending:
            if start_row is None:
                finishes.append(row)
            else:
                starts.append(start_row)
                finishes.append(row._replace(entry_id=next_id))
                next_id += 1
        ids = list(range(next_id, next_id + len(start_rows)))
        starts += start_rows
        write(conn, first, starts, finishes, self._names)
        return ids

    def _write_each(
        self,
        conn: sqlite3.Connection,
        next_id: int,
        start_rows: list[Start],
        refused: list[int] | None,
    ) -> list[int]:
        """One record at a time, dropping the outcomes the database refuses."""
        for start_row, row in self._pending:
            target = row.entry_id
            try:
                if start_row is not None:
                    conn.execute("SAVEPOINT one")
                    write(conn, next_id, [start_row], [row._replace(entry_id=next_id)], self._names)
                    conn.execute("RELEASE one")
                    next_id += 1
                    continue
                write(conn, 0, (), [row], self._names)
            except sqlite3.IntegrityError:
                if start_row is not None:
                    conn.execute("ROLLBACK TO one")
                    conn.execute("RELEASE one")
                if refused is not None:
                    refused.append(target if start_row is None else 0)
        ids = list(range(next_id, next_id + len(start_rows)))
        write(conn, next_id, start_rows, (), self._names)
        return ids

    def _tick(self) -> None:
        wait = max(self._interval / 4, 0.01)
        while not self._stop.wait(wait):
            with self._lock:
                if self._closed or not self._pending or not self._due():
                    continue
                try:
                    self._write([])
                except JournalUnavailable as exc:
                    self._background_error = exc
                    self._oldest = time.monotonic()  # try again one interval later


__all__ = ["DEFAULT_BATCH_SIZE", "DEFAULT_INTERVAL", "BatchWriter"]
