"""The counters of a bulk run and what they say: progress snapshots and the summary.

Every reading of the monotonic clock for progress (start, rate, elapsed)
is here, so a test can move time for snapshots by replacing this module's
``time``.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from dataclasses import dataclass, field

from bottui.ops.bulk.input import InvalidLine
from bottui.ops.bulk.status import (
    RATE_WINDOW,
    UNKNOWN_LIKE,
    BulkProgress,
    BulkSummary,
    ItemStatus,
)


@dataclass
class Tally:
    """The mutable counters of a run."""

    counts: Counter[ItemStatus] = field(default_factory=Counter)
    taken: int = 0
    done: int = 0
    sent: int = 0
    in_flight: int = 0
    invalid: list[InvalidLine] = field(default_factory=list)
    invalid_count: int = 0
    duplicates: int = 0
    network_failures: int = 0
    api_failures: int = 0
    network_streak: int = 0
    errors: Counter[str] = field(default_factory=Counter)


class Meter:
    """A run's :class:`Tally`, its start time and the samples its rate is measured on."""

    def __init__(self) -> None:
        self.tally = Tally()
        self.t0 = time.monotonic()
        self._samples: deque[tuple[float, int]] = deque()

    def start(self) -> None:
        """The run starts now (elapsed time counts from here)."""
        self.t0 = time.monotonic()

    def progress(
        self, *, candidate_lines: int, exact: bool, stopping: bool, paused_for: float
    ) -> BulkProgress:
        """Where the run stands now.

        ``candidate_lines`` are the input's non-blank lines read so far (the
        estimate of the total until ``exact``: the whole input was read, or
        the run stopped).
        """
        tally = self.tally
        now = time.monotonic()
        self._samples.append((now, tally.sent))
        while len(self._samples) > 2 and now - self._samples[1][0] >= RATE_WINDOW:
            self._samples.popleft()
        first_t, first_sent = self._samples[0]
        rate = (tally.sent - first_sent) / (now - first_t) if now - first_t >= 0.5 else None
        if exact:
            total: int | None = tally.taken
        else:
            estimate = candidate_lines - tally.invalid_count - tally.duplicates
            total = max(estimate, tally.taken)
        eta = None
        if rate and total is not None and not stopping:
            eta = max(0, total - tally.done) / rate
        return BulkProgress(
            done=tally.done,
            total=total,
            total_exact=exact,
            sent=tally.sent,
            in_flight=tally.in_flight,
            counts=dict(tally.counts),
            invalid=tally.invalid_count,
            duplicates=tally.duplicates,
            elapsed=now - self.t0,
            rate=rate,
            eta=eta,
            paused_for=paused_for,
            stopping=stopping,
        )

    def summary(
        self,
        *,
        interrupted: bool,
        stopped_by: str | None,
        pauses: int,
        run_id: int | None,
        resumed: bool,
    ) -> BulkSummary:
        """The outcome of the whole run."""
        tally = self.tally
        counts = tally.counts
        return BulkSummary(
            total=tally.taken,
            withdrawn=counts[ItemStatus.WITHDRAWN],
            nothing_standing=counts[ItemStatus.NOTHING_STANDING],
            unknown=sum(counts[s] for s in UNKNOWN_LIKE),
            unknown_retried=counts[ItemStatus.UNKNOWN_RETRIED],
            failed=counts[ItemStatus.FAILED],
            skipped=counts[ItemStatus.SKIPPED],
            not_sent=counts[ItemStatus.NOT_SENT],
            duplicates=tally.duplicates,
            invalid=tuple(tally.invalid),
            invalid_count=tally.invalid_count,
            elapsed=time.monotonic() - self.t0,
            interrupted=interrupted,
            network_failures=tally.network_failures,
            api_failures=tally.api_failures,
            stopped_by=stopped_by,
            errors=tuple(tally.errors.most_common(10)),
            pauses=pauses,
            run_id=run_id,
            resumed=resumed,
            journaled=run_id is not None,
        )
