"""The journal file, synchronous: single changes durably, bulk runs in batches, exports.

:class:`Journal` owns the file (single writes, reads through
:mod:`bottui.store.journal.journal_query`); :class:`BatchWriter` is the writer of one
bulk run; :func:`export_jsonl` and :func:`export_csv` write entries to a file.
None is used on the event loop: :mod:`bottui.store.journal.journal_store` runs the
journal on the store executor, an export runs there too.

Bulk runs: one transaction per batch, not per id.

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

Single changes: every mutation attempt, appended, never rewritten, in one
SQLite file (``Locations.journal_file``) shared by all profiles. A mutation
writes a *started* record with :meth:`Journal.start` before its request is
sent, and an *outcome* with :meth:`Journal.finish` after; both are committed
durably (``synchronous=FULL``: the WAL is fsynced) before the call returns, so
a crash or a SIGKILL in between leaves the started record, read back as
*unfinished*. Bulk runs use :meth:`Journal.batch` instead
(:class:`BatchWriter`).

The file is opened on first use; a journal of an earlier schema is migrated
in place then (:mod:`bottui.store.journal.journal_schema`). Several processes may write it at once
(the
TUI, CLI commands, a bulk run): a write waits for the others' lock up to the
busy timeout (:data:`~bottui.store.journal.journal_schema.BUSY_TIMEOUT`, retried
with jittered backoff, :mod:`bottui.store.sqlite_helpers`), and
:attr:`Journal.lock_stats` says how long the writes waited. A locked (past
the busy timeout), read-only or damaged file raises
:class:`~bottui.store.store_errors.JournalUnavailable`: the caller warns that
the change is not journaled and goes ahead.

Exports: JSONL, one :meth:`JournalEntry.to_json
<bottui.store.journal.journal_records.JournalEntry.to_json>`
object per line. CSV: the same fields as columns (:data:`FIELDS`), nested
objects as compact JSON text, empty cells for nulls. Every cell passes
:func:`bottui.store.safe_export.cell`: no control characters, and a cell starting with
``=``, ``+``, ``-`` or ``@`` gets a leading ``'`` so a spreadsheet shows it
instead of running it as a formula (server messages and ids are untrusted).
JSONL goes through :mod:`bottui.store.safe_export` (C1 and bidi controls escaped).
Both are written atomically.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Concatenate, Final, ParamSpec, TypeVar, Unpack

from bottui.store import safe_export
from bottui.store.files import Locations, write_atomic
from bottui.store.journal import journal_rows
from bottui.store.journal.journal_query import item_states, read_page, run_rest
from bottui.store.journal.journal_records import (
    DEFAULT_PAGE,
    FIELDS,
    KIND_OPERATIONS,
    NO_CHANGE_OUTCOMES,
    SETTLED_OUTCOMES,
    EntryId,
    EntryPage,
    EntryQuery,
    ItemState,
    JournalEntry,
    OutcomeFields,
    RunId,
    RunRest,
    StartRecord,
    UndoCandidate,
    UndoKind,
    local_host,
    local_operator,
    text,
    undo_candidate,
)
from bottui.store.journal.journal_rows import (
    Dictionaries,
    Finish,
    Start,
    entry,
    finish_of,
    micros,
    unpack_key,
    write,
)
from bottui.store.journal.journal_schema import (
    BUSY_TIMEOUT,
    COLUMNS,
    INSERT_CHECKPOINT,
    NEXT_ENTRY_ID,
    OUTCOME_JOINS,
    SCHEMA,
    SELECT_ENTRIES,
    SETTLED_PREFIX,
)
from bottui.store.paging import Cursor
from bottui.store.sqlite_helpers import ClosesOnExit, Database, LockStats
from bottui.store.store_errors import JournalUnavailable
from bottui.store.utc import Clock, parse_time, stamp, system_clock

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
J = TypeVar("J", bound="Journal")

DEFAULT_BATCH_SIZE: Final = 256
DEFAULT_INTERVAL: Final = 0.5
_CURSOR_PREFIX: Final = "before:"
#: The largest page one read returns, whatever the caller asks.
MAX_PAGE: Final = 10_000


def _cursor_id(cursor: Cursor | None) -> int | None:
    if cursor is None:
        return None
    token = cursor.token
    if not token.startswith(_CURSOR_PREFIX) or not token[len(_CURSOR_PREFIX) :].isdigit():
        raise ValueError("not a cursor of this journal")
    return int(token[len(_CURSOR_PREFIX) :])


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
            path, SCHEMA, synchronous="NORMAL", busy_timeout=busy_timeout, lock_stats=lock_stats
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

    def finish(self, entry_id: int, **outcome: Unpack[OutcomeFields]) -> None:
        """Buffer the outcome of an entry written by :meth:`start_many`."""
        self._queue([(None, self.pack(entry_id, **outcome))])

    def pack(self, entry_id: int, **outcome: Unpack[OutcomeFields]) -> Finish:
        """An outcome checked, redacted and stamped now, for :meth:`finish_many`
        (needs no lock: an async caller packs on its own thread)."""
        return finish_of(entry_id, micros(self._clock()), **outcome)

    def finish_many(self, rows: Sequence[Finish]) -> None:
        """Buffer packed outcomes (:meth:`pack`); a full buffer writes them now."""
        self._queue([(None, row) for row in rows])

    def record(self, record: StartRecord, **outcome: Unpack[OutcomeFields]) -> None:
        """Buffer a whole entry (started and outcome at once), for ids whose
        started record need not precede the request."""
        finished = self._clock()
        started = finished - timedelta(milliseconds=outcome.get("duration_ms") or 0.0)
        started_row = journal_rows.start_row(
            record, micros(started), stamp(started), self._operator, self._pid, self._host
        )
        self._queue([(started_row, finish_of(0, micros(finished), **outcome))])

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

    def _queue(self, work: list[tuple[Start | None, Finish]]) -> None:
        """Buffer ``work``; a full buffer (or an overdue oldest) writes it now."""
        with self._lock:
            self._check_open()
            self._pending.extend(work)
            if self._oldest is None and self._pending:
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
            ids = self._write_batch(start_rows, None)
        except sqlite3.IntegrityError:
            try:
                ids = self._write_batch(start_rows, self._refused)
            except sqlite3.IntegrityError:
                raise ValueError(
                    "a started record names a run or an entry (undo_of) that does not exist"
                ) from None
        self._pending.clear()
        self._oldest = None
        return ids

    def _write_batch(self, start_rows: list[Start], refused: list[int] | None) -> list[int]:
        """All at once; or, given where to note ``refused`` outcomes, one at a time."""
        with self._names.kept(), self._db.write() as conn:
            # The write lock is ours until COMMIT: ids follow the largest one.
            next_id = int(conn.execute(NEXT_ENTRY_ID).fetchone()[0])
            if refused is None:
                ids = self._write_all(conn, next_id, start_rows)
            else:
                before = len(refused)
                ids = self._write_each(conn, next_id, start_rows, refused)
                if len(refused) > before:
                    # An outcome it covers was not written: never a leading checkpoint.
                    self._checkpoint = None
            if self._checkpoint is not None:
                run_id, line = self._checkpoint
                conn.execute(INSERT_CHECKPOINT, (run_id, line, micros(self._clock())))
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
        self, conn: sqlite3.Connection, next_id: int, start_rows: list[Start], refused: list[int]
    ) -> list[int]:
        """One record at a time, dropping the outcomes the database refuses."""
        for start_row, row in self._pending:
            target = row.entry_id
            try:
                if start_row is not None:
                    conn.execute("SAVEPOINT one")
                    with self._names.kept():  # a rolled-back savepoint drops what it added
                        finish = row._replace(entry_id=next_id)
                        write(conn, next_id, [start_row], [finish], self._names)
                    conn.execute("RELEASE one")
                    next_id += 1
                    continue
                write(conn, 0, (), [row], self._names)
            except sqlite3.IntegrityError:
                if start_row is not None:
                    conn.execute("ROLLBACK TO one")
                    conn.execute("RELEASE one")
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


def run_identity(input_sha256: str, number: int) -> str:
    """What ``runs.input_sha256`` holds for the ``number``-th run of one input.

    The first run of an input is keyed by the input's SHA-256, as every run
    was before #27; each later one by the SHA-256 of that digest and its
    number, so a fresh run of the same file is a run of its own (the table
    keeps one row per key) and the newest is found by counting up.
    """
    if number <= 1:
        return input_sha256
    return hashlib.sha256(f"{input_sha256}\nrun {number}".encode()).hexdigest()


def export_jsonl(path: Path, entries: Iterable[JournalEntry], *, overwrite: bool = False) -> int:
    """Write ``entries`` as JSON Lines; returns how many were written.

    A file for a person (:mod:`bottui.store.files`): an existing
    ``path`` is replaced only with ``overwrite``, a symlink never.
    """
    count = 0

    def lines() -> Iterator[str]:
        nonlocal count
        for one in entries:
            count += 1
            yield safe_export.dumps(one.to_json(), separators=(",", ":")) + "\n"

    write_atomic(Path(path), lines(), overwrite=overwrite)
    return count


def export_csv(path: Path, entries: Iterable[JournalEntry], *, overwrite: bool = False) -> int:
    """Write ``entries`` as CSV with a header row; returns how many were written.

    As :func:`export_jsonl`: ``overwrite`` to replace a file, never a symlink.
    """
    count = 0

    def rows() -> Iterator[str]:
        nonlocal count
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(FIELDS)
        for one in entries:
            count += 1
            record = one.to_json()
            writer.writerow([safe_export.cell(record[name]) for name in FIELDS])
            if buffer.tell() > 65536:
                yield buffer.getvalue()
                buffer.seek(0)
                buffer.truncate()
        yield buffer.getvalue()

    write_atomic(Path(path), rows(), overwrite=overwrite, newline="")
    return count


def _record_of(
    make: Callable[P, R],
) -> Callable[[Callable[[J, R], T]], Callable[Concatenate[J, P], T]]:
    """A method of one record called with the record's fields: the parameters are
    ``make``'s (typed, so ``mypy --strict`` checks every caller), written once there."""

    def decorate(method: Callable[[J, R], T]) -> Callable[Concatenate[J, P], T]:
        def call(self: J, /, *args: P.args, **kwargs: P.kwargs) -> T:
            return method(self, make(*args, **kwargs))

        return functools.update_wrapper(call, method)

    return decorate


