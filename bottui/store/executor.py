"""The one executor every store call runs on: lanes of daemon threads.

The stores are synchronous (SQLite, the keyring); the UI and the ops are
async. Every store call is awaited through :meth:`StoreExecutor.call`, which
runs it on a *lane*: a named queue served by its own daemon thread(s).

* Daemon threads, not ``asyncio.to_thread``: the default executor's threads
  are joined at interpreter exit, so one SQLite call stuck on a lock (or a
  keyring call hung on D-Bus) would keep the process alive after the user
  quit. A daemon thread never holds up exit.
* One lane per store and purpose: a store's writes go through one lane with
  one thread, so they are serialised in this process; its reads go through
  another, so a read never queues behind a write waiting for another
  process's lock (WAL readers do not wait for writers).
* A job that has not *begun* when its awaiting caller gives up (a bound ran
  out, the task was cancelled) is skipped; one already running cannot be
  interrupted and finishes in its thread, its result dropped.

Threads start on demand and end after :data:`IDLE_SECONDS` without work;
they are never joined. :func:`shared_executor` is the process's executor.

An async store over a sync one is an :class:`OffLoop`: its methods are made
once from the sync class's by :func:`reads` and :func:`writes` (typed with
the sync method's own parameters, so ``mypy --strict`` checks every caller),
not written again by hand per method.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import queue
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Concatenate, Final, Generic, ParamSpec, Protocol, TypeVar

import msgspec

T = TypeVar("T")
P = ParamSpec("P")


class Closes(Protocol):
    """A sync store: whatever it holds open, ``close`` lets go."""

    def close(self) -> None:
        """Close its connections (a later call opens them again)."""


#: The sync store an :class:`OffLoop` runs.
S = TypeVar("S", bound=Closes)

#: Lane of one-off blocking calls that belong to no store's write order.
GENERAL_LANE: Final = "general"
_GENERAL_WORKERS: Final = 4
#: Seconds a lane's thread waits for work before it ends.
IDLE_SECONDS: Final = 60.0


class _Job(msgspec.Struct, eq=False):
    """One call waiting in a lane, and where its result goes."""

    fn: Callable[[], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    #: Set when the caller stopped waiting before the job began: skip it.
    abandoned: threading.Event = msgspec.field(default_factory=threading.Event)


class _Lane:
    """A FIFO of jobs served by up to ``workers`` daemon threads, started on
    demand; a thread idle for ``idle`` seconds ends (the next job starts one)."""

    def __init__(self, name: str, workers: int, idle: float) -> None:
        self.name = name
        self._workers = workers
        self._idle = idle
        self._queue: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    @property
    def threads(self) -> tuple[threading.Thread, ...]:
        """The lane's threads started so far."""
        return tuple(self._threads)

    def submit(self, job: _Job) -> None:
        # Queued under the lock: a thread that finds the queue empty and ends
        # does so under the same lock, so a job is never left without one.
        with self._lock:
            self._queue.put(job)
            if len(self._threads) < self._workers:
                thread = threading.Thread(
                    target=self._serve,
                    name=f"bottui-store-{self.name}-{len(self._threads)}",
                    daemon=True,  # never joined: a stuck call must not block exit
                )
                self._threads.append(thread)
                thread.start()

    def _serve(self) -> None:
        while True:
            try:
                job = self._queue.get(timeout=self._idle)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._threads.remove(threading.current_thread())
                        return
                continue
            if job.abandoned.is_set():
                continue
            result: Any = None
            error: BaseException | None = None
            try:
                result = job.fn()
            except BaseException as exc:  # delivered to the awaiting task
                error = exc
            # RuntimeError: the loop closed meanwhile, so nobody is waiting.
            with contextlib.suppress(RuntimeError):
                job.loop.call_soon_threadsafe(_deliver, job.future, result, error)
            del job, result, error  # drop references (a token's frames) before waiting


