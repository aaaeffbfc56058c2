"""What the team store hands back, read without trusting it (any role with INSERT wrote it).

The records: :class:`TeamEntry` (a shared entry with its outcome),
:class:`TeamPage`, :class:`Pushed` (what one push did), :class:`StoreStatus`
and :class:`Change` (a notification).

A stored row is untrusted: :func:`read_entry` checks what the readers rely on
(the JSON columns are JSON objects, the times load and are :func:`sane`) and
gives an :class:`Unreadable` instead of raising. An entry whose *outcome* is
unreadable is kept without it (the outcome is an event of its own, maybe
another writer's): a bad outcome never hides a good entry. A reader skips
such a row and goes on; :class:`Skips` (one per
:class:`~bottui.store.team.pg_store.TeamStore`) hands each skipped row, once,
to whoever listens (the session's warnings, ``--follow``'s stderr, the TUI's
toasts), or keeps them until :meth:`Skips.take`.

Times: PostgreSQL's ``timestamptz`` holds ``infinity``, ``-infinity``, years
past 9999 and dates BC; Python's ``datetime`` holds none of them, so psycopg's
loader raises for such a value and the whole page with it: one row written
with ``started_at = 'infinity'`` hid the shared journal from everyone.
:func:`lenient` registers, on a connection, a loader that gives such a value
back as an :class:`OddTime` (its text: a bound parameter PostgreSQL reads
back exactly, so a page's cursor can stand on it). A reader then treats any
time that is not :func:`sane` (an :class:`OddTime`, or a year outside
:data:`SANE_YEARS`) as data it cannot use: never as an order of rows, never
a crash.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final
from uuid import UUID

import msgspec

from bottui.plaintext import clean
from bottui.store.paging import Cursor

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.abc import AdaptContext, Buffer


class TeamEntry(msgspec.Struct, frozen=True):
    """One shared journal entry with its outcome (``None`` fields: none yet).

    ``operator`` is who the writer claimed to be; ``db_role`` the database role
    that wrote it (recorded by the server); ``received_at`` the server's clock.
    """

    id: int
    origin: UUID
    local_id: int
    db_role: str
    received_at: datetime
    started_at: datetime
    operator: str
    host: str
    profile: str
    reason: str | None
    base_url: str
    account: str
    project: str
    operation: str
    target: dict[str, Any]
    request_body: dict[str, Any] | None
    previous: dict[str, Any] | None
    undo_of: int | None
    run_id: int | None
    item_key: str | None
    finished_at: datetime | None = None
    outcome: str | None = None
    status: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    duration_ms: float | None = None
    outcome_db_role: str | None = None
    outcome_received_at: datetime | None = None


class TeamPage(msgspec.Struct, frozen=True):
    """One page of shared entries, newest first, and the next page's cursor (``None``: end)."""

    entries: tuple[TeamEntry, ...]
    next: Cursor | None


class Pushed(msgspec.Struct, frozen=True):
    """What one push did.

    ``entries``/``outcomes``: events stored now; ``duplicates``: events the
    store held already (an earlier push whose answer was lost);
    ``orphans``: outcomes whose entry the store does not hold yet (not
    stored: push them again after their entry); ``timed``: timed events stored
    now; ``facts``: inventory facts written.
    """

    entries: int = 0
    outcomes: int = 0
    duplicates: int = 0
    orphans: int = 0
    timed: int = 0
    facts: int = 0


class StoreStatus(msgspec.Struct, frozen=True):
    """``bottui store status``: where, which schema, and the outbox's state.

    ``waiting`` and ``last_sync`` describe this machine's outbox (entries not
    yet shared, the last successful push); until the outbox exists they
    read 0 and never.
    """

    where: str
    schema_version: int
    app_schema_version: int
    server_version: str
    role: str
    waiting: int = 0
    last_sync: datetime | None = None


class Change(msgspec.Struct, frozen=True):
    """A notification from the store: rows were added to ``table``.

    ``last`` is the newest server id among them (journal tables), ``count``
    how many (one COPY of many rows is one notification).
    """

    channel: str
    table: str
    count: int = 0
    last: int | None = None


#: The years a stored time may fall in: from the Unix epoch to the end of this century.
SANE_YEARS: Final = range(1970, 2100)


class OddTime(str):
    """A ``timestamptz`` Python cannot hold (``infinity``, year 10000, BC), as text."""

    __slots__ = ()


def sane(moment: object) -> bool:
    """True for a timezone-aware ``datetime`` whose year is in :data:`SANE_YEARS`."""
    return isinstance(moment, datetime) and moment.tzinfo is not None and moment.year in SANE_YEARS