class Journal(ClosesOnExit):
    """The append-only audit journal of every mutation attempt.

    Args:
        path: The journal file (created with its directory on first write).
        operator: ``user@host`` to record when a change names no operator;
            defaults to the local user and host.
        host: The machine's name to record; defaults to ``socket.gethostname()``.
        clock: Source of the current time (UTC).
        busy_timeout: Seconds to wait for another process's lock before
            :class:`JournalUnavailable`.
    """

    def __init__(
        self,
        path: Path,
        *,
        operator: str | None = None,
        host: str | None = None,
        clock: Clock = system_clock,
        busy_timeout: float = BUSY_TIMEOUT,
    ) -> None:
        self._path = Path(path)
        self._operator = operator
        self._host = local_host() if host is None else host
        self._clock = clock
        self._busy_timeout = busy_timeout
        self._db = Database(self._path, SCHEMA, busy_timeout=busy_timeout)
        self._names = Dictionaries()

    @classmethod
    def at(cls, locations: Locations, **options: Any) -> Journal:
        """The journal of these locations (``Locations.journal_file``)."""
        return cls(locations.journal_file, **options)

    @property
    def path(self) -> Path:
        """The journal file."""
        return self._path

    @property
    def lock_stats(self) -> LockStats:
        """How long this journal's writes (its bulk writers' too) waited for
        the write lock: for benchmarks and debugging, not for users."""
        return self._db.lock_stats

    @property
    def operator(self) -> str:
        """``user@host`` written into every started record."""
        if self._operator is None:
            self._operator = local_operator()
        return self._operator

    # -- single, durable writes ------------------------------------------------------

    @_record_of(StartRecord)
    def start(self, record: StartRecord) -> EntryId:
        """Append a started record, committed durably; returns the entry id.

        Called with the fields of a :class:`StartRecord` (``profile=``, ``base_url=``,
        ...), which make the record. Call it before the request is sent.
        ``request_body``, ``target`` and
        ``previous`` are redacted (``serverKey`` becomes ``"***"``).
        ``operator`` (None: this journal's) and ``reason`` (None or blank:
        none) are stored exactly as given, once per segment.

        Raises:
            JournalUnavailable: the journal cannot be written (warn, go ahead).
            TypeError: a token object, or a value that is not JSON.
            ValueError: ``undo_of`` or ``run_id`` names no entry/run.
        """
        now = self._clock()
        start = journal_rows.start_row(
            record, micros(now), stamp(now), self.operator, os.getpid(), self._host
        )
        try:
            with self._names.kept(), self._db.write() as conn:
                entry_id = int(conn.execute(NEXT_ENTRY_ID).fetchone()[0])
                write(conn, entry_id, [start], (), self._names)
        except sqlite3.IntegrityError:
            raise ValueError(
                f"undo_of={record.undo_of} or run_id={record.run_id} names nothing in the journal"
            ) from None
        return EntryId(entry_id)

    def finish(
        self,
        entry_id: EntryId,
        **outcome: Unpack[OutcomeFields],
    ) -> None:
        """Append the outcome (:class:`~bottui.store.journal.journal_records.OutcomeFields`)
        of ``entry_id`` (what :meth:`start` returned), committed durably.

        Raises:
            JournalUnavailable: the journal cannot be written.
            ValueError: no such entry, or it already has an outcome.
        """
        finish = finish_of(entry_id, micros(self._clock()), **outcome)
        try:
            with self._names.kept(), self._db.write() as conn:
                write(conn, 0, (), [finish], self._names)
        except sqlite3.IntegrityError:
            raise ValueError(
                f"journal entry #{entry_id} does not exist or already has an outcome"
            ) from None

    # -- bulk runs ------------------------------------------------------------------

    def batch(
        self, *, batch_size: int = DEFAULT_BATCH_SIZE, interval: float = DEFAULT_INTERVAL
    ) -> BatchWriter:
        """A :class:`BatchWriter` on this journal (its own connection, ``synchronous=NORMAL``)."""
        return BatchWriter(
            self._path,
            operator=self.operator,
            host=self._host,
            clock=self._clock,
            batch_size=batch_size,
            interval=interval,
            busy_timeout=self._busy_timeout,
            lock_stats=self._db.lock_stats,
        )

    def run(
        self,
        *,
        profile: str,
        account: str,
        project: str,
        input_sha256: str,
        operation: str,
        resume: bool = True,
    ) -> RunId:
        """The id of a bulk run of this input (profile, account, project, input file hash).

        ``resume``: the newest run of this input, made if there is none (what
        ``--resume`` continues). Otherwise a new run, its own row with its own
        id, even when the same input ran before: two runs are never shown as
        one (:func:`run_identity`).
        """
        digest = text("input_sha256", input_sha256).lower()
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError("input_sha256 must be a SHA-256 hex digest")
        scope = (text("profile", profile), text("account", account), text("project", project))
        with self._db.write() as conn:
            newest: int | None = None
            number = 1
            while True:
                row = conn.execute(
                    "SELECT id FROM runs WHERE profile = ? AND account = ? AND project = ? "
                    "AND input_sha256 = ?",
                    (*scope, run_identity(digest, number)),
                ).fetchone()
                if row is None:
                    break
                newest, number = int(row[0]), number + 1
            if resume and newest is not None:
                return RunId(newest)
            cursor = conn.execute(
                "INSERT INTO runs (created_at, profile, account, project, input_sha256, "
                "operation) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    stamp(self._clock()),
                    *scope,
                    run_identity(digest, number),
                    text("operation", operation),
                ),
            )
            return RunId(int(cursor.lastrowid or 0))

    def settled_items(
        self, run_id: RunId, outcomes: Iterable[str] = SETTLED_OUTCOMES
    ) -> frozenset[str]:
        """Item keys of ``run_id`` whose outcome is one of ``outcomes``
        (default: withdrawn or nothing-standing): what ``--resume`` skips."""
        wanted = [str(o) for o in outcomes]
        if not wanted:
            return frozenset()
        sql = (
            "SELECT DISTINCT e.item_key FROM items AS e "
            "JOIN results AS o ON o.entry_id = e.id JOIN words AS w ON w.id = o.word "
            f"WHERE e.run_id = ? AND w.word IN ({', '.join('?' * len(wanted))})"
            " AND e.item_key IS NOT NULL"
        )
        rows: list[Any] = self._db.read_or(
            lambda conn: conn.execute(sql, (run_id, *wanted)).fetchall(), []
        )
        return frozenset(str(unpack_key(key)) for (key,) in rows)

    def item_states(self, run_id: RunId, keys: Sequence[str]) -> dict[str, ItemState]:
        """What ``run_id`` knows of each of ``keys`` (absent: never attempted);
        indexed lookups only, whatever the run's size
        (:mod:`~bottui.store.journal.journal_query`)."""
        return self._db.read_or(lambda conn: item_states(conn, run_id, keys), {})

    def settled_prefix(self, run_id: RunId) -> int | None:
        """The newest checkpoint of ``run_id``: every id on an input line up to
        it is settled (None: no checkpoint)."""
        row = self._db.read_or(lambda db: db.execute(SETTLED_PREFIX, (run_id,)).fetchone(), None)
        return None if row is None or row[0] is None else int(row[0])

    # -- reading ----------------------------------------------------------------------

    def entries(
        self,
        *,
        since: datetime | str | None = None,
        profile: str | None = None,
        account: str | None = None,
        project: str | None = None,
        operation: str | None = None,
        outcome: str | Collection[str] | None = None,
        unfinished: bool = False,
        run_id: int | None = None,
        limit: int | None = None,
    ) -> list[JournalEntry]:
        """Entries matching every filter given, newest first.

        ``since`` is a datetime or an ISO 8601 text (without an offset: UTC);
        ``outcome`` is one outcome word or several (any of them matches), and
        ``outcome="unfinished"`` is the same as ``unfinished=True``.

        Raises:
            ValueError: ``since`` is not a time.
            JournalUnavailable: the journal cannot be read.
        """
        moment = parse_time(since) if isinstance(since, str) else since
        words: frozenset[str] | None = None
        if outcome == "unfinished":
            unfinished = True
        elif isinstance(outcome, str):
            words = frozenset((outcome,))
        elif outcome is not None:
            words = frozenset(outcome)
        query = EntryQuery(
            since=moment,
            profile=profile,
            account=account,
            project=project,
            operation=operation,
            outcomes=words,
            unfinished=unfinished,
            run_id=None if run_id is None else RunId(run_id),
        )
        return self._db.read_or(lambda conn: read_page(conn, query, None, limit), [])

    def page(
        self,
        query: EntryQuery | None = None,
        *,
        limit: int = DEFAULT_PAGE,
        cursor: Cursor | None = None,
    ) -> EntryPage:
        """Up to ``limit`` (at most :data:`MAX_PAGE`) entries matching ``query``,
        newest first, after ``cursor``.

        Pages are read by id, newest first: the cursor says "entries older
        than #N", so entries appended meanwhile never shift a page.

        Raises:
            ValueError: ``cursor`` was not made by this journal.
        """
        before = _cursor_id(cursor)
        size = max(1, min(int(limit), MAX_PAGE))
        wanted = query or EntryQuery()
        # One more than asked: whether a next page exists, without a second query.
        found: list[JournalEntry] = self._db.read_or(
            lambda conn: read_page(conn, wanted, before, size + 1), []
        )
        entries = tuple(found[:size])
        more = len(found) > size
        return EntryPage(entries, Cursor(f"{_CURSOR_PREFIX}{entries[-1].id}") if more else None)

    def run_rest(self, query: EntryQuery, run_id: RunId, before: EntryId) -> RunRest:
        """The entries of ``query`` in ``run_id`` older than ``before``, counted
        by outcome, not read (:func:`~bottui.store.journal.journal_query.run_rest`)."""
        none = RunRest({}, frozenset())
        return self._db.read_or(lambda conn: run_rest(conn, query, run_id, before), none)

    def entry(self, entry_id: EntryId) -> JournalEntry | None:
        """One entry by id."""
        sql = SELECT_ENTRIES + " WHERE e.id = ?"
        row = self._db.read_or(lambda conn: conn.execute(sql, (entry_id,)).fetchone(), None)
        return None if row is None else entry(row)

    def last_undoable(self, profile: str, kind: UndoKind) -> UndoCandidate:
        """The newest change of ``kind`` (``"limiter"`` or ``"thresholds"``) of
        ``profile`` and the value that undoes it, or why it cannot be undone.

        Undo entries count as changes (undoing an undo is a redo). Attempts
        that surely changed nothing (api-error, refused) are looked past.
        """
        operations = KIND_OPERATIONS[kind]
        skip = [str(o) for o in NO_CHANGE_OUTCOMES]
        sql = (
            f"SELECT {COLUMNS} FROM segments AS s "
            "JOIN items AS e ON e.id BETWEEN s.first_id AND s.last_id"
            + OUTCOME_JOINS
            + f" WHERE s.profile = ? AND s.operation IN ({', '.join('?' * len(operations))})"
            + f" AND (w.word IS NULL OR w.word NOT IN ({', '.join('?' * len(skip))}))"
            + " ORDER BY s.first_id DESC, e.id DESC LIMIT 1"
        )
        params = (profile, *operations, *skip)
        row = self._db.read_or(lambda conn: conn.execute(sql, params).fetchone(), None)
        return undo_candidate(kind, profile, None if row is None else entry(row))

    # -- export -------------------------------------------------------------------------

    #: :func:`export_jsonl` and :func:`export_csv`, from a journal at hand.
    export_jsonl = staticmethod(export_jsonl)
    export_csv = staticmethod(export_csv)

    # -- lifetime -----------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (a later call opens it again)."""
        self._db.close()


def file_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file's bytes (the identity of a bulk input)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()
