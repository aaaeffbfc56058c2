"""SQLite as the inventory and the journal use it: one lazily opened database, waiting for locks.

* :class:`Database`: WAL, busy timeout, schema and migrations, and every
  ``sqlite3`` failure about the file turned into a clear error;
* :func:`retry_busy` and :class:`LockStats`: bounded, jittered waiting for
  another process's write lock, and how long writes waited.
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Final, Literal, NamedTuple, Self, TypeVar

from bottui.store.files import FILE_MODE, ensure, sync_directory
from bottui.store.store_errors import DatabaseUnavailable

# One lazily opened SQLite database: WAL, busy timeout, schema, clear errors.
#
# :class:`Database` is what the inventory and the journal are built on. It
# opens its file on first use (never at import or construction), creates the
# directory and the file (mode 0600) when missing, switches to WAL, waits up to
# ``busy_timeout`` seconds for another process's lock, creates the schema or
# migrates an older file in place (:class:`Schema` ``steps``: numbered, in
# order, in one ``BEGIN IMMEDIATE`` transaction; a file of a newer version is
# refused and never written), and turns every ``sqlite3`` failure that is about the file (locked,
# read-only, damaged, not ours, disk full, I/O error) into the store's
# :class:`~bottui.store.store_errors.DatabaseUnavailable` subclass with a
# one-line title. It never deletes, truncates or rewrites a file it cannot read.
#
# Writes run in ``BEGIN IMMEDIATE`` transactions (the write lock is taken up
# front, so two processes queue for it instead of failing on a lock upgrade).
# Taking the lock, committing, opening and starting a read snapshot are
# retried on ``SQLITE_BUSY`` with jittered backoff until ``busy_timeout``
# (:mod:`bottui.store.sqlite_helpers`); :attr:`Database.lock_stats` counts how
# long writes waited. A connection is shared by threads under a lock.

DEFAULT_BUSY_TIMEOUT: Final = 2.0
Synchronous = Literal["FULL", "NORMAL"]


# Primary result codes (sqlite3.h).
_SQLITE_PERM: Final = 3
SQLITE_BUSY: Final = 5
SQLITE_LOCKED: Final = 6
_SQLITE_READONLY: Final = 8
_SQLITE_IOERR: Final = 10
_SQLITE_CORRUPT: Final = 11
_SQLITE_FULL: Final = 13
_SQLITE_CANTOPEN: Final = 14
_SQLITE_NOTADB: Final = 26


class Step(NamedTuple):
    """One migration: what brings a file from the version before to ``version``.

    ``apply`` is DDL run in order, or a function given the connection. It runs
    inside the migrating ``BEGIN IMMEDIATE`` transaction with foreign keys
    off; a step that moves rows drops and re-creates the append-only
    triggers itself, in that same transaction.
    """

    version: int
    apply: tuple[str, ...] | Callable[[sqlite3.Connection], None]


class Schema(NamedTuple):
    """What a database file must hold: its tables, id and version."""

    #: "journal" or "inventory": the word used in messages.
    name: str
    #: ``PRAGMA application_id`` marking the file as ours.
    application_id: int
    #: ``PRAGMA user_version`` of the current schema.
    version: int
    #: DDL of a new file at ``version`` (an empty file skips the steps: no
    #: tables made only to be dropped).
    statements: tuple[str, ...] = ()
    #: Ordered migrations of an existing file, each to its ``version``; the
    #: last one's is ``version``. A test checks a migrated file's schema
    #: equals a new file's.
    steps: tuple[Step, ...] = ()
    #: The error raised when the file cannot be used (the store's own subclass).
    unavailable: type[DatabaseUnavailable] = DatabaseUnavailable


class Database:
    """A SQLite file opened on first use, with WAL and a busy timeout.

    Args:
        path: The database file. Its directory is created when missing.
        schema: Tables to create, the id/version to check, the error to raise.
        unavailable: Another error class than the schema's (a test's schema).
        synchronous: ``FULL`` (every commit reaches the disk before it
            returns) or ``NORMAL`` (in WAL mode: a commit survives a process
            crash; a power loss may undo the newest commits).
        busy_timeout: Seconds to wait for another process's lock (per write,
            per read, per opening), retrying with jittered backoff.
        lock_stats: Where to count the writes' waits (shared by a journal and
            its bulk writers); a new one when not given.
    """

    def __init__(
        self,
        path: Path,
        schema: Schema,
        *,
        unavailable: type[DatabaseUnavailable] | None = None,
        synchronous: Synchronous = "FULL",
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        lock_stats: LockStats | None = None,
    ) -> None:
        self._path = Path(path)
        self._schema = schema
        self._unavailable_cls = unavailable or schema.unavailable
        self._synchronous = synchronous
        self._busy_timeout = busy_timeout
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        # Connections opened so far: a marker read on one (``PRAGMA data_version``)
        # compares only with markers read on the same one.
        self._opened = 0
        self._stats = LockStats() if lock_stats is None else lock_stats

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    @property
    def opened(self) -> int:
        """How many connections this object has opened (one, then one per reopening)."""
        return self._opened

    @property
    def lock_stats(self) -> LockStats:
        """How long this database's writes waited for the write lock."""
        return self._stats

    # -- opening ---------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
            self._opened += 1
        return self._conn

    def _open(self) -> sqlite3.Connection:
        self._create_file()
        try:
            # Opening reads the header and may create the schema: another
            # process may hold a lock meanwhile (or be switching to WAL).
            conn, _ = retry_busy(self._connect, time.monotonic() + self._busy_timeout)
        except sqlite3.Error as exc:
            raise self._translate(exc) from None
        return conn

    def _create_file(self) -> None:
        name = self._schema.name
        try:
            ensure(self._path.parent)
            if not self._path.exists():
                try:
                    fd = os.open(self._path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
                except FileExistsError:
                    pass
                else:
                    os.close(fd)
                    sync_directory(self._path.parent)
        except OSError as exc:
            raise self._unavailable_cls(
                f"The {name} cannot be created",
                f"{self._path}: {exc.strerror or exc}. Check the directory's permissions.",
                path=self._path,
            ) from None

    def _connect(self) -> sqlite3.Connection:
        """One attempt at a ready connection (sqlite3 errors raised as they are)."""
        conn = sqlite3.connect(
            str(self._path),
            # SQLite's handler only gets a slice: retry_busy does the waiting.
            timeout=min(HANDLER_SLICE, self._busy_timeout),
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            self._check_identity(conn)
            # SQLite answers SQLITE_BUSY at once, without calling the busy
            # handler, when two connections switch a new file's journal mode.
            self._switch_to_wal(conn)
            conn.execute(f"PRAGMA synchronous={self._synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            if conn.execute("PRAGMA user_version").fetchone()[0] < self._schema.version:
                self._migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _switch_to_wal(self, conn: sqlite3.Connection) -> None:
        """Set WAL mode (persistent) unless it is set already."""
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal":
            conn.execute("PRAGMA journal_mode=WAL").fetchone()

    def _check_identity(self, conn: sqlite3.Connection) -> None:
        name = self._schema.name
        # One snapshot: another process may be creating the schema meanwhile.
        conn.execute("BEGIN")
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute(
                "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            ).fetchone()[0]
        except BaseException:
            self._rollback(conn)
            raise
        conn.execute("COMMIT")
        # No id: a new file, unless it holds tables (another program's, without an id).
        if (app_id == 0 and tables) or app_id not in (0, self._schema.application_id):
            which = f" (application id {app_id:#x})" if app_id else ""
            raise self._unavailable_cls(
                f"The {name} file is not a bottui {name}",
                f"{self._path} is a SQLite database of another program{which}. "
                "bottui leaves it as it is.",
                path=self._path,
            )
        self._refuse_newer(version)

    def _migrate(self, conn: sqlite3.Connection) -> None:
        """Bring the file to the current version in place, in one transaction.

        ``BEGIN IMMEDIATE`` first: a second process opening at the same time
        waits, then finds the new version and does nothing; a writer of this
        version waits for the lock as for any write. Nothing is copied and
        swapped, so a process holding the file open never loses its rows.
        """
        # Foreign keys cannot be switched inside a transaction; a step moving
        # rows between tables must not trip over them halfway.
        conn.execute("PRAGMA foreign_keys=OFF")
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                # Another process may have migrated while we waited for the lock.
                found = conn.execute("PRAGMA user_version").fetchone()[0]
                self._refuse_newer(found)
                if found == 0:
                    _apply(conn, Step(self._schema.version, self._schema.statements))
                elif found < self._schema.version:
                    for step in self._schema.steps:
                        if step.version > found:
                            _apply(conn, step)
                    if conn.execute("PRAGMA foreign_key_check").fetchone() is not None:
                        raise sqlite3.IntegrityError("a migration left a dangling reference")
                if found < self._schema.version:
                    conn.execute(f"PRAGMA application_id={int(self._schema.application_id)}")
                    conn.execute(f"PRAGMA user_version={int(self._schema.version)}")
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        finally:
            conn.execute("PRAGMA foreign_keys=ON")

    def _refuse_newer(self, version: int) -> None:
        """An older bottui never writes a file of a newer schema."""
        if version > self._schema.version:
            name = self._schema.name
            raise self._unavailable_cls(
                f"The {name} was written by a newer bottui",
                f"{self._path} has schema version {version}; this bottui knows "
                f"version {self._schema.version}. Upgrade bottui.",
                path=self._path,
            )

    # -- use -------------------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction, committed when the block ends.

        Raises:
            DatabaseUnavailable: (the store's subclass) the file is locked past
                the busy timeout, read-only, damaged or out of space. Nothing of
                the block is kept.
        """
        with self._lock:
            conn = self._connection()
            asked = time.monotonic()
            # IMMEDIATE takes the write lock now, so a busy file waits here
            # instead of failing halfway through the block (a deferred
            # transaction's upgrade to write is never given to a busy handler).
            try:
                _, retries = retry_busy(
                    lambda: conn.execute("BEGIN IMMEDIATE"), asked + self._busy_timeout
                )
            except sqlite3.Error as exc:
                self._stats.note(time.monotonic() - asked, 0)
                raise self._fail(exc) from None
            taken = time.monotonic()
            with self._committed(conn):
                yield conn
            self._stats.note(taken - asked, retries, time.monotonic() - taken)

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one consistent snapshot for the whole block."""
        with self._lock:
            conn = self._connection()
            try:
                retry_busy(lambda: self._begin_read(conn), time.monotonic() + self._busy_timeout)
            except sqlite3.Error as exc:
                raise self._fail(exc) from None
            with self._committed(conn):
                yield conn

    def read_or(self, work: Callable[[sqlite3.Connection], T], empty: T) -> T:
        """``work`` in one :meth:`read` transaction; ``empty`` when there is no file
        (reading never creates one: no file means nothing in it)."""
        if not self._path.exists():
            return empty
        with self.read() as conn:
            return work(conn)

    def _begin_read(self, conn: sqlite3.Connection) -> None:
        """BEGIN, and take the snapshot now, where a busy answer can be retried."""
        conn.execute("BEGIN")
        try:
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except BaseException:
            self._rollback(conn)
            raise

    @contextmanager
    def _committed(self, conn: sqlite3.Connection) -> Iterator[None]:
        """The block, then COMMIT; rollback and one clear error on failure."""
        try:
            yield
            # A COMMIT that finds the file busy keeps the transaction open: try again.
            retry_busy(lambda: conn.execute("COMMIT"), time.monotonic() + self._busy_timeout)
        except BaseException as exc:
            self._rollback(conn)
            if _is_about_the_file(exc):
                assert isinstance(exc, sqlite3.Error)
                raise self._fail(exc) from None
            raise

    def close(self) -> None:
        """Close the connection (the next use opens it again)."""
        with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                with suppress(sqlite3.Error):
                    conn.close()

    # -- errors ----------------------------------------------------------------

    def _rollback(self, conn: sqlite3.Connection) -> None:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _fail(self, exc: sqlite3.Error) -> DatabaseUnavailable:
        """Translate ``exc`` and drop the connection, so the next use re-opens."""
        error = self._translate(exc)
        self.close()
        return error

    def _translate(self, exc: sqlite3.Error) -> DatabaseUnavailable:
        title, details = describe(exc, self._schema.name, self._path, self._busy_timeout)
        return self._unavailable_cls(title, details, path=self._path)


def _apply(conn: sqlite3.Connection, step: Step) -> None:
    if callable(step.apply):
        step.apply(conn)
    else:
        for statement in step.apply:
            conn.execute(statement)


def _is_about_the_file(exc: BaseException) -> bool:
    """True for sqlite errors about the file, not about our own statements."""
    return isinstance(exc, sqlite3.Error) and not isinstance(
        exc, sqlite3.IntegrityError | sqlite3.ProgrammingError | sqlite3.InterfaceError
    )


def describe(exc: sqlite3.Error, name: str, path: Path, busy_timeout: float) -> tuple[str, str]:
    """A one-line title and the details for a sqlite error about ``path``."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    message = str(exc)
    lowered = message.lower()
    if primary in (SQLITE_BUSY, SQLITE_LOCKED) or "locked" in lowered:
        return (
            f"The {name} is locked by another process",
            f"{path} stayed locked for more than {busy_timeout:g} s: another program "
            "holds it. Try again when it is done.",
        )
    if primary == _SQLITE_READONLY or "readonly" in lowered or "read-only" in lowered:
        return (
            f"The {name} is read-only",
            f"{path} cannot be written: check the permissions of the file and its "
            "directory, and that the file system is not mounted read-only.",
        )
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or "malformed" in lowered:
        return (
            f"The {name} file is damaged",
            f"{path} is not a readable SQLite database ({message}). bottui leaves it as "
            f"it is: move it aside and a new {name} is started.",
        )
    if primary == _SQLITE_FULL:
        return (f"The disk holding the {name} is full", f"{path}: {message}.")
    if primary in (_SQLITE_CANTOPEN, _SQLITE_PERM):
        return (
            f"The {name} cannot be opened",
            f"{path}: {message}. Check the permissions of the file and of its directory "
            "(SQLite keeps its -wal and -shm files next to it).",
        )
    if primary == _SQLITE_IOERR:
        return (f"The {name} could not be read or written", f"{path}: {message}.")
    return (f"The {name} is unavailable", f"{path}: {message}.")


class ClosesOnExit:
    """``with store: ...`` closes the store at the end of the block."""

    def close(self) -> None:
        """Release what the store holds (subclasses say what)."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# Waiting for another process's SQLite lock: bounded, jittered retry, and its statistics.
#
# Several processes write one journal (the TUI, CLI commands, a bulk run). In
# WAL mode only one may write at a time; the others get ``SQLITE_BUSY``.
# SQLite's own busy handler is not enough on its own:
#
# * it polls ever more slowly (up to every 100 ms), so a process that has
#   waited a while loses the lock, again and again, to whoever asks first
#   after it is released: under load a waiter starved past the 2 s timeout;
# * some ``SQLITE_BUSY`` answers never reach it (a deferred transaction
#   upgrading to write, two connections switching a new file to WAL).
#
# So a connection's own busy handler only gets a short slice
# (:data:`HANDLER_SLICE`) and :func:`retry_busy` retries the step (``BEGIN
# IMMEDIATE``, ``COMMIT``, opening) until a deadline, sleeping a short,
# jittered, growing pause between attempts, capped low (:data:`MAX_PAUSE`) so
# an old waiter asks as often as a new one. :class:`LockStats` counts how long
# writes waited: a figure for benchmarks and debugging, never shown to users.


T = TypeVar("T")

#: Seconds SQLite's busy handler waits inside one attempt (it polls at 1, 3, 8 ms).
HANDLER_SLICE: Final = 0.01

#: First pause between attempts, doubled after each until :data:`MAX_PAUSE`.
FIRST_PAUSE: Final = 0.001

#: Longest pause: low, so the lock goes to a waiter within a few ms of its release.
MAX_PAUSE: Final = 0.016


# Primary result codes (sqlite3.h).


def is_busy(exc: BaseException) -> bool:
    """True when ``exc`` says another connection holds a lock (worth waiting for)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (SQLITE_BUSY, SQLITE_LOCKED)
    return "locked" in str(exc).lower()  # Python built without error codes


def retry_busy(action: Callable[[], T], deadline: float) -> tuple[T, int]:
    """``action()`` until it does not fail busy, or ``deadline`` (``time.monotonic``) passes.

    Returns its result and how many attempts failed busy first. The last
    attempt is made at the deadline at the latest; then the busy error is
    raised as it is. Other errors are raised at once.
    """
    pause = FIRST_PAUSE
    failed = 0
    while True:
        try:
            return action(), failed
        except sqlite3.OperationalError as exc:
            left = deadline - time.monotonic()
            if not is_busy(exc) or left <= 0:
                raise
        failed += 1
        # Equal jitter: between half and all of the pause, so waiters spread out.
        time.sleep(min(left, pause * (0.5 + random.random() / 2)))
        pause = min(pause * 2, MAX_PAUSE)


@dataclass
class LockStats:
    """How the writes of one store waited for the write lock (seconds).

    ``wait`` runs from the first ``BEGIN IMMEDIATE`` attempt to the lock
    taken (retries and pauses included); ``hold`` from the lock taken to
    ``COMMIT`` returned (the fsync, and a checkpoint that follows a commit).
    Shared by a journal and its bulk writers; safe across threads.
    """

    writes: int = 0
    #: Attempts that found the lock taken and were tried again.
    retries: int = 0
    #: Writes that gave up at the deadline (the caller saw "locked").
    timeouts: int = 0
    max_wait: float = 0.0
    total_wait: float = 0.0
    max_hold: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def note(self, wait: float, retries: int, hold: float | None = None) -> None:
        """Count one committed write (it held the lock ``hold`` seconds), or, without
        ``hold``, one that waited past its deadline."""
        with self._lock:
            if hold is None:
                self.timeouts += 1
            else:
                self.writes += 1
                self.max_hold = max(self.max_hold, hold)
            self.retries += retries
            self.total_wait += wait
            self.max_wait = max(self.max_wait, wait)

    def as_dict(self) -> dict[str, float | int]:
        """The figures, e.g. for a benchmark's JSON."""
        with self._lock:
            return {
                "writes": self.writes,
                "retries": self.retries,
                "timeouts": self.timeouts,
                "max_wait": self.max_wait,
                "total_wait": self.total_wait,
                "max_hold": self.max_hold,
            }
