"""Timed changes in the local SQLite journal (tables of :mod:`bottui.store.journal.journal_schema`).

What the team store has not got yet is the outbox's business
(:class:`~bottui.store.team.outbox.Outbox`, cursor ``timed_push``).

:class:`TimedJournal` reads and appends them on the journal file;
:class:`TimedStore` is its async facade (every call on the store executor,
writes in the journal's own write lane, so they queue behind this process's
journal writes and never run on the event loop).

A schedule's ``detail`` (JSON): ``entries`` (event ids ``ORIGIN:ID`` of the
changes, in the order they were made), ``local`` (their ids in this file;
null for another file's), ``run_id``, ``profile``, ``base_url``,
``account``, ``project``, ``what``, ``revert_to`` (text), ``due_at``
(stored UTC stamp) and ``confirmed`` (the change was confirmed under a
protected profile, which confirms its revert too). An extend's: ``due_at``
and ``by`` (seconds); a cancel's: ``{}``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from bottui.store.executor import OffLoop, StoreExecutor
from bottui.store.journal.journal_schema import BUSY_TIMEOUT, ORIGIN, SCHEMA
from bottui.store.sqlite_helpers import Database

R = TypeVar("R")


class TimedEvent(msgspec.Struct, frozen=True):
    """One event of a timed change (``schedule``, ``extend``, ``cancel``)."""

    event_id: str
    kind: str
    timed: str
    at: int
    detail: dict[str, Any]
    operator: str
    host: str | None


class TimedClaim(msgspec.Struct, frozen=True):
    """The claim of one revert, and its result when it has one."""

    timed: str
    at: int
    executor: str
    state: str | None = None
    result_at: int | None = None
    detail: dict[str, Any] = msgspec.field(default_factory=dict)


def _object(text: object) -> dict[str, Any]:
    """A stored JSON object; ``{}`` for anything else (a damaged row is read, and its
    reader, :func:`bottui.ops.timed.schedule.fold`, skips it and says so)."""
    try:
        found = json.loads(text) if isinstance(text, str | bytes) else None
    except (ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def _int(value: object) -> int:
    """A stored time (µs); 0 when the row holds something else."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def timed_event(origin: str, row: Sequence[Any]) -> TimedEvent:
    """The event of a ``timed_events`` row ``(id, kind, timed, at, detail, operator, host)``."""
    return TimedEvent(
        event_id=f"{origin}:e{row[0]}",
        kind=str(row[1]),
        timed=str(row[2]),
        at=_int(row[3]),
        detail=_object(row[4]),
        operator=str(row[5]),
        host=None if row[6] is None else str(row[6]),
    )


class TimedJournal:
    """The timed changes of one journal file (blocking: call through :class:`TimedStore`)."""

    def __init__(self, path: Path, *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self._db = Database(Path(path), SCHEMA, busy_timeout=busy_timeout)

    def origin(self) -> str:
        """This file's origin UUID."""
        with self._db.read() as conn:
            return str(conn.execute(ORIGIN).fetchone()[0])

    def append(
        self,
        kind: str,
        timed: str | None,
        detail: dict[str, Any],
        *,
        at: int,
        operator: str,
        host: str | None,
    ) -> str:
        """Append an event; returns the timed change's key (a new one for ``schedule``)."""
        text = json.dumps(detail, ensure_ascii=False, sort_keys=True)
        with self._db.write() as conn:
            next_id = int(
                conn.execute("SELECT coalesce(max(id), 0) + 1 FROM timed_events").fetchone()[0]
            )
            if timed is None:
                timed = f"{conn.execute(ORIGIN).fetchone()[0]}:t{next_id}"
            conn.execute(
                "INSERT INTO timed_events (id, at, kind, timed, detail, operator, host) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (next_id, at, kind, timed, text, operator, host),
            )
        return timed

    def claim(self, timed: str, *, at: int, executor: str) -> bool:
        """Claim the revert of ``timed``; False when it was claimed already (by anyone here)."""
        try:
            with self._db.write() as conn:
                conn.execute(
                    "INSERT INTO timed_claims (timed, at, executor) VALUES (?, ?, ?)",
                    (timed, at, executor),
                )
        except sqlite3.IntegrityError:
            return False
        return True

    def result(self, timed: str, state: str, detail: dict[str, Any], *, at: int) -> None:
        """Record how the claimed revert of ``timed`` ended (once; a second is ignored)."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO timed_results (timed, at, state, detail) "
                "VALUES (?, ?, ?, ?)",
                (timed, at, state, json.dumps(detail, ensure_ascii=False, sort_keys=True)),
            )

    def events(self, *, include_done: bool = False) -> list[TimedEvent]:
        """Every event, oldest first (without those of finished reverts unless asked)."""
        where = (
            ""
            if include_done
            else (" WHERE NOT EXISTS (SELECT 1 FROM timed_results AS r WHERE r.timed = e.timed)")
        )
        with self._db.read() as conn:
            origin = str(conn.execute(ORIGIN).fetchone()[0])
            rows = conn.execute(
                "SELECT e.id, e.kind, e.timed, e.at, e.detail, e.operator, e.host "
                f"FROM timed_events AS e{where} ORDER BY e.id"
            ).fetchall()
        return [timed_event(origin, row) for row in rows]

    def claims(self) -> list[TimedClaim]:
        """Every claim, with its result when it has one."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT c.timed, c.at, c.executor, r.state, r.at, r.detail "
                "FROM timed_claims AS c LEFT JOIN timed_results AS r ON r.timed = c.timed"
            ).fetchall()
        return [
            TimedClaim(
                str(row[0]),
                _int(row[1]),
                str(row[2]),
                None if row[3] is None else str(row[3]),
                None if row[4] is None else _int(row[4]),
                _object(row[5] or "{}"),
            )
            for row in rows
        ]

    def seen(self, kind: str, executor: str, *, at: int) -> None:
        """Record that an executor of ``kind`` ran at ``at`` (replaces its last)."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO timed_seen (kind, executor, at) VALUES (?, ?, ?) "
                "ON CONFLICT (kind, executor) DO UPDATE SET at = max(at, excluded.at)",
                (kind, executor, at),
            )

    def last_seen(self) -> list[tuple[str, str, int]]:
        """(kind, executor, when) of every executor seen."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT kind, executor, at FROM timed_seen").fetchall()
        return [(str(k), str(e), int(a)) for k, e, a in rows]

    def close(self) -> None:
        """Close the connection."""
        self._db.close()


class TimedStore(OffLoop[TimedJournal]):
    """:class:`TimedJournal` off the event loop, on the journal file's lanes (its
    writes queue behind this process's journal writes; reads have a connection
    of their own)."""

    def __init__(self, path: Path, *, executor: StoreExecutor | None = None) -> None:
        journals = TimedJournal(path), TimedJournal(path)
        super().__init__(*journals, kind="journal", path=path, executor=executor)

    async def write(self, fn: Callable[[TimedJournal], R]) -> R:
        """Run ``fn`` in the journal's write lane."""
        return await self._write(lambda: fn(self._writer))

    async def read(self, fn: Callable[[TimedJournal], R]) -> R:
        """Run ``fn`` in the journal's read lane."""
        return await self._read(lambda: fn(self._reader))
