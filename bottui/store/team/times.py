"""Times read from the team store: every one loads, and a time outside a sane range is data.

PostgreSQL's ``timestamptz`` holds ``infinity``, ``-infinity``, years past
9999 and dates BC; Python's ``datetime`` holds none of them, so psycopg's
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

from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.abc import AdaptContext, Buffer

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


__all__ = ["SANE_YEARS", "OddTime", "lenient", "sane"]
