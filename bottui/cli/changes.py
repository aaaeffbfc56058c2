"""The commands that change a setting: ``limiter``, ``thresholds``, ``undo``; their parsers.

Each plans its request with :mod:`bottui.ops`, prints it under ``--dry-run``
(sending nothing, :func:`render_dry_run`), or applies it (journaled, guarded
by the read-only and protected rules of the session) and prints the result.
``revoke`` is :mod:`bottui.cli.revoke`.

A limiter or threshold change is timed by ``--for DURATION`` (:func:`add_for`)
with the value to revert to when the inventory does not know it
(``--revert-to on|off``; ``--revert-to-block`` and ``--revert-to-challenge``).
:func:`with_for` times a plan before it is confirmed, to the value before or
the one stated (refused, exit 2, for an unknown value not stated, or a stated
one the inventory contradicts: :mod:`bottui.ops.revert`); :func:`say_timed`
says after the change when it reverts, warns when no executor is known, and,
under a protected profile, that the revert was confirmed with the change.
``bottui timed`` and ``run-due`` are :mod:`bottui.cli.timed_cmd`.

Before a limiter or threshold change is sent, stderr says who else changed
the same target in the last 15 minutes (:func:`warn_recent`, #13; or that the
check could not be made: the change is never blocked by the team store).
Under a protected profile the warning must be seen before the change is
confirmed, and ``--yes`` was typed before it could be: the question is asked
again on the terminal after the warning, and without a terminal nothing is
sent (exit 2). A change that supersedes a pending timed revert says so first
(#27: "warning: This supersedes timed change 1 (...): its revert will not be sent.").
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from bottui.api.client import build_thresholds
from bottui.api.errors import EXIT_OK
from bottui.api.models import SECRET_MASK
from bottui.cli import output
from bottui.cli.command_session import command_session
from bottui.cli.output import Output, UsageError
from bottui.cli.parser import (
    CHANGE,
    IDS,
    Args,
    add_ack_collision,
    add_reason,
    command,
    duration,
    group_of,
)
from bottui.ops import collisions, confirmation, mutations, planning, undo
from bottui.ops.confirmation import ConfirmKind
from bottui.ops.durations import duration_text
from bottui.ops.revert import limiter_value, thresholds_value, with_revert_to
from bottui.ops.thresholds import check_rules, fill_thresholds
from bottui.ops.timed.schedule import (
    NO_EXECUTOR_WARNING,
    executor_known,
    list_timed,
    warning_lines,
)
from bottui.plaintext import clean, show_id
from bottui.store.utc import utc_text

if TYPE_CHECKING:
    from bottui.ops.mutations import Applied
    from bottui.ops.planning import PlannedChange
    from bottui.ops.session import Session

T = TypeVar("T")

_FOR_HELP: Final = (
    "revert to the value before after this long: 90s, 30m, 2h, 1d, 1h30m (at most 7d; "
    "default: never). Refused (exit 2, nothing sent) when the value before is not known "
    "and not stated"
)
_REVERT_TO_HELP: Final = (
    "with --for: the state to revert to, when the inventory does not know the one before "
    "(journaled as stated by you); refused (exit 2) when the inventory knows another one "
    "(default: the known value before)"
)
_REVERT_TO_THRESHOLD_HELP: Final = (
    "with --for, and --revert-to-{other}: the {which} threshold to revert to, when the "
    "inventory does not know the one before (the revert keeps --name; journaled as stated "
    "by you; refused, exit 2, when the inventory knows other values; default: the known ones)"
)

#: How an acknowledgement is journaled, by the means.
ACK_FLAG: Final = "--ack-collision"
ACK_TERMINAL: Final = "confirmed on a terminal after the warning"


async def cmd_limiter(args: Args, out: Output) -> int:
    """``bottui limiter enable|disable LIMITER_ID``."""
    async with command_session(args, out) as session:
        account, project = session.project_scope(args.account, args.project)
        is_active = args.action == "enable"
        plan = await planning.plan_limiter(session, account, project, args.limiter_id, is_active)
        applied = await send(args, out, session, plan)
        if applied is None:
            return EXIT_OK
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


async def cmd_thresholds(args: Args, out: Output) -> int:
    """``bottui thresholds set DIMENSION_ID [--name N] [--block X] [--challenge Y]``."""
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
        if await send(args, out, session, plan) is None:
            return EXIT_OK
        out.result(
            thresholds.to_json(args.dimension_id),
            f"dimension {show_id(args.dimension_id)} ({thresholds.name}): "
            f"block {thresholds.block}, challenge {thresholds.challenge}",
        )
        return EXIT_OK


async def cmd_undo(args: Args, out: Output) -> int:
    """``bottui undo [--kind limiter|thresholds] [--yes] [--dry-run]``."""
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
            output.confirm_on_terminal(out, "Send this undo?")
        applied = await undo.apply(session, plan, confirmed=True, change=change)
        entry = f"journal entry #{applied.journal_id}" if applied.journal_id else "not journaled"
        out.result(
            {**plan.to_json(), "journalId": applied.journal_id},
            f"undone: {plan.what} of {show_id(plan.account)}/{show_id(plan.project)} "
            f"is {plan.restored} again ({entry}, undoes #{plan.entry.id})",
        )
        return EXIT_OK


async def send(
    args: Args, out: Output, session: Session, plan: PlannedChange[T]
) -> Applied[T] | None:
    """A limiter or threshold change, timed by ``--for``: printed under ``--dry-run``
    (None), else sent after the warnings, and said when it reverts."""
    plan = with_for(plan.with_reason(args.reason), args)
    if args.dry_run:
        await warn_supersedes(out, session, plan)  # what the change would do to a revert
        render_dry_run(out, plan, plan.reason_refusal(session.settings))
        return None
    plan = await warn_recent(out, session, plan, ack=args.ack_collision)
    # The plan's rule decides (TYPED: --yes, REFUSED: never).
    applied = await mutations.apply(session, plan, confirmed=args.yes)
    await say_timed(out, session, plan)
    return applied


def with_for(plan: PlannedChange[T], args: Args) -> PlannedChange[T]:
    """``plan`` timed by ``--for``, reverting to the value ``--revert-to`` states when
    the inventory does not know it (refused, exit 2, when it cannot be)."""
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
        reverts += f" (timed change {newest.id}, due {utc_text(newest.due_at)})"
    out.message(f"timed: {reverts}")
    if session.settings.protected:
        out.message("timed: its revert was confirmed with this change (protected profile)")
    if await executor_known(session) is None:
        out.message(f"warning: {NO_EXECUTOR_WARNING}")


def render_dry_run(out: Output, plan: PlannedChange[Any], refused: str | None = None) -> None:
    """Print the plan's exact request(s) and an equivalent curl; the token stays a variable.

    ``refused`` says why sending it would be refused (``require_reason``
    without a reason): a dry run still shows the request, and says so.
    """
    if plan.revert_after is not None and plan.previous is not None:
        stated = " (stated)" if plan.previous.stated else ""
        out.message(
            f"timed: would revert to {clean(plan.previous.text)}{stated} after "
            f"{duration_text(plan.revert_after)}"
        )
    out.result(plan.dry_run_json(refused), plan.dry_run_lines())
    if refused is not None:
        out.message(f"dry run: would be refused: {clean(refused)}")
    if not out.as_json:
        out.message(planning.DRY_RUN_NOTE)


async def warn_supersedes(out: Output, session: Session, plan: PlannedChange[T]) -> None:
    """Say on stderr which pending timed reverts ``plan`` supersedes (nothing when none)."""
    for line in await warning_lines(session, plan):
        out.message(f"warning: {line}")


async def warn_recent(
    out: Output, session: Session, plan: PlannedChange[T], *, ack: bool = False
) -> PlannedChange[T]:
    """Print the warning on stderr; under a protected profile, confirm after it (or
    ``ack``: ``--ack-collision`` did). The plan to send: with the acknowledgement."""
    await warn_supersedes(out, session, plan)
    found = await collisions.check(session, plan)
    if found is None or not found.warns:
        return plan
    for line in found.lines():
        out.message(f"warning: {line}")
    if not found.changes:
        return plan
    if ack:
        out.message(f"collision acknowledged ({ACK_FLAG}): journaled with the change")
        return collisions.acknowledge(plan, found, ACK_FLAG)
    if plan.confirmation.kind is not ConfirmKind.TYPED:
        return plan
    try:
        output.confirm_on_terminal(out, "Someone else changed it lately. Send anyway?")
    except output.UsageError as exc:
        raise output.UsageError(
            "Not confirmed",
            "changed by someone else in the last 15 minutes, and this profile is"
            " protected: confirm on a terminal after reading the warning, or acknowledge it"
            f" with {ACK_FLAG}; nothing was sent"
            if "not a terminal" in exc.details
            else exc.details,
        ) from None
    return collisions.acknowledge(plan, found, ACK_TERMINAL)


# -- the parsers -------------------------------------------------------------------------


def add_for(sub: argparse.ArgumentParser, kind: Literal["limiter", "thresholds"]) -> None:
    """``--for`` on a change that can be timed, with the value to revert to when the
    inventory does not know it (``revoke`` has its own ``--for``, which it refuses)."""
    sub.add_argument(
        "--for", dest="for_", metavar="DURATION", type=duration, default=None, help=_FOR_HELP
    )
    if kind == "limiter":
        sub.add_argument("--revert-to", choices=["on", "off"], default=None, help=_REVERT_TO_HELP)
        return
    for which, other in (("block", "challenge"), ("challenge", "block")):
        sub.add_argument(
            f"--revert-to-{which}",
            metavar="NUMBER",
            default=None,
            help=_REVERT_TO_THRESHOLD_HELP.format(which=which, other=other),
        )


def _add_limiter(commands: Any) -> None:
    limiter_cmds = group_of(
        commands,
        "limiter",
        examples=[f"bottui limiter disable rl-login {IDS}", "bottui limiter enable --help"],
        exits=[0, 1, 2, 3, 4, 130],
    )
    for action in ("enable", "disable"):
        sub = command(
            limiter_cmds,
            action,
            f"{action} a rate limiter (project API token)",
            examples=[
                f"bottui limiter {action} rl-login {IDS}",
                f"bottui limiter {action} rl-login {IDS} --dry-run",
                f"bottui limiter {action} rl-login --profile prod --yes --reason INC-42",
            ],
            exits=[0, 1, 2, 3, 4, 130],
            common=CHANGE | {"show_secrets"},
        )
        sub.add_argument("limiter_id", metavar="LIMITER_ID", help="the rate limiter's id")
        add_reason(sub)
        add_ack_collision(sub)
        add_for(sub, "limiter")


def _add_thresholds(commands: Any) -> None:
    th_cmds = group_of(
        commands,
        "thresholds",
        examples=[
            f"bottui thresholds set bot-score {IDS} --name 'Bot score' "
            "--block 0.85 --challenge 0.5",
            "bottui thresholds set --help",
        ],
        exits=[0, 1, 2, 3, 4, 130],
    )
    th_set = command(
        th_cmds,
        "set",
        "replace a dimension's name and thresholds (what is not given: as known)",
        examples=[
            f"bottui thresholds set bot-score {IDS} --name 'Bot score' --block 0.85 "
            "--challenge 0.5",
            f"bottui thresholds set bot-score {IDS} --block 0.9",
            "bottui thresholds set bot-score --name 'Bot score' --block 0.9 --challenge 0.6 "
            "--dry-run",
        ],
        exits=[0, 1, 2, 3, 4, 130],
        common=CHANGE,
    )
    th_set.add_argument("dimension_id", metavar="DIMENSION_ID", help="the dimension's id")
    known = "(default: as the inventory knows it; refused when it does not)"
    th_set.add_argument("--name", help=f"the dimension's name {known}")
    th_set.add_argument("--block", metavar="NUMBER", help=f"block threshold {known}")
    th_set.add_argument("--challenge", metavar="NUMBER", help=f"challenge threshold {known}")
    th_set.add_argument(
        "--force",
        action="store_true",
        help="send even outside the profile's threshold range or direction",
    )
    add_reason(th_set)
    add_ack_collision(th_set)
    add_for(th_set, "thresholds")


def _add_undo(commands: Any) -> None:
    sub = command(
        commands,
        "undo",
        examples=["bottui undo --dry-run", "bottui undo --kind limiter --reason 'INC-42 over'"],
        exits=[0, 1, (2, "refused: nothing to undo, or it changed since"), 3, 4, 130],
        common=CHANGE,
    )
    sub.add_argument(
        "--kind",
        choices=["limiter", "thresholds"],
        help="which kind of change (default: the newer of the two)",
    )
    add_reason(sub)
    add_ack_collision(sub)


#: Each command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"limiter": _add_limiter, "thresholds": _add_thresholds, "undo": _add_undo}
