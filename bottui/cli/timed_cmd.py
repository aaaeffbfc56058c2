"""Timed changes: ``bottui timed [extend|cancel|revert|resolve]`` and ``bottui run-due``.

A change is timed where it is made: ``--for DURATION`` on ``limiter`` and
``thresholds`` is :mod:`bottui.cli.changes`' (which does not import this module:
the timed commands' reverts, resolution and executors cost a limiter change
~3% of its CPU for nothing).
"""

from __future__ import annotations

import argparse
import os
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

from bottui.api.errors import EXIT_OK
from bottui.cli.command_session import command_session
from bottui.cli.output import Output
from bottui.cli.parser import CHANGE, SESSION, Args, Exit, command, duration, moment
from bottui.ops.timed.execute import revert_now, run_due
from bottui.ops.timed.resolve import How, resolve
from bottui.ops.timed.schedule import cancel, extend, find, list_timed
from bottui.ops.timed_record import now_of
from bottui.plaintext import show_id
from bottui.store.keyring_tokens import TokenStore
from bottui.store.token_sources import read_credentials
from bottui.store.utc import utc_text

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.ops.timed.execute import DueReport
    from bottui.ops.timed.schedule import TimedChange

T = TypeVar("T")

#: run-due's exit code per action (the worst wins, in CONVENTIONS' bulk order).
_CODES = {"unknown": 4, "failed": 1, "refused": 2, "late-skipped": 2, "in-doubt": 2}

#: The exit codes of sending reverts.
_EXITS: Final[list[Exit]] = [
    0,
    1,
    (
        2,
        "refused before sending: read-only, protected without --yes, no such id, "
        "superseded, late past the limit, or an outcome in doubt (a claim whose "
        "executor stopped: `bottui timed resolve ID`)",
    ),
    3,
    (4, "network failure, or an answer that never came (the revert's outcome is unknown)"),
    130,
]


def _add_now(sub: argparse.ArgumentParser, text: str, default: Any = None) -> None:
    """``--now ISO``: the UTC time the command acts as if at (``text``: its help)."""
    sub.add_argument("--now", metavar="ISO", type=moment, default=default, help=text)


def _add_timed(commands: Any) -> None:
    timed = command(
        commands,
        "timed",
        examples=[
            "bottui timed",
            "bottui timed extend 3 1h",
            "bottui timed cancel 3",
        ],
        exits=[0, (2, "refused: no such timed change, or invalid options"), 130],
        common=SESSION,
    )
    timed.add_argument(
        "--all",
        action="store_true",
        help="list finished ones too (reverted, superseded, cancelled; default: no)",
    )
    _add_now(timed, "list as if at this UTC time: what is due, late or in doubt (default: now)")
    actions = timed.add_subparsers(
        dest="action", metavar="ACTION", parser_class=type(timed), title="actions"
    )
    extend = command(
        actions,
        "extend",
        "revert later: from its due time (or from now, when overdue)",
        examples=["bottui timed extend 3 1h", "bottui timed extend 3 30m --json"],
        exits=[0, (2, "no such timed change, or it is no longer scheduled"), 130],
        common=SESSION | {"dry_run"},
    )
    cancel = command(
        actions,
        "cancel",
        "keep the change: its revert will not happen",
        examples=["bottui timed cancel 3", "bottui timed cancel 3 --json"],
        exits=[0, (2, "no such timed change, or it is no longer scheduled"), 130],
        common=SESSION | {"dry_run"},
    )
    revert = command(
        actions,
        "revert",
        "revert now, as its timer would (protected profiles: --yes)",
        examples=["bottui timed revert 3", "bottui timed revert 3 --yes --json"],
        exits=_EXITS,
        common=CHANGE,
    )
    resolve = command(
        actions,
        "resolve",
        "a claim in doubt (its executor stopped, or someone else claimed it): check it, "
        "then mark it done or send the revert again",
        examples=[
            "bottui timed resolve 3",
            "bottui timed resolve 3 --done",
            "bottui timed resolve 3 --resend --yes",
        ],
        exits=[
            (0, "checked, marked done, or re-sent and reverted"),
            1,
            (
                2,
                "refused: no such timed change, not a claim in doubt, read-only, protected "
                "without --yes (--resend), or another operator is re-sending it",
            ),
            *_EXITS[3:],
        ],
        common=CHANGE,
    )
    for sub in (extend, cancel, revert, resolve):
        sub.add_argument("timed_id", metavar="TIMED_ID", help="the id `bottui timed` shows")
    extend.add_argument(
        "by",
        metavar="DURATION",
        type=duration,
        help="how much later: 30m, 1h, 1h30m (at most 7d from now)",
    )
    _add_now(
        resolve,
        "resolve as if at this UTC time (tests, catching up; default: now)",
        argparse.SUPPRESS,
    )
    how = resolve.add_mutually_exclusive_group()
    how.add_argument(
        "--done",
        action="store_true",
        help="you checked: the value is as it should be; settle the claim, send nothing",
    )
    how.add_argument(
        "--resend",
        action="store_true",
        help="send the revert again, deliberately (protected profiles: --yes)",
    )


