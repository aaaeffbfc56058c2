"""``bottui playbook list | show NAME | run NAME | revert RUN_ID``.

The playbooks are planned and run by :mod:`bottui.ops.playbooks`; this
module prints them. ``run`` shows the plan (one row per step), asks once
(``--yes`` answers; without a terminal and without ``--yes`` nothing is
sent, exit 2, as for ``undo``), prints each step as it ends and a summary.
When a step fails, the run stops and the steps already done are offered
for revert (on a terminal; otherwise the revert command is printed).
"""

from __future__ import annotations

import sys
from datetime import timedelta
from typing import Any, Final

from bottui.api.errors import EXIT_OK
from bottui.cli import output
from bottui.cli.command_session import command_session
from bottui.cli.output import Output, UsageError
from bottui.cli.parser import (
    CHANGE,
    SESSION,
    Args,
    Exit,
    add_reason,
    command,
    duration,
    entry_id,
    group_of,
)
from bottui.ops import revert
from bottui.ops.durations import duration_text
from bottui.ops.planning import DRY_RUN_NOTE
from bottui.ops.playbooks import library, playbook_plan, playbook_run
from bottui.ops.playbooks.playbook_plan import PlaybookPlan
from bottui.ops.playbooks.playbook_run import RunSummary, StepResult
from bottui.ops.revert import PlaybookRevert
from bottui.ops.session import Session
from bottui.plaintext import show_id
from bottui.store.files import Locations


async def cmd_playbook(args: Args, out: Output) -> int:
    """Dispatch ``bottui playbook ACTION``."""
    if args.action == "list":
        return await _list(out)
    if args.action == "revert":
        return await _revert(args, out)
    async with command_session(args, out) as session:
        # Showing is not running: an id the inventory never saw is a warning there.
        plan = await _plan(args, session, strict=args.action != "show")
        if args.action == "show":
            _show(out, plan, as_document=True)
            return EXIT_OK
        return await _run(args, out, session, plan)


async def _list(out: Output) -> int:
    locations = Locations.default()
    found = await library.load_all(locations)
    directory = library.directory(locations)
    listed = [b.to_json() if not isinstance(b, Exception) else {"error": b.title} for b in found]
    lines = [] if found else [f"no playbooks in {directory}"]
    for book in found:
        if isinstance(book, Exception):
            lines.append(f"! {book.title}")
            continue
        reverts = f", reverts after {book.duration_text}" if book.duration_text else ""
        steps = f"{len(book.steps)} step" + ("s" if len(book.steps) != 1 else "")
        lines.append(f"{show_id(book.name)}: {steps}{reverts}")
        if book.description:
            lines.append(f"  {book.description}")
    out.result({"directory": str(directory), "playbooks": listed}, lines)
    return EXIT_OK


async def _plan(args: Args, session: Session, *, strict: bool = True) -> PlaybookPlan:
    book = await library.load(session.locations, args.name)
    account, project = playbook_plan.scope(session, book, args.account, args.project)
    plan = await playbook_plan.plan_playbook(session, book, account, project, strict=strict)
    return plan.with_reason(getattr(args, "reason", None))


def plan_rows(plan: PlaybookPlan) -> list[str]:
    """The plan as lines: a header, then one row per step (not cleaned)."""
    book = plan.playbook
    rows = [
        f"playbook {show_id(book.name)} on {show_id(plan.account)}/{show_id(plan.project)}: "
        f"{len(plan.steps)} step{'s' if len(plan.steps) != 1 else ''}"
        + (f", default duration {book.duration_text}" if book.duration_text else "")
    ]
    if book.description:
        rows.append(f"  {book.description}")
    for step in plan.steps:
        rows.append(
            f"  {step.number}. {show_id(step.target)}: {step.known} -> {step.new}"
            f"  (known from {step.source})"
        )
    return rows


