"""Injectable clocks for the sandbox: the real one and a manual one for tests.

Every time the sandbox reads (grant expiry, ``updatedAt``) comes from a
:class:`Clock`, so a test can move time forward without sleeping.
"""

from __future__ import annotations

import math
import threading
import time
from datetime import UTC, datetime
from typing import Final, Protocol, runtime_checkable

#: Start of a :class:`ManualClock` unless told otherwise: 2026-01-01T00:00:00Z.
MANUAL_EPOCH: Final = 1_767_225_600.0


@runtime_checkable
class Clock(Protocol):
    """Anything that tells the time in epoch seconds."""

    def now(self) -> float:
        """Seconds since the Unix epoch."""
        ...


class SystemClock:
    """The wall clock (:func:`time.time`)."""

    def now(self) -> float:
        """Seconds since the Unix epoch, from the system."""
        return time.time()


class ManualClock:
    """A clock that only moves when told to; safe to move from any thread."""

    def __init__(self, start: float = MANUAL_EPOCH) -> None:
        self._lock = threading.Lock()
        self._now = float(start)

    def now(self) -> float:
        """The current manual time."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (finite, not negative) and return the new time."""
        seconds = float(seconds)
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError("a clock only moves forward by a finite number of seconds")
        with self._lock:
            self._now += seconds
            return self._now

    def set(self, when: float) -> None:
        """Jump to ``when`` (epoch seconds); may move backwards, for tests."""
        with self._lock:
            self._now = float(when)


def iso_utc(when: float) -> str:
    """``when`` (epoch seconds) as ISO 8601 UTC ending in ``Z``.

    Whole seconds are written without a fraction (``2026-01-01T00:00:00Z``),
    anything else with milliseconds (``2026-01-01T00:00:00.250Z``).
    """
    moment = datetime.fromtimestamp(when, UTC)
    spec = "seconds" if moment.microsecond == 0 else "milliseconds"
    return moment.isoformat(timespec=spec).replace("+00:00", "Z")
