"""What a bulk run reports: the status of each id, progress snapshots, the summary.

The words of :class:`ItemStatus` are those of ``--output`` and the TUI;
:class:`BulkSummary` carries the ``--json`` document and the exit code of a
run (CONVENTIONS.md).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from bottui.api.errors import (
    EXIT_API,
    EXIT_INTERRUPTED,
    EXIT_NETWORK,
    EXIT_OK,
    EXIT_REFUSED,
    ValidationError,
)
from bottui.ops.bulk.input import InvalidLine, Subject

DEFAULT_CONCURRENCY: Final = 32
#: Requests in flight at most: a run's pool holds as many connections as its
#: concurrency (bottui.api.lean), and past a few hundred the service's rate
#: limit, not the client, bounds the rate.
MAX_CONCURRENCY: Final = 512
#: Above this, the CLI notes that the service's rate limit is then the bound.
RATE_LIMIT_NOTE_ABOVE: Final = 64
#: Invalid lines kept for the summary (the count goes on).
MAX_INVALID_KEPT: Final = 1000
#: Statuses every other id of the run would get too: stop instead of hammering.
FATAL_STATUSES: Final = frozenset({401, 403, 404})
#: Seconds over which the rate is measured.
RATE_WINDOW: Final = 5.0


class ItemStatus(enum.StrEnum):
    """What became of one id in this run (the words of ``--output`` and the TUI)."""

    WITHDRAWN = "withdrawn"
    NOTHING_STANDING = "nothing was standing"
    UNKNOWN = "unknown"
    UNKNOWN_RETRIED = "unknown (retried)"
    FAILED = "failed"
    SKIPPED = "skipped"  # settled by an earlier run of the same input (--resume)
    NOT_SENT = "not sent"  # the run stopped before this id
    INTERRUPTED = "interrupted"  # abandoned in flight: it may or may not have been applied


#: Statuses counted as "unknown" in a summary: the grant may or may not stand.
UNKNOWN_LIKE: Final = frozenset(
    {ItemStatus.UNKNOWN, ItemStatus.UNKNOWN_RETRIED, ItemStatus.INTERRUPTED}
)


@dataclass(frozen=True, slots=True)
class ItemResult:
    """The result of one id: one row of ``--output``."""

    subject: Subject
    status: ItemStatus
    report_id: str | None = None
    http_status: int | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The row as JSON (``results.jsonl``)."""
        return {
            "line": self.subject.line,
            "visitorId": self.subject.visitor_id,
            "userAccountId": self.subject.user_account_id,
            "outcome": self.status.value,
            "reportId": self.report_id,
            "status": self.http_status,
            "error": self.error,
        }


@dataclass(frozen=True)
class BulkProgress:
    """Where a run stands (a snapshot).

    Attributes:
        done: Ids finished in this run: answered, failed, skipped or not sent.
        total: Ids in the input: an estimate (non-blank lines less the bad and
            repeated ones found so far) until ``total_exact``; None if unknown.
        total_exact: Whether the whole input has been read.
        sent: Ids whose request was answered or failed.
        in_flight: Requests under way.
        counts: Ids per :class:`ItemStatus`.
        invalid: Invalid lines so far.
        duplicates: Repeated lines so far.
        elapsed: Seconds since the run started.
        rate: Requests answered per second over the last few seconds.
        eta: Seconds left at that rate, when it can be told.
        paused_for: Seconds left of a pause the service asked for (429).
        stopping: The run takes no new ids (cancelled, or stopped early).
    """

    done: int
    total: int | None
    total_exact: bool
    sent: int
    in_flight: int
    counts: Mapping[ItemStatus, int]
    invalid: int
    duplicates: int
    elapsed: float
    rate: float | None
    eta: float | None
    paused_for: float
    stopping: bool


@dataclass(frozen=True)
class BulkSummary:
    """The outcome of a whole run: the ``--json`` document and the exit code.

    ``total`` counts the distinct valid ids taken from the input (in a
    stopped run, those read before the stop); it equals ``withdrawn +
    nothing_standing + unknown + failed + skipped + not_sent``.
    """

    total: int
    withdrawn: int
    nothing_standing: int
    unknown: int
    failed: int
    skipped: int
    not_sent: int
    duplicates: int
    invalid: tuple[InvalidLine, ...]
    invalid_count: int
    elapsed: float
    interrupted: bool
    network_failures: int
    api_failures: int
    stopped_by: str | None = None
    errors: tuple[tuple[str, int], ...] = ()
    pauses: int = 0
    run_id: int | None = None
    resumed: bool = False
    journaled: bool = True
    #: Of ``unknown``, the ids sent again after an earlier attempt's answer was
    #: lost or unknown ("unknown (retried)"): answered now, a resume skips them.
    unknown_retried: int = 0

    @property
    def exit_code(self) -> int:
        """The first that applies of 130, 4, 1, 2, 0 (CONVENTIONS.md)."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.network_failures:
            return EXIT_NETWORK
        if self.api_failures:
            return EXIT_API
        if self.invalid_count:
            return EXIT_REFUSED
        return EXIT_OK

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document."""
        return {
            "total": self.total,
            "withdrawn": self.withdrawn,
            "nothingStanding": self.nothing_standing,
            "unknown": self.unknown,
            "unknownRetried": self.unknown_retried,
            "failed": self.failed,
            "invalid": [line.to_json() for line in self.invalid],
            "elapsedSeconds": round(self.elapsed, 3),
            "skipped": self.skipped,
            "notSent": self.not_sent,
            "duplicates": self.duplicates,
            "invalidCount": self.invalid_count,
            "interrupted": self.interrupted,
            "stoppedBy": self.stopped_by,
            "errors": [{"error": title, "count": count} for title, count in self.errors],
            "rateLimitPauses": self.pauses,
            "runId": self.run_id,
        }


def concurrency_note(value: int) -> str | None:
    """What to tell an operator who asks for ``value`` requests in flight (None: nothing)."""
    if value <= RATE_LIMIT_NOTE_ABOVE:
        return None
    return (
        f"concurrency {value}: above {RATE_LIMIT_NOTE_ABOVE} the service's rate limit, "
        "not bottui, bounds the rate (a 429 pauses the whole run)"
    )


def check_concurrency(value: int) -> int:
    """``value`` if it is a usable concurrency (1 to :data:`MAX_CONCURRENCY`)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CONCURRENCY:
        raise ValidationError("concurrency", f"must be a whole number from 1 to {MAX_CONCURRENCY}")
    return value


ProgressCallback = Callable[[BulkProgress], None]
ResultCallback = Callable[[ItemResult], None]
