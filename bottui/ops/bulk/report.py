"""Words for a bulk run: the progress line and the summary, as plain text.

Shared by the CLI (stderr progress line, stdout summary) and available to
the TUI. Every piece of untrusted text (invalid-line reasons, error titles)
has already been through :func:`bottui.plaintext.clean`.
"""

from __future__ import annotations

import math

from bottui.ops.bulk.status import UNKNOWN_LIKE, BulkProgress, BulkSummary, ItemStatus
from bottui.plaintext import clean

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


__all__ = [
    "duration",
    "progress_line",
    "retried_note",
    "summary_counts",
    "summary_lines",
    "unknown_note",
]
