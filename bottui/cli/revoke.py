"""``bottui revoke``: one visitor or user account, or many from a file (``--from-file``).

One subject is planned with :mod:`bottui.ops.planning` and sent as every change
is (:func:`bottui.ops.mutations.apply`). Bulk revocation is the engine of
:mod:`bottui.ops.bulk`; this module checks the options, opens
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
A revocation cannot be timed: ``--for`` is refused, saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any, BinaryIO, Final, TextIO

from bottui.api.errors import EXIT_OK, RefusedError
from bottui.api.requests import request_json, request_lines
from bottui.cli.changes import render_dry_run
from bottui.cli.command_session import command_session
from bottui.cli.output import Output, UsageError
from bottui.cli.parser import CHANGE, IDS, Args, add_overwrite, add_reason, command
from bottui.ops import mutations, planning
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
from bottui.ops.confirmation import normalize_reason, reason_refusal_text
from bottui.ops.session import Session
from bottui.plaintext import clean

#: Requests a bulk ``--dry-run`` prints in full; the rest are counted.
DRY_RUN_SHOWN: Final = 20


async def cmd_revoke(args: Args, out: Output) -> int:
    """``bottui revoke`` for one subject (bulk: ``--from-file``)."""
    if getattr(args, "for_", None) is not None:  # one subject or a whole file alike
        raise planning.TimedRefused(
            "a revocation cannot be timed: the API has no call that gives a challenge grant "
            "back, so it could never revert; nothing was sent"
        )
    if args.from_file is None and (args.resume or args.output or args.force or args.overwrite):
        raise UsageError(
            "Invalid command line", "--resume, --output, --overwrite, --force need --from-file"
        )
    async with command_session(args, out) as session:
        if args.from_file is not None:
            code: int = await run_bulk_revoke(args, out, session)
            return code
        account, project = session.project_scope(args.account, args.project)
        subject = {"visitor_id": args.visitor_id, "user_account_id": args.user_account_id}
        plan = await planning.plan_revocation(session, account, project, **subject)
        plan = plan.with_reason(args.reason)
        if args.dry_run:
            render_dry_run(out, plan, plan.reason_refusal(session.settings))
            return EXIT_OK
        applied = await mutations.apply(session, plan, confirmed=args.yes)
        revocation = applied.value
        lines = [f"revocation: {revocation.outcome.value}"]
        for label, value in (
            ("reportId", revocation.report_id),
            ("grantExpiresAt", revocation.grant_expires_at),
            ("grantRemainingAttempts", revocation.grant_remaining_attempts),
        ):
            if value is not None:
                lines.append(f"  {label}: {value}")
        if revocation.outcome.value == "unknown (retried)":
            lines.append(
                "  an earlier attempt may have withdrawn the grant before the "
                "connection failed; the retry found nothing standing"
            )
        out.result(revocation.to_json(), lines)
        return EXIT_OK


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


def _check_options(args: Args) -> None:
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


async def run_bulk_revoke(args: Args, out: Output, session: Session) -> int:
    """``bottui revoke --from-file F|- [--concurrency N] [--resume] [--output F]``.

    ``session`` is the command's (:func:`bottui.cli.command_session.command_session`
    prints its warnings and closes it).
    """
    source: BulkSource | None = None
    results: ResultsFile | None = None
    try:
        _check_options(args)
        account, project = session.project_scope(args.account, args.project)
        reason = normalize_reason(args.reason)
        if args.dry_run:
            source = open_source(args.from_file)
            plan = plan_bulk(session, account, project, source, keep=DRY_RUN_SHOWN)
            _print_plan(out, plan, reason_refusal_text(session.settings, reason))
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
        out.result(summary.to_json(), summary_lines(summary, source.label))
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


def _add_revoke(commands: Any) -> None:
    revoke = command(
        commands,
        "revoke",
        examples=[
            f"bottui revoke {IDS} --visitor-id vis_7Hq2kP9xLm",
            f"bottui revoke {IDS} --user-account-id user-1234 --reason INC-42",
            f"bottui revoke {IDS} --from-file ids.txt --output results.csv",
        ],
        exits=[
            (0, "done, also when nothing was standing"),
            (1, "the API answered an error (bulk: at least one request failed)"),
            (2, "refused before sending (bulk: some input lines were invalid)"),
            3,
            4,
            130,
        ],
        common=CHANGE,
    )
    revoke.add_argument(
        "--visitor-id",
        metavar="VISITOR_ID",
        help="revoke this visitor's grants (with --user-account-id: both)",
    )
    revoke.add_argument(
        "--user-account-id",
        metavar="USER_ACCOUNT_ID",
        help="revoke this user account's grants (with --visitor-id: both)",
    )
    revoke.add_argument(
        "--from-file",
        metavar="FILE",
        help="bulk: ids from FILE (- for stdin): one visitor id per line, or CSV with a "
        "visitorId and/or userAccountId header",
    )
    revoke.add_argument(
        "--concurrency",
        type=int,
        default=32,
        metavar="N",
        help="bulk: requests in flight, 1 to 512 (default %(default)s)",
    )
    revoke.add_argument("--resume", action="store_true", help="bulk: skip ids already done")
    revoke.add_argument(
        "--force", action="store_true", help="bulk: run even while the same input runs"
    )
    revoke.add_argument(
        "--output",
        metavar="FILE",
        help="bulk: write each id's result to FILE, results.csv or results.jsonl",
    )
    add_overwrite(revoke, "bulk: replace the --output FILE")
    add_reason(revoke)
    revoke.add_argument(
        "--for",
        dest="for_",
        metavar="DURATION",
        default=None,
        help="refused: a revocation cannot be timed (the API cannot give a grant back)",
    )


#: The command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"revoke": _add_revoke}