def _deliver(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class StoreExecutor:
    """Named lanes of daemon threads; :meth:`call` awaits a blocking call on one.

    A lane is made on first use with one worker thread (so its jobs run one
    at a time, in order), except :data:`GENERAL_LANE`, which has a few.
    ``idle``: seconds a thread waits for work before it ends.
    """

    def __init__(self, *, idle: float = IDLE_SECONDS) -> None:
        self._idle = idle
        self._lanes: dict[str, _Lane] = {}
        self._lock = threading.Lock()

    def _lane(self, name: str) -> _Lane:
        with self._lock:
            lane = self._lanes.get(name)
            if lane is None:
                workers = _GENERAL_WORKERS if name == GENERAL_LANE else 1
                lane = self._lanes[name] = _Lane(name, workers, self._idle)
            return lane

    def threads(self) -> tuple[threading.Thread, ...]:
        """Every thread the executor has started (for tests and diagnostics)."""
        with self._lock:
            lanes = list(self._lanes.values())
        return tuple(t for lane in lanes for t in lane.threads)

    async def call(
        self, fn: Callable[[], T], *, lane: str = GENERAL_LANE, timeout: float | None = None
    ) -> T:
        """Run ``fn`` on ``lane`` and await its result or exception.

        Args:
            fn: The blocking call.
            lane: Which lane (its jobs run in order, one at a time).
            timeout: Seconds to wait before :class:`TimeoutError`; a job that
                has not begun by then is skipped, one running is left to end.

        Raises:
            TimeoutError: ``timeout`` passed first.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        job = _Job(fn, loop, future)
        self._lane(lane).submit(job)
        try:
            if timeout is None:
                return await future
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except BaseException:
            # TimeoutError or cancellation: a job still queued must not run later.
            job.abandoned.set()
            if future.done() and not future.cancelled():
                future.exception()  # retrieved: no "never retrieved" warning
            else:
                future.add_done_callback(_silence)
            raise


def _silence(future: asyncio.Future[Any]) -> None:
    """Retrieve an abandoned job's outcome so asyncio does not log it."""
    if not future.cancelled():
        future.exception()


_SHARED: StoreExecutor | None = None
_SHARED_LOCK: Final = threading.Lock()


def shared_executor() -> StoreExecutor:
    """The process's store executor (made on first use)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = StoreExecutor()
        return _SHARED


async def run_blocking(fn: Callable[[], T], *, lane: str = GENERAL_LANE) -> T:
    """Await ``fn`` on the shared executor (what ``run_in_daemon`` did, with lanes)."""
    return await shared_executor().call(fn, lane=lane)


class OffLoop(Generic[S]):
    """An async store over a sync one: writes on one lane, reads on another.

    ``writer`` and ``reader`` are two objects of the sync store on the same
    file, each with its own connection: a read is answered while a write
    waits for another process's lock (WAL readers do not wait for writers).
    Writes run one at a time on the write lane, so they are serialised in
    this process; neither ever runs on the event loop.
    """

    def __init__(
        self, writer: S, reader: S, *, kind: str, path: Path, executor: StoreExecutor | None = None
    ) -> None:
        self._path = Path(path)
        self._writer = writer
        self._reader = reader
        self._executor = executor or shared_executor()
        # "journal-write:<file>": the timed store writes the journal's file on the same lane.
        key = os.path.realpath(self._path)
        self._write_lane = f"{kind}-write:{key}"
        self._read_lane = f"{kind}-read:{key}"

    @property
    def path(self) -> Path:
        """The store's file."""
        return self._path

    async def _write(self, fn: Callable[[], T], timeout: float | None = None) -> T:
        return await self._executor.call(fn, lane=self._write_lane, timeout=timeout)

    async def _read(self, fn: Callable[[], T]) -> T:
        return await self._executor.call(fn, lane=self._read_lane)

    async def _bounded_write(self, fn: Callable[[], T]) -> T:
        """A write of :func:`writes` with ``bounded``: the store says how long it may wait."""
        return await self._write(fn)

    async def close(self) -> None:
        """Close both connections, each after the calls queued on its lane (a later
        call opens them again)."""
        await self._write(self._writer.close)
        await self._read(self._reader.close)


def reads(
    method: Callable[Concatenate[S, P], T],
) -> Callable[Concatenate[OffLoop[S], P], Coroutine[Any, Any, T]]:
    """``method`` of the sync store, awaited on the read lane with the reader's connection."""

    async def call(self: OffLoop[S], /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._read(functools.partial(method, self._reader, *args, **kwargs))

    return functools.update_wrapper(call, method)


def writes(
    method: Callable[Concatenate[S, P], T], *, bounded: bool = False
) -> Callable[Concatenate[OffLoop[S], P], Coroutine[Any, Any, T]]:
    """``method`` of the sync store, awaited on the write lane (one at a time, in
    order); ``bounded``: through the store's :meth:`OffLoop._bounded_write`."""

    async def call(self: OffLoop[S], /, *args: P.args, **kwargs: P.kwargs) -> T:
        work = functools.partial(method, self._writer, *args, **kwargs)
        return await (self._bounded_write(work) if bounded else self._write(work))

    return functools.update_wrapper(call, method)