def lenient(conn: AsyncConnection[Any]) -> None:
    """Make ``conn`` load every ``timestamptz`` (:class:`OddTime` for what Python cannot hold)."""
    from psycopg import DataError
    from psycopg.abc import Loader as LoaderProtocol
    from psycopg.adapt import Loader
    from psycopg.pq import Format

    oid = conn.adapters.types["timestamptz"].oid
    found = conn.adapters.get_loader(oid, Format.TEXT)
    if found is None:  # pragma: no cover - psycopg always has one
        return
    inner_cls: type[LoaderProtocol] = found

    class LenientTimestamptz(Loader):
        def __init__(self, oid: int, context: AdaptContext | None = None) -> None:
            super().__init__(oid, context)
            self._inner = inner_cls(oid, context)

        def load(self, data: Buffer) -> Any:
            try:
                return self._inner.load(data)
            except DataError:
                return OddTime(bytes(data).decode("utf-8", "replace"))

    conn.adapters.register_loader(oid, LenientTimestamptz)


#: At most this many skipped rows are remembered (said once each); beyond, they are said again.
_REMEMBER: Final = 10_000


class Unreadable(msgspec.Struct, frozen=True):
    """One row skipped: which table, its event id (or key), who claimed to write it, why."""

    table: str
    event: str
    operator: str
    why: str

    @property
    def line(self) -> str:
        """``skipped an unreadable row of the team store: journal_entries event X by bob: ...``."""
        return (
            f"skipped a team store row bottui cannot read: {clean(self.table)} event"
            f" {clean(self.event)} by {clean(self.operator)} ({clean(self.why)})"
        )


class Skips:
    """The rows a store's readers skipped: each handed over once."""

    def __init__(self) -> None:
        self._said: set[tuple[str, str]] = set()
        self._kept: list[Unreadable] = []
        #: Told each newly skipped row (None: they are kept for :meth:`take`).
        self.on_skip: Callable[[Unreadable], None] | None = None

    def add(self, row: Unreadable) -> None:
        """Record a skipped row (said once)."""
        key = (row.table, row.event)
        if key in self._said:
            return
        if len(self._said) >= _REMEMBER:
            self._said.clear()
        self._said.add(key)
        if self.on_skip is not None:
            self.on_skip(row)
        else:
            self._kept.append(row)

    def take(self) -> list[Unreadable]:
        """The rows skipped and not yet handed over, emptied."""
        out, self._kept = self._kept, []
        return out


#: The columns of :data:`~bottui.store.team.page_query.SELECT`, in order: the entry's fields.
NAMES: Final = TeamEntry.__struct_fields__
_OUTCOME: Final = NAMES[NAMES.index("finished_at") :]


class NotJson(ValueError):
    """A stored JSON text that does not parse (or nests too deep to)."""


def load_json(value: str | None) -> Any:
    """A stored JSON text back as a value (``None`` stays ``None``); :class:`NotJson` if not one."""
    if value is None:
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        raise NotJson("not JSON") from None


def json_object(value: str | None, *, optional: bool = True) -> dict[str, Any] | None:
    """A stored JSON object (``None`` when ``optional``); :class:`NotJson` for anything else."""
    found = load_json(value)
    if found is None and optional:
        return None
    if not isinstance(found, dict):
        raise NotJson("not a JSON object")
    return found


def _outcome(values: dict[str, Any]) -> str | None:
    """Why the outcome half cannot be read (None: it can, or there is none)."""
    if values["outcome"] is None:
        return None
    try:
        for name in ("result", "error"):
            values[name] = json_object(values[name])
    except NotJson as exc:
        return f"its {name} is {exc}"
    if not sane(values["finished_at"]):
        return "its finish time is outside any sane range"
    duration = values["duration_ms"]
    if duration is not None and not math.isfinite(duration):
        return "its duration is not a number"
    return None


def read_entry(row: Sequence[Any]) -> tuple[TeamEntry | None, Unreadable | None]:
    """The entry of a :data:`~bottui.store.team.page_query.SELECT` row (None: unreadable),
    and what of it is skipped: the whole row, or its unreadable outcome alone (the
    entry is then kept without it)."""
    values = dict(zip(NAMES, row, strict=True))
    event = f"{values['origin']}:{values['local_id']}"
    operator = str(values["operator"])
    try:
        values["target"] = json_object(values["target"], optional=False)
        values["request_body"] = json_object(values["request_body"])
        values["previous"] = json_object(values["previous"])
    except NotJson as exc:
        return None, Unreadable("journal_entries", event, operator, f"a JSON column is {exc}")
    if not sane(values["started_at"]) or not sane(values["received_at"]):
        why = "its start time is outside any sane range"
        return None, Unreadable("journal_entries", event, operator, why)
    bad_outcome = _outcome(values)
    if bad_outcome is None:
        return TeamEntry(**values), None
    for name in _OUTCOME:
        values[name] = None
    return TeamEntry(**values), Unreadable("journal_outcomes", event, operator, bad_outcome)
