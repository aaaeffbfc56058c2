"""``bottui timed [extend|cancel|revert]``, ``bottui run-due``, and ``--for`` on the changes.

:func:`with_for` times a plan before it is confirmed, to the value before or
the one stated with ``--revert-to`` (refused, exit 2, for a revocation, an
unknown value not stated, or a stated one the inventory contradicts:
:mod:`bottui.ops.revert`); :func:`say_timed` says after the
change when it reverts, warns when no executor is known, and, under a
protected profile, that the revert was confirmed with the change.
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args, UsageError
from bottui.cli.session import command_session
from bottui.plaintext import show_id

if TYPE_CHECKING:
    from bottui.ops.plan import PlannedChange
    from bottui.ops.session import Session
    from bottui.ops.timed import DueReport, TimedChange

T = TypeVar("T")

#: run-due's exit code per action (the worst wins, in CONVENTIONS' bulk order).
_CODES = {"unknown": 4, "failed": 1, "refused": 2, "late-skipped": 2, "in-doubt": 2}


def with_for(plan: PlannedChange[T], args: Args) -> PlannedChange[T]:
    """``plan`` timed by ``--for``, reverting to the value ``--revert-to`` states when
    the inventory does not know it (refused, exit 2, when it cannot be)."""
    from bottui.ops.revert import with_revert_to

    after = getattr(args, "for_", None)
    stated = _stated(args)
    if stated is not None and after is None:
        raise UsageError("Invalid command line", "--revert-to* needs --for; nothing was sent")
    if after is None:
        return plan
    return with_revert_to(plan, stated).with_revert_after(after)


def _stated(args: Args) -> dict[str, Any] | None:
    """The value to revert to, as ``--revert-to`` (or ``--revert-to-block`` and
    ``--revert-to-challenge``) state it; None: not stated."""
    from bottui.ops.revert import limiter_value, thresholds_value

    word = getattr(args, "revert_to", None)
    if word is not None:
        return limiter_value(word == "on")
    block = getattr(args, "revert_to_block", None)
    challenge = getattr(args, "revert_to_challenge", None)
    if block is None and challenge is None:
        return None
    if block is None or challenge is None:
        raise UsageError(
            "Invalid command line",
            "--revert-to-block and --revert-to-challenge go together; nothing was sent",
        )
    return thresholds_value(args.name, block, challenge)


async def say_timed(out: Output, session: Session, plan: PlannedChange[Any]) -> None:
    """After a timed change: when it reverts, and the warnings that go with it."""
    from bottui.ops.durations import duration_text
    from bottui.ops.timed import NO_EXECUTOR_WARNING, executor_known, list_timed

    if plan.revert_after is None:
        return
    known = plan.previous
    stated = " (stated)" if known is not None and known.stated else ""
    reverts = f"reverts to {known.text if known else '?'}{stated} in " + duration_text(
        plan.revert_after
    )
    found = [t for t in await list_timed(session) if t.state == "scheduled"]
    newest = max(found, key=lambda t: t.scheduled_at, default=None)
    if newest is not None:
        reverts += f" (timed change {newest.id}, due {_utc(newest.due_at)})"
    out.message(f"timed: {reverts}")
    if session.settings.protected:
        out.message("timed: its revert was confirmed with this change (protected profile)")
    if await executor_known(session) is None:
        out.message(f"warning: {NO_EXECUTOR_WARNING}")


def _utc(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


async def cmd_timed(args: Args, out: Output) -> int:
    """``bottui timed [--all]``; ``timed extend ID DURATION``, ``cancel ID``, ``revert ID``."""
    from bottui.ops import timed

    async with command_session(args, out) as session:
        now = timed.schedule.now_of(session, getattr(args, "now", None))
        action = getattr(args, "action", None)
        if action is None:
            found = await timed.list_timed(session, include_done=args.all, now=now)
            if out.as_json:
                out.document({"now": _utc(now), "timed": [t.to_json(now) for t in found]})
            else:
                _print_list(out, found, now)
            return EXIT_OK
        if action == "resolve":
            return await _resolve(args, out, session, now)
        if action == "revert":
            if args.dry_run:
                change = await timed.find(session, args.timed_id)
                if change.state != "scheduled":  # what the real one would say: refused
                    out.line(f"would not revert timed change {show_id(change.id)}: {_why(change)}")
                else:
                    out.line(
                        f"would revert timed change {show_id(change.id)}: {change.what} to "
                        f"{change.revert_to}"
                    )
                out.line("dry run: nothing was sent")
                return EXIT_OK
            report = await timed.revert_now(session, args.timed_id, confirmed=args.yes)
            return _print_reports(out, [report], now)
        if args.dry_run:
            change = await timed.find(session, args.timed_id)
            if change.state != "scheduled":
                out.line(f"would not {action} timed change {show_id(change.id)}: {_why(change)}")
            else:
                out.line(f"would {action} timed change {show_id(change.id)} ({change.what})")
            out.line("dry run: nothing was changed")
            return EXIT_OK
        if action == "extend":
            change = await timed.extend(session, args.timed_id, args.by)
            verb = f"now reverts {change.when_text(now)}, at {_utc(change.due_at)}"
        else:
            change = await timed.cancel(session, args.timed_id)
            verb = "cancelled: the change stays"
        if out.as_json:
            out.document(change.to_json(now))
        else:
            out.line(f"timed change {show_id(change.id)} ({change.what}): {verb}")
        return EXIT_OK


async def _resolve(args: Args, out: Output, session: Session, now: datetime) -> int:
    """``timed resolve ID [--done | --resend]``: the check, then what was done."""
    from bottui.ops.timed.resolve import How, resolve

    how: How = "done" if args.done else "resend" if args.resend else "check"
    result = await resolve(
        session, args.timed_id, "check" if args.dry_run else how, confirmed=args.yes, now=now
    )
    if out.as_json:
        doc = {"timed": result.timed.to_json(now), "check": list(result.lines), "did": how}
        if args.dry_run:
            doc["did"] = "nothing (dry run)"
        if result.report is not None:
            doc["report"] = result.report.to_json()
        out.document(doc)
    else:
        for line in result.lines:
            out.line(line)
    if args.dry_run:
        if not out.as_json:
            out.line(
                f"dry run: would {how} timed change {show_id(result.timed.id)}; nothing changed"
            )
        return EXIT_OK
    if result.report is not None:
        if not out.as_json:
            out.line(result.report.line)
        return _code([result.report])
    if not out.as_json:
        if how == "done":
            out.line(f"timed change {show_id(result.timed.id)}: resolved (nothing was sent)")
        else:
            out.line(
                f"`bottui timed resolve {show_id(result.timed.id)} --done` settles it, "
                "`--resend` sends the revert again"
            )
    return EXIT_OK


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
            f"{show_id(t.id)}  {_utc(t.due_at)}{late}  {t.shown_state(now)}{who}{extra}  "
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
    from bottui.ops import timed
    from bottui.store.keyring_tokens import TokenStore
    from bottui.store.token_sources import read_credentials

    async with command_session(args, out) as session:
        directory = os.environ.get("CREDENTIALS_DIRECTORY")
        if directory:
            # systemd's LoadCredential= files, kept in memory (never os.environ).
            tokens = read_credentials(directory)
            if tokens:
                session.tokens = TokenStore(
                    environ={**os.environ, **tokens}, scopes=session.tokens.scopes
                )
        now = timed.schedule.now_of(session, args.now)
        if args.dry_run:
            due = [
                t for t in await timed.list_timed(session, now=now) if t.open and t.due_at <= now
            ]
            for t in due:
                if t.foreseen:  # what the run would do: skip it, not revert it
                    out.line(
                        f"would skip timed change {show_id(t.id)}: {t.what} was changed since "
                        f"({t.superseded_by}): superseded, its revert is not sent"
                    )
                else:
                    out.line(
                        f"would revert timed change {show_id(t.id)}: {t.what} to {t.revert_to}"
                    )
            out.line("dry run: nothing was sent")
            return EXIT_OK
        reports = await timed.run_due(session, now=now, late_ok=args.late_ok)
        return _print_reports(out, reports, now)


def _print_reports(out: Output, reports: list[DueReport], now: datetime) -> int:
    if out.as_json:
        out.document({"now": _utc(now), "reports": [r.to_json() for r in reports]})
    elif not reports:
        out.line("nothing due")
    for report in reports:
        if not out.as_json:
            out.line(report.line)
    return _code(reports)


def _code(reports: list[DueReport]) -> int:
    codes = {_CODES.get(r.action, 0) for r in reports}
    return next((code for code in (4, 1, 2) if code in codes), EXIT_OK)


__all__ = ["cmd_run_due", "cmd_timed", "say_timed", "with_for"]