def _show(out: Output, plan: PlaybookPlan, *, as_document: bool) -> None:
    for step in plan.steps:
        if step.unseen is not None:
            out.message(f"warning: {step.unseen}; playbook run refuses it until then")
        for warning in step.warnings:
            out.message(f"warning: step {step.number}: {warning}")
    if out.as_json and as_document:
        out.document(plan.to_json())
        return
    for row in plan_rows(plan):
        out.line(row)


def _duration(args: Args, plan: PlaybookPlan) -> timedelta | None:
    if args.no_revert:
        if args.revert_after is not None:
            raise UsageError("Invalid command line", "--for and --no-revert contradict each other")
        return None
    after: timedelta | None = args.revert_after
    return plan.playbook.duration if after is None else after


async def _run(args: Args, out: Output, session: Session, plan: PlaybookPlan) -> int:
    after = _duration(args, plan)
    if args.dry_run:
        _dry_run(out, plan, plan.steps[0].change.reason_refusal(session.settings))
        out.message(DRY_RUN_NOTE)
        return EXIT_OK
    _show(out, plan, as_document=False)
    playbook_run.check_may_run(session, plan, confirmed=args.yes)  # refused before the question
    if after is not None:
        out.line(
            f"every step reverts after {duration_text(after)} (reverse order, superseded skipped)"
        )
    if not args.yes:
        output.confirm_on_terminal(out, f"Run these {len(plan.steps)} steps?")
    summary = await playbook_run.run_playbook(
        session, plan, confirmed=True, revert_after=after, progress=_progress(out, plan)
    )
    for warning in summary.warnings:
        out.message(f"warning: {warning}")
    report = None
    if summary.stopped_at is not None and summary.done:
        report = await _offer_revert(args, out, session, summary)
    _summary(out, summary, report)
    stop = summary.stopped_at
    if stop is not None and stop.error is not None:
        return stop.error.exit_code
    return EXIT_OK


def _dry_run(out: Output, plan: PlaybookPlan, refused: str | None) -> None:
    document: dict[str, Any] = {
        **plan.to_json(),
        "dryRun": True,
        "steps": [{**s.to_json(), **s.change.dry_run_json(refused)} for s in plan.steps],
    }
    lines = plan_rows(plan)
    for step in plan.steps:
        lines += ["", f"step {step.number}: {show_id(step.target)}", *step.change.dry_run_lines()]
    out.result(document, lines)
    if refused is not None:
        out.message(f"dry run: would be refused: {refused}")


def _progress(out: Output, plan: PlaybookPlan) -> Any:
    total = len(plan.steps)

    def show(result: StepResult) -> None:
        if result.state == "sending":
            return
        entry = f" (journal #{result.journal_id})" if result.journal_id is not None else ""
        detail = f": {result.detail}" if result.detail else ""
        out.message(
            f"step {result.step.number}/{total} {show_id(result.step.target)}: "
            f"{result.state}{entry}{detail}"
        )

    return show


async def _offer_revert(
    args: Args, out: Output, session: Session, summary: RunSummary
) -> PlaybookRevert | None:
    count = len(summary.done)
    hint = f"bottui playbook revert {summary.run_id}" if summary.run_id is not None else None
    if not sys.stdin.isatty():
        if hint is not None:
            out.message(f"the run stopped: to revert the {count} step(s) done: {hint}")
        return None
    out.err.write(f"The run stopped. Revert the {count} step(s) done? [y/N] ")
    out.err.flush()
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        if hint is not None:
            out.message(f"not reverted; later: {hint}")
        return None
    return await revert.revert_steps(session, summary, reason=args.reason)


def _summary(out: Output, summary: RunSummary, report: PlaybookRevert | None) -> None:
    run_text = f"run #{summary.run_id}" if summary.run_id is not None else "run (not journaled)"
    document = summary.to_json()
    lines = [f"{run_text}: {summary.text()}"]
    if summary.revert_due is not None:
        lines.append(f"  reverts at {summary.revert_due.isoformat(timespec='seconds')}")
    if report is not None:
        document["revert"] = report.to_json()
        lines += [f"  {line}" for line in report.lines()]
    out.result(document, lines)


