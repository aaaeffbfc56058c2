"""A pause shared by every request of a run: one 429 slows the whole run down.

When the service answers 429 (or 503 with ``Retry-After``), the request that
got it waits before its retry, as always. With a :class:`SharedPause` passed
to :meth:`~bottui.api.client.BotProtectionClient.send`, every other request
of the run waits until the same moment before its next attempt, so a bulk
run stops hammering a service that asked it to slow down.

Time comes from the client's :class:`~bottui.api.retry.Timing`, so tests that
inject a fake clock and sleep see the pause as injected sleeps.
"""

from __future__ import annotations

import math

from bottui.api.retry import Timing


class SharedPause:
    """The moment (on the client's clock) before which no request may go out.

    Attributes:
        until: Clock reading when the pause ends (``-inf``: never paused).
        count: How many answers asked for a pause so far.
    """

    def __init__(self) -> None:
        self.until: float = -math.inf
        self.count = 0

    def __repr__(self) -> str:
        return f"SharedPause(until={self.until!r}, count={self.count})"

    def hold(self, now: float, seconds: float) -> None:
        """Pause every request until ``now + seconds`` (never shortens a pause)."""
        if seconds <= 0:
            return
        self.count += 1
        end = now + seconds
        if end > self.until:
            self.until = end

    def remaining(self, now: float) -> float:
        """Seconds left before requests may go out again (0 when not paused)."""
        return max(0.0, self.until - now)

    async def wait(self, timing: Timing, *, limit: float = math.inf) -> None:
        """Sleep until the pause is over (re-checked: it may be extended meanwhile).

        ``limit`` is a clock reading not to sleep past (a request's deadline).
        """
        while True:
            now = timing.clock()
            end = min(self.until, limit)
            if end <= now:
                return
            await timing.sleep(end - now)


__all__ = ["SharedPause"]
