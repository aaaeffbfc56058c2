"""The CLI face of bulk revocation: ``bottui revoke --from-file F|- ...``.

The engine is :mod:`bottui.ops.bulk`; this module checks the options, opens
the input and the ``--output`` file, refuses a read-only or unconfirmed
protected profile before anything is sent, runs
:class:`~bottui.ops.bulk.engine.BulkRevocation` with a progress line on stderr when
stderr is a terminal, turns the first Ctrl-C into a graceful stop (the
requests in flight finish and are recorded; a second Ctrl-C abandons them)
and prints the summary. The exit code is the first of 130, 4, 1, 2, 0 that
applies (CONVENTIONS.md).

``--dry-run`` prints the first :data:`DRY_RUN_SHOWN` requests in full (method,
URL, headers, body and an equivalent ``curl`` with the token left as
``$BOTTUI_ACCESS_TOKEN``) and the count of the rest, sends nothing and exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import signal
import sys
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import BinaryIO, Final, TextIO

from bottui.api.errors import EXIT_OK, RefusedError
from bottui.api.requests import request_json, request_lines
from bottui.cli.output import Output
from bottui.ops import reasons
from bottui.ops.bulk.engine import BulkPlan, BulkRevocation, plan_bulk
from bottui.ops.bulk.input import BulkSource
from bottui.ops.bulk.report import (
    BulkProgress,
    check_concurrency,
    concurrency_note,
    progress_line,
    summary_lines,
)
from bottui.ops.bulk.results import ResultsFile
from bottui.ops.session import Session
from bottui.plaintext import clean

#: Requests a bulk ``--dry-run`` prints in full; the rest are counted.
DRY_RUN_SHOWN: Final = 20


class ProgressLine:
    """A progress line redrawn in place on a terminal (nothing when not a terminal)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = _isatty(stream)
        self._shown = False

    def update(self, progress: BulkProgress) -> None:
        """Redraw the line."""
        if self.enabled:
            self.stream.write("\r\x1b[K" + progress_line(progress))
            self.stream.flush()
            self._shown = True

    def clear(self) -> None:
        """Erase the line (before any other message)."""
        if self.enabled and self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _check_options(args: SimpleNamespace) -> None:
    if args.visitor_id is not None or args.user_account_id is not None:
        raise RefusedError(
            "Invalid command line",
            "--from-file and --visitor-id/--user-account-id exclude each other",
        )
    check_concurrency(args.concurrency)
    if args.force and args.resume:
        raise RefusedError(
            "Invalid command line", "--force starts a run of its own: it cannot --resume one"
        )


def _stdin_bytes() -> BinaryIO:
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        stream: BinaryIO = buffer
        return stream
    return io.BytesIO(sys.stdin.read().encode("utf-8", "surrogatepass"))


def open_source(name: str) -> BulkSource:
    """The input named by ``--from-file`` (``-``: stdin, spooled); Ctrl-C interrupts it."""
    with _ctrl_c_interrupts():
        if name == "-":
            return BulkSource.from_stream(_stdin_bytes())
        return BulkSource.from_path(name)


@contextlib.contextmanager
def _ctrl_c_interrupts() -> Iterator[None]:
    """While the input is read, Ctrl-C raises KeyboardInterrupt at once (exit 130).

    The first pass reads on the event loop's thread and may block (a pipe
    whose writer writes nothing, a terminal on stdin). asyncio's own handler
    only cancels the main task, which a blocked read never returns to see:
    Ctrl-C would do nothing. Python's default handler interrupts the read.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


async def run_bulk_revoke(args: SimpleNamespace, out: Output, session: Session) -> int:
    """``bottui revoke --from-file F|- [--concurrency N] [--resume] [--output F]``.

    ``session`` is the command's (:func:`bottui.cli.session.command_session`
    prints its warnings and closes it).
    """
    source: BulkSource | None = None
    results: ResultsFile | None = None
    try:
        _check_options(args)
        account, project = session.project_scope(args.account, args.project)
        reason = reasons.normalize(args.reason)
        if args.dry_run:
            source = open_source(args.from_file)
            plan = plan_bulk(session, account, project, source, keep=DRY_RUN_SHOWN)
            _print_plan(out, plan, reasons.refusal_text(session.settings, reason))
            return EXIT_OK
        session.check_may_change(confirmed=args.yes, reason=reason)
        note = concurrency_note(args.concurrency)
        if note is not None:
            out.message(note)
        source = open_source(args.from_file)
        if args.output:
            results = ResultsFile.open(args.output, overwrite=args.overwrite)
        progress = ProgressLine(out.err)
        engine = BulkRevocation(
            session,
            account,
            project,
            source,
            concurrency=args.concurrency,
            resume=args.resume,
            force=args.force,
            confirmed=args.yes,
            reason=reason,
            on_progress=progress.update,
            on_result=results.write if results is not None else None,
        )
        with _sigint_stops(engine, out, progress):
            summary = await engine.run()
        progress.clear()
        if out.as_json:
            out.document(summary.to_json())
        else:
            for text in summary_lines(summary, source.label):
                out.line(text)
        if results is not None:
            problem = results.close()
            if problem is None:
                out.message(f"{results.rows:,} rows written to {results.path}")
            else:  # the changes were made: their outcome decides the exit code
                out.message(f"warning: the --output file was not written: {problem}")
        return summary.exit_code
    finally:
        if results is not None:
            results.close()
        if source is not None:
            source.close()


@contextlib.contextmanager
def _sigint_stops(engine: BulkRevocation, out: Output, progress: ProgressLine) -> Iterator[None]:
    """While running, Ctrl-C stops the run gracefully; a second one abandons it."""
    loop = asyncio.get_running_loop()

    def on_sigint() -> None:
        progress.clear()
        if not engine.stopping:
            out.message(
                f"stopping: finishing the {engine.in_flight} request(s) in flight "
                "(Ctrl-C again to abandon them)"
            )
        else:
            out.message("abandoning the requests in flight")
        engine.cancel()

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, Windows
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def _print_plan(out: Output, plan: BulkPlan, refused: str | None = None) -> None:
    """The dry run: the first requests in full, the count of the rest (``refused``:
    why the run would be refused)."""
    shown = len(plan.requests)
    if refused is not None:
        out.message(f"dry run: would be refused: {clean(refused)}")
    if out.as_json:
        out.document(
            {
                "dryRun": True,
                **({"wouldBeRefused": refused} if refused is not None else {}),
                "requests": [
                    {"line": subject.line, **request_json(r)} for subject, r in plan.requests
                ],
                "count": plan.count,
                "shown": shown,
                "duplicates": plan.duplicates,
                "invalid": [line.to_json() for line in plan.invalid],
                "invalidCount": plan.invalid_count,
            }
        )
    else:
        for subject, request in plan.requests:
            out.line(f"# line {subject.line}")
            for shown_line in request_lines(request):
                out.line(shown_line)
            out.line("")
        if plan.count > shown:
            out.line(f"# … and {plan.count - shown:,} more requests like these")
        out.line(
            f"# {plan.count:,} requests in all; {plan.duplicates:,} repeated lines; "
            f"{plan.invalid_count:,} invalid lines"
        )
        for line in plan.invalid[:DRY_RUN_SHOWN]:
            out.line(f"#   line {line.line}: {line.reason}")
    out.message("dry run: nothing was sent")


__all__ = ["DRY_RUN_SHOWN", "ProgressLine", "open_source", "run_bulk_revoke"]