def _add_run_due(commands: Any) -> None:
    run_due = command(
        commands,
        "run-due",
        examples=[
            "bottui run-due",
            "bottui run-due --late-ok",
            "bottui run-due --now 2026-11-24T12:00:00Z --json",
        ],
        exits=[(0, "done, or nothing due"), *_EXITS[1:]],
        common=SESSION | {"read_only", "dry_run"},
        notes="run-due",
    )
    _add_now(run_due, "run as if at this UTC time (tests, catching up; default: now)")
    run_due.add_argument(
        "--late-ok",
        action="store_true",
        help="send reverts later than the profile's late_limit_minutes too "
        "(default: skip and report them)",
    )


async def cmd_timed(args: Args, out: Output) -> int:
    """``bottui timed [--all]``; ``timed extend ID DURATION``, ``cancel ID``, ``revert ID``."""
    async with command_session(args, out) as session:
        now = now_of(session, getattr(args, "now", None))
        action = getattr(args, "action", None)
        if action is None:
            found = await list_timed(session, include_done=args.all, now=now)
            if out.as_json:
                out.document({"now": utc_text(now), "timed": [t.to_json(now) for t in found]})
            else:
                _print_list(out, found, now)
            return EXIT_OK
        if action == "resolve":
            return await _resolve(args, out, session, now)
        if args.dry_run:
            change = await find(session, args.timed_id)
            if change.state != "scheduled":  # what the real one would say: refused
                out.line(f"would not {action} timed change {show_id(change.id)}: {_why(change)}")
            elif action == "revert":
                out.line(_would_revert(change))
            else:
                out.line(f"would {action} timed change {show_id(change.id)} ({change.what})")
            out.line(f"dry run: nothing was {'sent' if action == 'revert' else 'changed'}")
            return EXIT_OK
        if action == "revert":
            report = await revert_now(session, args.timed_id, confirmed=args.yes)
            return _print_reports(out, [report], now)
        if action == "extend":
            change = await extend(session, args.timed_id, args.by)
            verb = f"now reverts {change.when_text(now)}, at {utc_text(change.due_at)}"
        else:
            change = await cancel(session, args.timed_id)
            verb = "cancelled: the change stays"
        out.result(
            change.to_json(now), f"timed change {show_id(change.id)} ({change.what}): {verb}"
        )
        return EXIT_OK


