"""What the journal is to its callers: the async :class:`JournalStore` protocol.

The ops and the TUI await these methods and never touch the file. SQLite
implements them today (:mod:`bottui.store.journal.async_facade`); a shared team
journal on a server will implement the same protocol, so nothing here names
SQLite: ids are :data:`EntryId`/:data:`RunId`, reads page with a
:class:`Cursor` the store made (opaque to callers), times are ``datetime``
in UTC.

Records read back are :class:`~bottui.store.journal.records.JournalEntry`
(their ``started_at``/``finished_at`` are ISO 8601 UTC text;
:func:`entry_started` gives the ``datetime``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NewType, Protocol, runtime_checkable

from bottui.store.journal.records import JournalEntry, StartRecord
from bottui.store.journal.undo import UndoCandidate, UndoKind
from bottui.store.paging import Cursor
from bottui.store.utc import parse_time

#: A journal entry's id, given by the store; shown as ``#<id>``, compared for equality.
EntryId = NewType("EntryId", int)
#: A bulk run's id, given by the store.
RunId = NewType("RunId", int)

#: How many entries a page holds unless the caller says.
DEFAULT_PAGE: int = 200
#: Seconds a *started* record may wait for the journal before the change goes
#: ahead unjournaled (:class:`~bottui.store.errors.JournalUnavailable`).
START_BOUND: float = 15.0


@dataclass(frozen=True)
class EntryQuery:
    """Which entries to read; every filter given must match.

    ``outcomes`` matches any of its words; ``unfinished`` only entries without
    an outcome. ``since``/``until`` are aware ``datetime`` (a naive one is
    taken as UTC): started at or after ``since``, before ``until``. ``before``
    keeps entries older than that id (``--before ID``). ``operator`` matches
    exactly; ``reason`` is a case-insensitive substring of the reason.
    """

    since: datetime | None = None
    until: datetime | None = None
    before: EntryId | None = None
    profile: str | None = None
    account: str | None = None
    project: str | None = None
    operation: str | None = None
    outcomes: frozenset[str] | None = None
    unfinished: bool = False
    run_id: RunId | None = None
    operator: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class EntryPage:
    """One page of entries, newest first, and the cursor of the next (``None``: the end)."""

    entries: tuple[JournalEntry, ...]
    next: Cursor | None


@dataclass(frozen=True)
class ItemState:
    """What a bulk run's journal knows of one item key (``--resume``).

    ``settled``: some attempt ended withdrawn or nothing-standing.
    ``last_outcome``: the outcome of its newest finished attempt (``None``: none).
    ``unfinished``: its attempts without an outcome (a crash lost their answer).
    """

    settled: bool
    last_outcome: str | None
    unfinished: tuple[EntryId, ...]


def entry_started(entry: JournalEntry) -> datetime:
    """When ``entry`` was started, as an aware UTC ``datetime``."""
    return parse_time(entry.started_at).astimezone(UTC)


@runtime_checkable
class JournalBatch(Protocol):
    """Buffered writes of one bulk run (see :mod:`bottui.store.journal.sync`)."""

    async def start_many(self, records: Sequence[StartRecord]) -> list[EntryId]:
        """Write the started records of a chunk at once; their ids, in order."""
        ...

    async def finish(self, entry_id: EntryId, **outcome: Any) -> None:
        """Queue the outcome of ``entry_id`` (written at the next flush)."""
        ...

    async def checkpoint(self, run_id: RunId, settled_line: int) -> None:
        """Queue a settled prefix of ``run_id`` (every id on an input line up to
        ``settled_line`` is settled): written after every outcome queued before
        it, in the same or a later transaction, never before them."""
        ...

    async def flush(self) -> None:
        """Write every queued outcome now."""
        ...

    async def close(self) -> None:
        """Flush and close."""
        ...


@runtime_checkable
class JournalStore(Protocol):
    """The audit journal: every mutation attempt, appended, never rewritten.

    Every method may raise :class:`~bottui.store.errors.JournalUnavailable`
    (the caller warns "not journaled" and goes ahead).
    """

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
        """Append a started record durably, before the request is sent.

        ``operator`` is who makes the change (None: the store's default,
        ``user@host``); ``reason`` why (None or blank: none). Both are kept
        exactly as given; the store adds the host and the event id.

        Waits at most the store's start bound (:data:`START_BOUND`), then
        raises ``JournalUnavailable``.
        """
        ...

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
        ...

    async def page(
        self,
        query: EntryQuery | None = None,
        *,
        limit: int = DEFAULT_PAGE,
        cursor: Cursor | None = None,
    ) -> EntryPage:
        """Up to ``limit`` entries matching ``query``, newest first, after ``cursor``."""
        ...

    async def entry(self, entry_id: EntryId) -> JournalEntry | None:
        """One entry by id."""
        ...

    async def last_undoable(self, profile: str, kind: UndoKind) -> UndoCandidate:
        """The newest change of ``kind`` of ``profile`` and what undoes it."""
        ...

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
        ...

    async def settled_items(self, run_id: RunId, outcomes: Collection[str]) -> frozenset[str]:
        """Item keys of ``run_id`` whose outcome is one of ``outcomes`` (``--resume``)."""
        ...

    async def item_states(self, run_id: RunId, keys: Sequence[str]) -> dict[str, ItemState]:
        """The state of each of ``keys`` in ``run_id``; a key never attempted is absent.

        Callers ask per chunk of input, so a resume never holds a whole run in memory.
        """
        ...

    async def settled_prefix(self, run_id: RunId) -> int | None:
        """The newest settled-prefix checkpoint of ``run_id`` (an input line), if any."""
        ...

    async def batch(self) -> JournalBatch:
        """A buffered writer for one bulk run."""
        ...

    async def close(self) -> None:
        """Release connections (a later call opens them again)."""
        ...


__all__ = [
    "DEFAULT_PAGE",
    "START_BOUND",
    "EntryId",
    "EntryPage",
    "EntryQuery",
    "ItemState",
    "JournalBatch",
    "JournalStore",
    "RunId",
    "entry_started",
]
