"""Words for a bulk revocation in the TUI: preview, progress and summary, as safe Content.

Pure functions, so they are tested without an app. Numbers and our own
words are trusted; invalid-line reasons (they may echo the input), error
titles and the input's label (a file path) go through ``safe()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from textual.content import Content

from bottui.ops.bulk.engine import BulkPlan
from bottui.ops.bulk.input import InvalidLine
from bottui.ops.bulk.report import (
    UNKNOWN_LIKE,
    BulkProgress,
    BulkSummary,
    ItemResult,
    ItemStatus,
    duration,
    retried_note,
    summary_counts,
    unknown_note,
)
from bottui.plaintext import show_id
from bottui.tui.widgets.untrusted_text import join, safe

#: Invalid lines listed in the preview and in the summary (the count goes on).
SHOWN_INVALID: Final = 5
#: Failed and unknown ids listed in the summary (the export has every one).
SHOWN_PROBLEMS: Final = 20
UNSETTLED_HINT: Final = (
    "Resume sends only the ids not yet settled: "
    "withdrawn and nothing-standing ids of this run are skipped."
)


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1 id``, ``2 ids``, ``1,000 ids``."""
    word = one if count == 1 else (many or one + "s")
    return f"{count:,} {word}"


def invalid_lines(
    invalid: tuple[InvalidLine, ...], count: int, *, indent: str = "  "
) -> list[Content]:
    """``line 3: visitor id: contains a control character (U+001B)``, the first few."""
    out = [
        join(f"{indent}line {line.line}: ", safe(line.reason)) for line in invalid[:SHOWN_INVALID]
    ]
    if count > len(out):
        out.append(Content(f"{indent}… and {plural(count - len(out), 'more invalid line')}"))
    return out


def preview_lines(candidate_lines: int, plan: BulkPlan) -> list[Content]:
    """What an input holds: lines, ids to send, repeats, and the invalid lines."""
    head = f"{plural(candidate_lines, 'line')}: {plural(plan.count, 'id')} to revoke"
    if plan.duplicates:
        head += f" · {plural(plan.duplicates, 'repeated line')} (sent once)"
    if plan.invalid_count:
        head += f" · {plural(plan.invalid_count, 'invalid line')} (not sent)"
    return [Content(head), *invalid_lines(plan.invalid, plan.invalid_count)]


def _rate(rate: float | None) -> str:
    if rate is None:
        return "– ids/s"
    return f"{rate:,.1f} ids/s" if rate < 10 else f"{rate:,.0f} ids/s"


def total_words(progress: BulkProgress) -> str:
    """The run's id count: ``6``, ``~6`` while estimated, ``?`` while unknown."""
    if progress.total is None:
        return "?"
    return f"{progress.total:,}" if progress.total_exact else f"~{progress.total:,}"


def unknown_count(progress: BulkProgress) -> int:
    """Ids whose outcome is unknown so far (every unknown-like status)."""
    return sum(progress.counts.get(s, 0) for s in UNKNOWN_LIKE)


def stopped(summary: BulkSummary) -> bool:
    """Whether the run was stopped (interrupted, or by a reason) rather than done."""
    return summary.interrupted or summary.stopped_by is not None


def progress_line(progress: BulkProgress) -> Content:
    """``3 / 6 ids · 1.5 ids/s · ETA 2s``."""
    parts = [f"{progress.done:,} / {total_words(progress)} ids", _rate(progress.rate)]
    if not progress.stopping:
        parts.append(f"ETA {duration(progress.eta)}")
    parts.append(f"{progress.in_flight:,} in flight")
    return Content(" · ".join(parts))


def counts_line(progress: BulkProgress) -> Content:
    """``withdrawn 2 · nothing standing 1 · unknown 0 · failed 0`` (+ not sent, skipped)."""
    counts = progress.counts
    parts = [
        f"withdrawn {counts.get(ItemStatus.WITHDRAWN, 0):,}",
        f"nothing standing {counts.get(ItemStatus.NOTHING_STANDING, 0):,}",
        f"unknown {unknown_count(progress):,}",
        f"failed {counts.get(ItemStatus.FAILED, 0):,}",
    ]
    for status, words in ((ItemStatus.SKIPPED, "skipped"), (ItemStatus.NOT_SENT, "not sent")):
        if counts.get(status, 0):
            parts.append(f"{words} {counts[status]:,}")
    if progress.invalid:
        parts.append(f"invalid lines {progress.invalid:,}")
    return Content(" · ".join(parts))