async def _resolve(args: Args, out: Output, session: Session, now: datetime) -> int:
    """``timed resolve ID [--done | --resend]``: the check, then what was done."""
    how: How = "done" if args.done else "resend" if args.resend else "check"
    result = await resolve(
        session, args.timed_id, "check" if args.dry_run else how, confirmed=args.yes, now=now
    )
    doc = {"timed": result.timed.to_json(now), "check": list(result.lines), "did": how}
    if args.dry_run:
        doc["did"] = "nothing (dry run)"
    if result.report is not None:
        doc["report"] = result.report.to_json()
    shown = show_id(result.timed.id)
    if args.dry_run:
        last = f"dry run: would {how} timed change {shown}; nothing changed"
    elif result.report is not None:
        last = result.report.line
    elif how == "done":
        last = f"timed change {shown}: resolved (nothing was sent)"
    else:
        last = (
            f"`bottui timed resolve {shown} --done` settles it, `--resend` sends the revert again"
        )
    out.result(doc, [*result.lines, last])
    if args.dry_run or result.report is None:
        return EXIT_OK
    return _code([result.report])


def _would_revert(change: TimedChange) -> str:
    return f"would revert timed change {show_id(change.id)}: {change.what} to {change.revert_to}"


def _why(change: TimedChange) -> str:
    """``it is superseded by #5 (changed since ...)``: why nothing more is done to it."""
    by = f" by {change.superseded_by}" if change.superseded_by else ""
    note = f" ({change.note})" if change.note and not change.foreseen else ""
    if change.foreseen:
        note = ": changed since, its revert will not be sent"
    return f"it is {change.state}{by}{note}"


def _print_list(out: Output, found: list[TimedChange], now: datetime) -> None:
    if not found:
        out.line("no timed changes")
        return
    for t in found:
        late = "" if t.done else f" ({t.when_text(now)})"
        who = f" by {t.executor}" if t.executor else ""
        extra = f", superseded by {t.superseded_by}" if t.superseded_by else ""
        if t.foreseen:  # not recorded yet: no executor; said once
            extra = f" by {t.superseded_by}: will not revert"
        stated = " (stated)" if t.revert_to_stated else ""
        out.line(
            f"{show_id(t.id)}  {utc_text(t.due_at)}{late}  {t.shown_state(now)}{who}{extra}  "
            f"{t.what} of {show_id(t.account)}/{show_id(t.project)} -> {t.revert_to}{stated}"
        )
    doubts = [t for t in found if t.in_doubt(now)]
    for t in doubts:
        out.message(
            f"warning: timed change {show_id(t.id)} is in doubt: `bottui timed resolve "
            f"{show_id(t.id)}` checks it"
        )


async def cmd_run_due(args: Args, out: Output) -> int:
    """``bottui run-due [--now ISO] [--late-ok]``: perform the due reverts of the profile."""
    async with command_session(args, out) as session:
        directory = os.environ.get("CREDENTIALS_DIRECTORY")
        if directory:
            # systemd's LoadCredential= files, kept in memory (never os.environ).
            tokens = read_credentials(directory)
            if tokens:
                session.tokens = TokenStore(
                    environ={**os.environ, **tokens}, scopes=session.tokens.scopes
                )
        now = now_of(session, args.now)
        if args.dry_run:
            due = [t for t in await list_timed(session, now=now) if t.open and t.due_at <= now]
            for t in due:  # a foreseen one: what the run would do is skip it, not revert it
                out.line(
                    f"would skip timed change {show_id(t.id)}: {t.what} was changed since "
                    f"({t.superseded_by}): superseded, its revert is not sent"
                    if t.foreseen
                    else _would_revert(t)
                )
            out.line("dry run: nothing was sent")
            return EXIT_OK
        reports = await run_due(session, now=now, late_ok=args.late_ok)
        return _print_reports(out, reports, now)


def _print_reports(out: Output, reports: list[DueReport], now: datetime) -> int:
    lines = [report.line for report in reports] or ["nothing due"]
    out.result({"now": utc_text(now), "reports": [r.to_json() for r in reports]}, lines)
    return _code(reports)


def _code(reports: list[DueReport]) -> int:
    codes = {_CODES.get(r.action, 0) for r in reports}
    return next((code for code in (4, 1, 2) if code in codes), EXIT_OK)


#: Each command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"timed": _add_timed, "run-due": _add_run_due}
