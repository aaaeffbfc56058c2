"""The commands that change something: ``limiter``, ``revoke``, ``thresholds``, ``undo``.

Each plans its request with :mod:`bottui.ops`, prints it under ``--dry-run``
(sending nothing), or applies it (journaled, guarded by the read-only and
protected rules of the session) and prints the result. Bulk revocation
(``revoke --from-file``) is :mod:`bottui.cli.bulk`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from bottui.api.errors import EXIT_OK
from bottui.cli import terminal_confirm
from bottui.cli.output import Output
from bottui.cli.parser import Args, UsageError
from bottui.cli.recent import warn_recent, warn_supersedes
from bottui.cli.render import render_dry_run
from bottui.cli.session import command_session
from bottui.cli.timed import say_timed, with_for
from bottui.ops import confirmation
from bottui.plaintext import show_id

if TYPE_CHECKING:
    from bottui.ops.mutations import Applied
    from bottui.ops.plan import PlannedChange
    from bottui.ops.session import Session

T = TypeVar("T")


async def cmd_limiter(args: Args, out: Output) -> int:
    """``bottui limiter enable|disable LIMITER_ID``."""
    from bottui.ops import plan as planning

    async with command_session(args, out) as session:
        account, project = session.project_scope(args.account, args.project)
        is_active = args.action == "enable"
        plan = await planning.plan_limiter(session, account, project, args.limiter_id, is_active)
        plan = with_for(plan.with_reason(args.reason), args)
        if args.dry_run:
            await warn_supersedes(out, session, plan)  # what the change would do to a revert
            render_dry_run(out, plan, plan.reason_refusal(session.settings))
            return EXIT_OK
        plan = await warn_recent(out, session, plan, ack=args.ack_collision)
        applied = await _apply(session, plan, confirmed=args.yes)
        await say_timed(out, session, plan)
        change = applied.value
        if out.as_json:
            out.document(change.project.to_json(show_secrets=args.show_secrets))
        else:
            state = "ON (active)" if change.is_active else "OFF (inactive)"
            how = (
                "as the returned project says"
                if change.source.value == "response"
                else "as sent; the returned project does not list it"
            )
            out.line(f"rate limiter {show_id(args.limiter_id)}: {state}, {how}")
            _print_project(out, change.project, show_secrets=args.show_secrets)
        return EXIT_OK


def _print_project(out: Output, project: Any, *, show_secrets: bool) -> None:
    from bottui.api.models import SECRET_MASK

    fields = [
        ("project", project.id),
        ("name", project.name),
        ("url", project.url),
        ("protected", project.is_protected),
        ("siteKey", project.site_key),
        (
            "serverKey",
            project.server_key if show_secrets or project.server_key is None else SECRET_MASK,
        ),
        ("updatedAt", project.updated_at),
    ]
    for label, value in fields:
        if value is not None:
            shown = show_id(value) if label == "project" else value
            out.line(f"  {label}: {shown}")
    for limiter in project.rate_limiters:
        state = {True: "ON", False: "OFF", None: "?"}[limiter.is_active]
        name = f" ({limiter.name})" if limiter.name else ""
        out.line(f"  limiter {show_id(limiter.id)}{name}: {state}")


async def cmd_revoke(args: Args, out: Output) -> int:
    """``bottui revoke`` for one subject (bulk: ``--from-file``)."""
    from bottui.ops import plan as planning

    if args.from_file is not None:
        from bottui.cli.bulk import run_bulk_revoke

        async with command_session(args, out) as session:
            code: int = await run_bulk_revoke(args, out, session)
            return code
    if getattr(args, "for_", None) is not None:
        from bottui.ops.plan import TimedRefused

        raise TimedRefused(
            "a revocation cannot be timed: the API has no call that gives a challenge grant "
            "back, so it could never revert; nothing was sent"
        )
    if args.resume or args.output or args.force or args.overwrite:
        raise UsageError(
            "Invalid command line", "--resume, --output, --overwrite, --force need --from-file"
        )
    async with command_session(args, out) as session:
        account, project = session.project_scope(args.account, args.project)
        subject = {"visitor_id": args.visitor_id, "user_account_id": args.user_account_id}
        plan = await planning.plan_revocation(session, account, project, **subject)
        plan = plan.with_reason(args.reason)
        if args.dry_run:
            render_dry_run(out, plan, plan.reason_refusal(session.settings))
            return EXIT_OK
        applied = await _apply(session, plan, confirmed=args.yes)
        revocation = applied.value
        if out.as_json:
            out.document(revocation.to_json())
        else:
            out.line(f"revocation: {revocation.outcome.value}")
            for label, value in (
                ("reportId", revocation.report_id),
                ("grantExpiresAt", revocation.grant_expires_at),
                ("grantRemainingAttempts", revocation.grant_remaining_attempts),
            ):
                if value is not None:
                    out.line(f"  {label}: {value}")
            if revocation.outcome.value == "unknown (retried)":
                out.line(
                    "  an earlier attempt may have withdrawn the grant before the "
                    "connection failed; the retry found nothing standing"
                )
        return EXIT_OK


async def cmd_thresholds(args: Args, out: Output) -> int:
    """``bottui thresholds set DIMENSION_ID [--name N] [--block X] [--challenge Y]``."""
    from bottui.api.client import build_thresholds
    from bottui.ops import plan as planning
    from bottui.ops.thresholds import check_rules, fill_thresholds

    async with command_session(args, out) as session:
        account, project = session.project_scope(args.account, args.project)
        filled = await fill_thresholds(
            session,
            account,
            project,
            args.dimension_id,
            name=args.name,
            block=args.block,
            challenge=args.challenge,
        )
        if filled.taken:
            out.message(filled.taken_words())
        thresholds = build_thresholds(filled.name, filled.block, filled.challenge)
        settings = session.settings.project_settings(account, project)
        for warning in check_rules(thresholds, settings, force=args.force):
            out.message(f"warning: {warning}")
        plan = await planning.plan_thresholds(
            session, account, project, args.dimension_id, thresholds
        )
        plan = with_for(plan.with_reason(args.reason), args)
        if args.dry_run:
            await warn_supersedes(out, session, plan)  # what the change would do to a revert
            render_dry_run(out, plan, plan.reason_refusal(session.settings))
            return EXIT_OK
        plan = await warn_recent(out, session, plan, ack=args.ack_collision)
        await _apply(session, plan, confirmed=args.yes)
        await say_timed(out, session, plan)
        if out.as_json:
            out.document(thresholds.to_json(args.dimension_id))
        else:
            out.line(
                f"dimension {show_id(args.dimension_id)} ({thresholds.name}): "
                f"block {thresholds.block}, challenge {thresholds.challenge}"
            )
        return EXIT_OK


async def cmd_undo(args: Args, out: Output) -> int:
    """``bottui undo [--kind limiter|thresholds] [--yes] [--dry-run]``."""
    from bottui.ops import undo

    async with command_session(args, out) as session:
        try:
            plan = await undo.find(session, args.kind)
        except undo.UndoRefused as exc:
            if exc.other is not None:
                exc.details += f" (to undo the last {exc.other} change instead: --kind {exc.other})"
            raise
        out.line(f"undo: {plan.summary()}")
        change = (await undo.plan_change(session, plan)).with_reason(args.reason)
        if args.dry_run:
            await warn_supersedes(out, session, change)  # what the change would do to a revert
            render_dry_run(out, change, change.reason_refusal(session.settings))
            return EXIT_OK
        change = await warn_recent(out, session, change, ack=args.ack_collision)
        # The rule first (read-only: refused; no reason where one is required;
        # protected: --yes), then the question.
        confirmation.enforce(
            session.settings, change.confirmation, confirmed=args.yes, reason=change.reason
        )
        if not args.yes:
            terminal_confirm.confirm_on_terminal(out, "Send this undo?")
        applied = await undo.apply(session, plan, confirmed=True, change=change)
        if out.as_json:
            out.document({**plan.to_json(), "journalId": applied.journal_id})
        else:
            entry = (
                f"journal entry #{applied.journal_id}" if applied.journal_id else "not journaled"
            )
            out.line(
                f"undone: {plan.what} of {show_id(plan.account)}/{show_id(plan.project)} "
                f"is {plan.restored} again ({entry}, undoes #{plan.entry.id})"
            )
        return EXIT_OK


async def _apply(session: Session, plan: PlannedChange[T], *, confirmed: bool) -> Applied[T]:
    """Send ``plan`` as planned; the plan's rule decides (TYPED: ``--yes``, REFUSED: never)."""
    from bottui.ops import mutations

    return await mutations.apply(session, plan, confirmed=confirmed)
