"""The audit journal: every mutation attempt, appended, never rewritten.

One SQLite file (``Locations.journal_file``) shared by all profiles. A
mutation writes a *started* record with :meth:`Journal.start` before its
request is sent, and an *outcome* with :meth:`Journal.finish` after; both are
committed durably (``synchronous=FULL``: the WAL is fsynced) before the call
returns, so a crash or a SIGKILL in between leaves the started record,
read back as *unfinished*. Bulk runs use :meth:`Journal.batch` instead
(:mod:`bottui.store.journal_batch`).

The file is opened on first use; a journal of an earlier schema is migrated
in place then (:mod:`bottui.store.journal_migrations`). Several processes may write it at once (the
TUI, CLI commands, a bulk run): a write waits for the others' lock up to the
busy timeout (:data:`~bottui.store.journal_schema.BUSY_TIMEOUT`, retried
with jittered backoff, :mod:`bottui.store.sqlite_retry`), and
:attr:`Journal.lock_stats` says how long the writes waited. A locked (past
the busy timeout), read-only or damaged file raises
:class:`~bottui.store.db_errors.JournalUnavailable`: the caller warns that
the change is not journaled and goes ahead.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from bottui.store.db_errors import JournalUnavailable
from bottui.store.journal_batch import DEFAULT_BATCH_SIZE, DEFAULT_INTERVAL, BatchWriter
from bottui.store.journal_codec import micros, unpack_key
from bottui.store.journal_export import export_csv, export_jsonl
from bottui.store.journal_items import item_states
from bottui.store.journal_migrations import SCHEMA
from bottui.store.journal_query import read_page
from bottui.store.journal_records import (
    SETTLED_OUTCOMES,
    JournalEntry,
    Operation,
    Outcome,
    StartRecord,
    dimension_target,
    limiter_target,
    local_host,
    local_operator,
    target_key,
    text,
)
from bottui.store.journal_rows import Dictionaries, entry, finish_of, start_row, write
from bottui.store.journal_schema import (
    BUSY_TIMEOUT,
    COLUMNS,
    NEXT_ENTRY_ID,
    OUTCOME_JOINS,
    SELECT_ENTRIES,
    SETTLED_PREFIX,
)
from bottui.store.journal_store import EntryQuery, ItemState, RunId
from bottui.store.journal_undo import (
    KIND_OPERATIONS,
    NO_CHANGE_OUTCOMES,
    UndoCandidate,
    UndoKind,
    undo_candidate,
)
from bottui.store.paths import Locations
from bottui.store.sqlite_retry import LockStats
from bottui.store.sqlite_util import ClosesOnExit, Database
from bottui.store.utc import Clock, parse_time, stamp, system_clock


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
        self._stats = LockStats()
        self._db = Database(
            self._path,
            SCHEMA,
            unavailable=JournalUnavailable,
            synchronous="FULL",
            busy_timeout=busy_timeout,
            lock_stats=self._stats,
        )
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
        return self._stats

    @property
    def operator(self) -> str:
        """``user@host`` written into every started record."""
        if self._operator is None:
            self._operator = local_operator()
        return self._operator

    # -- single, durable writes ------------------------------------------------------

    def start(
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
        undo_of: int | None = None,
        run_id: int | None = None,
        item_key: str | None = None,
        operator: str | None = None,
        reason: str | None = None,
    ) -> int:
        """Append a started record, committed durably; returns the entry id.

        Call it before the request is sent. ``request_body``, ``target`` and
        ``previous`` are redacted (``serverKey`` becomes ``"***"``).
        ``operator`` (None: this journal's) and ``reason`` (None or blank:
        none) are stored exactly as given, once per segment.

        Raises:
            JournalUnavailable: the journal cannot be written (warn, go ahead).
            TypeError: a token object, or a value that is not JSON.
            ValueError: ``undo_of`` or ``run_id`` names no entry/run.
        """
        record = StartRecord(
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
        now = self._clock()
        start = start_row(record, micros(now), stamp(now), self.operator, os.getpid(), self._host)
        try:
            with self._db.write() as conn:
                entry_id = int(conn.execute(NEXT_ENTRY_ID).fetchone()[0])
                write(conn, entry_id, [start], (), self._names)
        except sqlite3.IntegrityError:
            raise ValueError(
                f"undo_of={undo_of} or run_id={run_id} names nothing in the journal"
            ) from None
        return entry_id

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
        """Append the outcome of ``entry_id``, committed durably.

        Args:
            entry_id: What :meth:`start` returned.
            outcome: A word of :class:`Outcome` (``ok``, ``api-error``, ...).
            status: The HTTP status, when there was an answer.
            result: What the answer said (redacted), e.g. ``{"revoked": true, "reportId": ...}``.
            error: The error object, e.g. ``ApiError.to_json()["error"]``.
            duration_ms: Time from sending to the answer (retries included).

        Raises:
            JournalUnavailable: the journal cannot be written.
            ValueError: no such entry, or it already has an outcome.
        """
        finish = finish_of(
            entry_id,
            micros(self._clock()),
            outcome=outcome,
            status=status,
            result=result,
            error=error,
            duration_ms=duration_ms,
        )
        try:
            with self._db.write() as conn:
                write(conn, 0, (), [finish], self._names)
        except sqlite3.IntegrityError:
            self._names.forget()
            raise ValueError(
                f"journal entry #{entry_id} does not exist or already has an outcome"
            ) from None
        except BaseException:
            self._names.forget()
            raise
        self._names.commit()

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
            lock_stats=self._stats,
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
    ) -> int:
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
                return newest
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
            return int(cursor.lastrowid or 0)

    def settled_items(self, run_id: int, outcomes: Iterable[str] = SETTLED_OUTCOMES) -> set[str]:
        """Item keys of ``run_id`` whose outcome is one of ``outcomes``
        (default: withdrawn or nothing-standing): what ``--resume`` skips."""
        wanted = [str(o) for o in outcomes]
        if not wanted:
            return set()
        marks = ", ".join("?" * len(wanted))
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT e.item_key FROM items AS e "
                "JOIN results AS o ON o.entry_id = e.id JOIN words AS w ON w.id = o.word "
                f"WHERE e.run_id = ? AND w.word IN ({marks}) AND e.item_key IS NOT NULL",
                (run_id, *wanted),
            ).fetchall()
        return {str(unpack_key(key)) for (key,) in rows}

    def item_states(self, run_id: int, keys: Sequence[str]) -> dict[str, ItemState]:
        """What ``run_id`` knows of each of ``keys`` (absent: never attempted);
        indexed lookups only, whatever the run's size (:mod:`~bottui.store.journal_items`)."""
        with self._db.read() as conn:
            return item_states(conn, run_id, keys)

    def settled_prefix(self, run_id: int) -> int | None:
        """The newest checkpoint of ``run_id``: every id on an input line up to
        it is settled (None: no checkpoint)."""
        with self._db.read() as conn:
            row = conn.execute(SETTLED_PREFIX, (run_id,)).fetchone()
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
        if not self._exists():
            return []
        with self._db.read() as conn:
            return read_page(conn, query, None, limit)

    def entry(self, entry_id: int) -> JournalEntry | None:
        """One entry by id."""
        if not self._exists():
            return None
        with self._db.read() as conn:
            row = conn.execute(SELECT_ENTRIES + " WHERE e.id = ?", (entry_id,)).fetchone()
        return None if row is None else entry(row)

    def last_undoable(self, profile: str, kind: UndoKind) -> UndoCandidate:
        """The newest change of ``kind`` (``"limiter"`` or ``"thresholds"``) of
        ``profile`` and the value that undoes it, or why it cannot be undone.

        Undo entries count as changes (undoing an undo is a redo). Attempts
        that surely changed nothing (api-error, refused) are looked past.
        """
        operations = KIND_OPERATIONS[kind]
        skip = [str(o) for o in NO_CHANGE_OUTCOMES]
        found: JournalEntry | None = None
        if self._exists():
            sql = (
                f"SELECT {COLUMNS} FROM segments AS s "
                "JOIN items AS e ON e.id BETWEEN s.first_id AND s.last_id"
                + OUTCOME_JOINS
                + f" WHERE s.profile = ? AND s.operation IN ({', '.join('?' * len(operations))})"
                + f" AND (w.word IS NULL OR w.word NOT IN ({', '.join('?' * len(skip))}))"
                + " ORDER BY s.first_id DESC, e.id DESC LIMIT 1"
            )
            with self._db.read() as conn:
                row = conn.execute(sql, (profile, *operations, *skip)).fetchone()
            found = None if row is None else entry(row)
        return undo_candidate(kind, profile, found)

    # -- export -------------------------------------------------------------------------

    @staticmethod
    def export_jsonl(
        path: Path, entries: Iterable[JournalEntry], *, overwrite: bool = False
    ) -> int:
        """Write ``entries`` to ``path`` as JSON Lines (atomically); returns the count."""
        return export_jsonl(path, entries, overwrite=overwrite)

    @staticmethod
    def export_csv(path: Path, entries: Iterable[JournalEntry], *, overwrite: bool = False) -> int:
        """Write ``entries`` to ``path`` as CSV (atomically); returns the count."""
        return export_csv(path, entries, overwrite=overwrite)

    # -- lifetime -----------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (a later call opens it again)."""
        self._db.close()

    def _exists(self) -> bool:
        """Reading never creates the file: no file means no entries."""
        return self._path.exists()


def file_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file's bytes (the identity of a bulk input)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


__all__ = [
    "SETTLED_OUTCOMES",
    "BatchWriter",
    "Journal",
    "JournalEntry",
    "JournalUnavailable",
    "Operation",
    "Outcome",
    "StartRecord",
    "UndoCandidate",
    "UndoKind",
    "dimension_target",
    "file_sha256",
    "limiter_target",
    "run_identity",
    "target_key",
]
