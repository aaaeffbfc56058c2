"""What a bulk run reports: the status of each id, progress snapshots, the summary, in words.

The words of :class:`ItemStatus` are those of ``--output`` and the TUI;
:class:`BulkSummary` carries the ``--json`` document and the exit code of a
run (CONVENTIONS.md).

The counters of a bulk run and what they say: progress snapshots and the summary.

Every reading of the monotonic clock for progress (start, rate, elapsed)
is here, so a test can move time for snapshots by replacing this module's
``time``.

Words for a bulk run: the progress line and the summary, as plain text.

Shared by the CLI (stderr progress line, stdout summary) and available to
the TUI. Every piece of untrusted text (invalid-line reasons, error titles)
has already been through :func:`bottui.plaintext.clean`.
"""

from __future__ import annotations

import enum
import math
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from typing import Any, Final

import msgspec

from bottui.api.errors import (
    EXIT_API,
    EXIT_INTERRUPTED,
    EXIT_NETWORK,
    EXIT_OK,
    EXIT_REFUSED,
    ValidationError,
)
from bottui.ops.bulk.input import InvalidLine, Subject
from bottui.plaintext import clean

# -- statuses and documents -----------------------------------------------------------------------


DEFAULT_CONCURRENCY: Final = 32


#: Requests in flight at most: a run's pool holds as many connections as its
#: concurrency (BotProtectionClient.with_pool), and past a few hundred the service's rate
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


class ItemResult(msgspec.Struct, frozen=True):
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


class BulkProgress(msgspec.Struct, frozen=True):
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


class BulkSummary(msgspec.Struct, frozen=True):
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


# -- counters, progress and the summary -----------------------------------------------------------


class Tally(msgspec.Struct):
    """The mutable counters of a run."""

    counts: Counter[ItemStatus] = msgspec.field(default_factory=Counter)
    taken: int = 0
    done: int = 0
    sent: int = 0
    in_flight: int = 0
    invalid: list[InvalidLine] = msgspec.field(default_factory=list)
    invalid_count: int = 0
    duplicates: int = 0
    network_failures: int = 0
    api_failures: int = 0
    network_streak: int = 0
    errors: Counter[str] = msgspec.field(default_factory=Counter)


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


# -- in words -------------------------------------------------------------------------------------


#: Invalid lines listed in the text summary (``--json`` has up to 1000).
SHOWN_INVALID = 20


def summary_counts(summary: BulkSummary) -> list[tuple[str, int]]:
    """The counted lines of a summary, ``(what, how many)``, the same in the CLI and the TUI."""
    rows = [
        ("withdrawn", summary.withdrawn),
        ("nothing was standing", summary.nothing_standing),
        ("unknown", summary.unknown),
        ("failed", summary.failed),
    ]
    if summary.skipped or summary.resumed:
        rows.append(("skipped (settled by an earlier run)", summary.skipped))
    if summary.not_sent:
        rows.append(("not sent", summary.not_sent))
    if summary.duplicates:
        rows.append(("repeated lines (sent once)", summary.duplicates))
    rows.append(("invalid lines (not sent)", summary.invalid_count))
    return rows


def unknown_note(summary: BulkSummary) -> str | None:
    """What "unknown" means, when the run has some (CLI and TUI say it alike)."""
    if not summary.unknown:
        return None
    unanswered = summary.unknown - summary.unknown_retried
    if not unanswered:
        return None
    return (
        f"unknown: {unanswered:,} request(s) may have reached the service without an "
        "answer: those grants may have been withdrawn; --resume sends them again"
    )


def retried_note(summary: BulkSummary) -> str | None:
    """What "unknown (retried)" means, when the run has some (CLI and TUI alike)."""
    if not summary.unknown_retried:
        return None
    return (
        f"unknown (retried): {summary.unknown_retried:,} id(s) sent again after an earlier "
        "attempt's answer was lost: no grant stands now, but whether that attempt withdrew "
        "it is not known"
    )


def duration(seconds: float | None) -> str:
    """``42s``, ``3m05s``, ``1h02m``; ``?`` when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "?"
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def progress_line(progress: BulkProgress) -> str:
    """One line: ``revoking 1,234/10,000 · 1,150/s · ETA 8s · 2 failed``."""
    total = "?" if progress.total is None else f"{progress.total:,}"
    if progress.total is not None and not progress.total_exact:
        total = f"~{total}"
    parts = [f"revoking {progress.done:,}/{total}"]
    parts.append(f"{progress.rate:,.0f}/s" if progress.rate is not None else "-/s")
    if progress.stopping:
        parts.append(f"stopping, {progress.in_flight} in flight")
    elif progress.paused_for > 0:
        parts.append(f"paused {progress.paused_for:.0f}s (429)")
    else:
        parts.append(f"ETA {duration(progress.eta)}")
    unknown = sum(progress.counts.get(s, 0) for s in UNKNOWN_LIKE)
    if unknown:
        parts.append(f"{unknown:,} unknown")
    failed = progress.counts.get(ItemStatus.FAILED, 0)
    if failed:
        parts.append(f"{failed:,} failed")
    if progress.invalid:
        parts.append(f"{progress.invalid:,} invalid")
    return " · ".join(parts)


def summary_lines(summary: BulkSummary, label: str) -> list[str]:
    """The text summary of a run, line by line."""
    sent = summary.total - summary.skipped - summary.not_sent
    read = " read before the stop" if summary.interrupted or summary.stopped_by else ""
    head = (
        f"bulk revocation from {clean(label)}: {summary.total:,} ids{read} "
        f"in {duration(summary.elapsed)}"
    )
    if summary.elapsed > 0 and sent > 0:
        head += f" ({sent / summary.elapsed:,.0f}/s)"
    lines = [head]
    rows = summary_counts(summary)
    width = max(len(name) for name, _ in rows)
    lines += [f"  {name + ':':<{width + 1}} {count:,}" for name, count in rows]
    # Error titles, invalid-line reasons and stopped_by were cleaned by the
    # engine (bottui.ops.bulk); only the label is cleaned here.
    for title, count in summary.errors:
        lines.append(f"  error: {title} ({count:,})")
    for invalid in summary.invalid[:SHOWN_INVALID]:
        lines.append(f"  line {invalid.line}: {invalid.reason}")
    if summary.invalid_count > SHOWN_INVALID:
        lines.append(f"  … and {summary.invalid_count - SHOWN_INVALID:,} more invalid lines")
    if summary.pauses:
        lines.append(f"  the service asked to slow down {summary.pauses:,} time(s) (429)")
    if summary.stopped_by:
        lines.append(f"stopped early: {summary.stopped_by}")
    for note in (unknown_note(summary), retried_note(summary)):
        if note is not None:
            lines.append(note)
    if summary.interrupted:
        lines.append(
            "interrupted: the requests in flight were recorded; "
            "run the same command with --resume to send the rest"
        )
    elif summary.not_sent and summary.journaled:
        lines.append("run the same command with --resume to send the rest")
    return lines