def state_line(progress: BulkProgress, *, abandoning: bool = False) -> Content:
    """The run's state when it is not simply sending: stopping, or paused by a 429."""
    if abandoning:
        return Content(
            f"Abandoning the {plural(progress.in_flight, 'request')} in flight "
            "(recorded as unknown: they may or may not have been applied)"
        )
    if progress.stopping:
        return Content(
            f"Stopping: no new ids are taken; the {plural(progress.in_flight, 'request')} "
            "in flight finish and are recorded"
        )
    if progress.paused_for > 0:
        return Content(f"Paused by the service (429) for {progress.paused_for:.0f}s")
    return Content("")


def summary_lines(summary: BulkSummary, *, abandoned: bool = False) -> list[Content]:
    """The summary of a finished (or stopped) run, line by line."""
    if stopped(summary):
        head = (
            f"Stopped after {duration(summary.elapsed)}: "
            f"{plural(summary.total, 'id')} read before the stop."
        )
    else:
        head = f"Done in {duration(summary.elapsed)}: {plural(summary.total, 'id')}."
    rows = summary_counts(summary)
    width = max(len(name) for name, _ in rows) + 1
    lines = [Content(head)]
    lines += [Content(f"  {name + ':':<{width}} {count:>7,}") for name, count in rows]
    lines += invalid_lines(summary.invalid, summary.invalid_count, indent="    ")
    for title, count in summary.errors:
        lines.append(join("  error: ", safe(title), f" ({count:,})"))
    if summary.pauses:
        lines.append(Content(f"  the service asked to slow down {plural(summary.pauses, 'time')}"))
    if summary.stopped_by:
        lines.append(join("Stopped early: ", safe(summary.stopped_by)))
    if abandoned:
        lines.append(
            Content(
                "Interrupted: the requests in flight were abandoned "
                "(counted as unknown: they may or may not have been applied)."
            )
        )
    elif summary.interrupted:
        lines.append(Content("Interrupted: the requests in flight finished and were recorded."))
    for note in (unknown_note(summary), retried_note(summary)):
        if note is not None and not abandoned:
            lines.append(Content(note[0].upper() + note[1:].replace("--resume", "a resume")))
    if summary.run_id is not None:
        lines.append(Content(f"Journal: run #{summary.run_id} (5 shows the journal)."))
    elif not summary.journaled:
        lines.append(Content("The journal could not be written: this run cannot be resumed."))
    if unsettled(summary) and summary.journaled:
        lines.append(Content(UNSETTLED_HINT))
    return lines


def problem_lines(problems: Sequence[ItemResult], count: int) -> list[Content]:
    """The failed and unknown ids, the first few: ``line 12 · vis_x · failed · HTTP 500 …``."""
    if not count:
        return []
    lines = [Content(f"Failed and unknown ids ({count:,}; Export… writes every id's result):")]
    for result in problems[:SHOWN_PROBLEMS]:
        subject = result.subject
        # Invisible characters shown as \\uXXXX (an id is data, exactly as sent).
        ids = " / ".join(show_id(i) for i in (subject.visitor_id, subject.user_account_id) if i)
        status = f" · HTTP {result.http_status}" if result.http_status else ""
        lines.append(
            join(
                f"  line {subject.line} · ",
                Content(ids),
                f" · {result.status.value}{status}",
                join(" · ", safe(result.error)) if result.error else "",
            )
        )
    if count > len(lines) - 1:
        lines.append(Content(f"  … and {plural(count - len(lines) + 1, 'more id')}"))
    return lines


def unsettled(summary: BulkSummary) -> int:
    """Ids of the run that a resume would send again: unknown (not retried), failed, not sent."""
    return summary.unknown - summary.unknown_retried + summary.failed + summary.not_sent