async def _revert(args: Args, out: Output) -> int:
    async with command_session(args, out) as session:
        steps = await revert.run_steps(session, args.run_id)
        for line in steps.lines():
            out.line(line)
        revert.check_may_revert(session, steps, confirmed=args.yes, reason=args.reason)
        if not args.yes:
            output.confirm_on_terminal(
                out, f"Revert these {len(steps.entries)} step(s), last first?"
            )
        report = await revert.revert_run(session, steps, reason=args.reason)
        out.result(report.to_json(), report.lines())
        return report.exit_code


#: The exit codes of running or reverting a playbook.
_CHANGE_EXITS: Final[list[Exit]] = [
    (0, "done (every step sent; also every --dry-run)"),
    (1, "the API answered an error on a step (the steps after it were not sent)"),
    (
        2,
        "refused before sending: a playbook file with a problem (FILE:LINE named), an id "
        "the inventory does not know, read-only, protected without --yes, not confirmed, "
        "or a revert refused (superseded)",
    ),
    3,
    (4, "network failure or timeout on a step (its outcome may be unknown)"),
    130,
]
_READ_EXITS: Final[list[Exit]] = [0, (2, "a playbook file with a problem (FILE:LINE named)"), 130]


def _add_playbook(commands: Any) -> None:
    """Add ``playbook`` and its actions to ``commands`` (the top-level subparsers)."""
    actions = group_of(
        commands,
        "playbook",
        examples=[
            "bottui playbook list",
            'bottui playbook run login-attack --for 2h --reason "INC-4711"',
            "bottui playbook revert 12 --yes",
        ],
        exits=[0, 1, 2, 3, 4, 130],
    )
    command(
        actions,
        "list",
        "list the playbooks of the config directory (name, steps, duration, description)",
        examples=["bottui playbook list", "bottui playbook list --json"],
        exits=_READ_EXITS,
        common={"profile", "json"},
    )
    show = command(
        actions,
        "show",
        "show a playbook's plan: each step's target, known value now -> new value, source",
        examples=["bottui playbook show login-attack", "bottui playbook show login-attack --json"],
        exits=_READ_EXITS,
        common=SESSION,
    )
    show.add_argument("name", metavar="NAME", help="the playbook (playbooks/NAME.toml)")
    run = command(
        actions,
        "run",
        "plan every step, confirm once, send the steps in order (stop at the first failure)",
        examples=[
            "bottui playbook run login-attack --reason INC-4711",
            "bottui playbook run login-attack --for 30m --yes",
            "bottui playbook run login-attack --dry-run --json",
        ],
        exits=_CHANGE_EXITS,
        common=CHANGE,
    )
    run.add_argument("name", metavar="NAME", help="the playbook (playbooks/NAME.toml)")
    run.add_argument(
        "--for",
        dest="revert_after",
        metavar="DURATION",
        type=duration,
        default=None,
        help="revert every step this long after the run (90s, 30m, 2h, 1d, 1h30m; "
        "at most 7d); default: the playbook's duration, or none",
    )
    run.add_argument(
        "--no-revert",
        action="store_true",
        help="no timed revert even if the playbook has a duration (default: off)",
    )
    add_reason(run)
    revert = command(
        actions,
        "revert",
        "revert a playbook run's steps in reverse order, each back to its previous value "
        "(a step whose object changed since is not sent: superseded)",
        examples=["bottui playbook revert 12", "bottui playbook revert '#12' --yes --reason done"],
        exits=_CHANGE_EXITS,
        common=CHANGE,
    )
    revert.add_argument("run_id", metavar="RUN_ID", type=entry_id, help="the run id a run printed")
    add_reason(revert)


#: The command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"playbook": _add_playbook}
