"""Resolving a claim in doubt: ``bottui timed resolve ID`` (and the Timed screen's ``v``).

A claim without a result for :data:`~bottui.ops.timed.schedule.IN_DOUBT_AFTER`
is in doubt: its executor was killed after claiming (maybe after sending),
or someone else wrote the claim. Nothing sends it again by itself; a person
checks, then decides:

* ``check`` (the default): what is known, read-only: who claimed it and when,
  and the journal's entries of its revert (the executor journals the revert
  before sending it, so an entry without an outcome means it may have
  arrived);
* ``done``: the value is as it should be (checked by the person): the claim
  is settled as ``resolved``; nothing is sent. Refused under a read-only
  profile, like ``timed cancel``;
* ``resend``: send the revert again, deliberately: the same rules as any
  change (read-only refuses; a protected profile wants ``--yes`` now: the
  confirmation given with the change does not cover a second send). One
  resolver at a time: a resend is claimed first (``KEY#resendN``, unique
  like every claim), so two operators resolving at once never both send.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Final, Literal

import msgspec

from bottui.api.errors import RefusedError
from bottui.ops import confirmation, mutations, timed_record
from bottui.ops.durations import duration_text
from bottui.ops.timed.execute import (
    DueReport,
    doubt_text,
    lateness,
    revert_reason,
    send_revert,
)
from bottui.ops.timed.schedule import IN_DOUBT_AFTER, TimedChange, executor_name, find
from bottui.ops.timed_record import now_of
from bottui.store.journal.journal_records import EntryQuery, JournalEntry, local_operator
from bottui.store.journal.journal_rows import micros
from bottui.store.store_errors import StoreError

if TYPE_CHECKING:
    from bottui.ops.session import Session

How = Literal["check", "done", "resend"]
#: What a resend's claim key ends with, before its attempt number.
RESEND: Final = "#resend"


class Resolution(msgspec.Struct, frozen=True):
    """What ``timed resolve`` found (``check``) or did (``done``, ``resend``); texts not cleaned."""

    timed: TimedChange
    how: How
    #: The check's lines (every ``how``), for a person.
    lines: tuple[str, ...]
    #: The resend's report (``resend`` only).
    report: DueReport | None = None


async def _in_doubt(session: Session, id_or_key: str, moment: datetime) -> TimedChange:
    timed = await find(session, id_or_key)
    if timed.state != "claimed":
        raise RefusedError(
            "Nothing to resolve",
            f"timed change {timed.id} is {timed.state}, not a claim in doubt: nothing was changed",
        )
    if not timed.in_doubt(moment):
        raise RefusedError(
            "Not in doubt yet",
            f"timed change {timed.id} was claimed by {timed.executor} less than "
            f"{duration_text(IN_DOUBT_AFTER)} ago: its executor may still be sending it; "
            "nothing was changed",
        )
    return timed


async def _check(
    session: Session, timed: TimedChange
) -> tuple[tuple[str, ...], tuple[JournalEntry, ...]]:
    """The check's lines, and the journal's entries of earlier attempts at its revert."""
    lines = [
        f"timed change {timed.id}: {timed.what} of {timed.account}/{timed.project}, "
        f"reverts to {timed.revert_to}",
        doubt_text(timed),
    ]
    pages = await timed_record.pages(session) or session.journal_store
    try:
        # The part of the revert's reason every machine writes alike (the id differs).
        part = revert_reason(timed).partition(" (")[2]
        page = await pages.page(
            EntryQuery(reason=part, account=timed.account, project=timed.project), limit=20
        )
    except StoreError as exc:
        lines.append(f"its revert could not be looked for in the journal: {exc.title}")
        return tuple(lines), ()
    attempts = tuple(e for e in page.entries if e.undo_of is not None)
    if not attempts:
        lines.append("the journal holds no revert of it: it was most likely never sent")
    for entry in attempts:
        lines.append(
            f"journal entry {entry.id}: {entry.operation} started {entry.started_at} "
            f"by {entry.operator}: {entry.outcome or 'no outcome (it may have arrived)'}"
        )
    return tuple(lines), attempts


async def resolve(
    session: Session,
    id_or_key: str,
    how: How = "check",
    *,
    confirmed: bool = False,
    now: datetime | None = None,
) -> Resolution:
    """Check, settle (``done``) or re-send (``resend``) the claim in doubt ``id_or_key``.

    Raises:
        TimedNotFound, RefusedError: no such timed change, not a claim in doubt,
            or the profile refuses (read-only; protected without ``confirmed``
            for a resend); another operator is re-sending it now.
    """
    moment = now_of(session, now)
    timed = await _in_doubt(session, id_or_key, moment)
    lines, attempts = await _check(session, timed)
    if how == "check":
        return Resolution(timed, how, lines)
    operator = session.settings.operator or local_operator()
    if how == "done":
        session.check_may_change(confirmed=True)
        await _mirror(session, timed, moment)
        detail = {
            "note": f"resolved by {operator}: checked, left as it is",
            "resolved_by": operator,
        }
        await timed_record.record(session, timed.key, "resolved", detail, micros(moment))
        return Resolution(await find(session, timed.key), how, lines)
    confirmation.enforce(session.settings, confirmed=confirmed)
    who = executor_name("cli")
    attempt = await _resend_claim(session, timed, who, moment)
    await _mirror(session, timed, moment)
    with mutations.sent_by("executor"):
        report = await send_revert(
            session,
            timed,
            moment,
            who,
            lateness(timed, moment),
            confirmed=True,
            extra={"resent_by": operator, "resend": attempt},
            # its own earlier attempts are not changes since: the person re-sends it
            attempts=attempts,
        )
    return Resolution(timed, how, lines, report)


async def _resend_claim(session: Session, timed: TimedChange, who: str, moment: datetime) -> str:
    """Claim the next resend of ``timed`` (its key); refused when another one has it."""
    local = await session.timed_store.read(lambda j: j.claims())
    _, claims = await timed_record.merged(session, [], {c.timed: c for c in local})
    earlier = [c for key, c in claims.items() if key.startswith(timed.key + RESEND)]
    recent = micros(moment - IN_DOUBT_AFTER)
    if any(c.at > recent for c in earlier):
        raise RefusedError(
            "Being resolved",
            f"timed change {timed.id} was re-sent less than {duration_text(IN_DOUBT_AFTER)} "
            "ago and its outcome is not recorded yet: nothing was sent",
        )
    attempt = f"{timed.key}{RESEND}{len(earlier) + 1}"
    try:
        won = await timed_record.claim(session, attempt, executor=who, at=micros(moment))
    except StoreError as exc:
        raise RefusedError(exc.title, "the resend was not claimed, so nothing was sent") from None
    if not won:
        raise RefusedError(
            "Being resolved",
            f"another operator is re-sending timed change {timed.id} now: nothing was sent",
        )
    return attempt


async def _mirror(session: Session, timed: TimedChange, moment: datetime) -> None:
    """This journal holds the claim (a teammate's, or a stolen one), so its result can be."""
    executor = timed.executor or "?"
    at = micros(timed.claimed_at or moment)
    try:
        await session.timed_store.write(lambda j: j.claim(timed.key, at=at, executor=executor))
    except StoreError as exc:
        session.warn(f"the claim is not mirrored in this journal: {exc.title}")
