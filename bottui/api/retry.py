"""When to try an operation again, and how long to wait before it.

Exponential backoff with jitter for 429, 502, 503, 504 and connection
failures; ``Retry-After`` (seconds or an HTTP date) is honoured up to a cap;
and nothing waits past the operation's total deadline. Time comes in through
injectable callables so tests never wait.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final

RETRY_STATUSES: Final = frozenset({429, 502, 503, 504})
# A 502 or 504 came from a gateway that may already have forwarded the
# request: the service may have acted on it.
AMBIGUOUS_STATUSES: Final = frozenset({502, 504})

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]
WallClock = Callable[[], datetime]


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class RetryPolicy:
    """How many attempts, how far apart, and the total deadline.

    Attributes:
        max_attempts: Attempts in all, the first included.
        base_delay: Delay before the second attempt, doubled each time.
        max_delay: Cap of one backoff delay.
        retry_after_cap: Cap of a server's ``Retry-After``.
        deadline: Seconds for the whole operation, retries and waits included.
        connect_timeout: Per-attempt connect timeout.
        read_timeout: Per-attempt timeout for each read and write.
    """

    max_attempts: int = 4
    base_delay: float = 0.25
    max_delay: float = 4.0
    retry_after_cap: float = 30.0
    deadline: float = 30.0
    connect_timeout: float = 5.0
    read_timeout: float = 10.0

    def backoff(self, retry_number: int, rng: random.Random) -> float:
        """Delay before retry ``retry_number`` (1-based): equal jitter.

        Half the exponential delay is fixed and half random, so retries of
        many clients spread out but never collapse to zero wait.
        """
        ceiling: float = min(self.max_delay, self.base_delay * 2.0 ** (retry_number - 1))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` header; None if absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.isdigit():
        return float(text)
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


@dataclass
class Timing:
    """The injectable sources of time and chance a client uses."""

    sleep: Sleep = asyncio.sleep
    clock: Clock = time.monotonic
    wall: WallClock = _utcnow
    rng: random.Random = field(default_factory=random.Random)
