"""Performing due reverts: :func:`run_due` (``bottui run-due``, the TUI's timer) and
:func:`revert_now` (``bottui timed revert ID``).

For each revert: check the profile (read-only refuses; protected needs the
timed change's own confirmation, or the person's now), check lateness, then
CLAIM it (an INSERT, unique per revert, committed before anything is sent:
in the team store when there is one, so exactly one executor across
machines sends it; in this journal otherwise), revert its entries
(:func:`bottui.ops.revert.revert_entries`: newest first, superseded ones not
sent), and record the result. A claim without a result (a crash, a kill) is
shown as ``claimed`` and never sent again.

Lateness: a revert performed more than :data:`LATE_AFTER` after its due time
is reported late, with how late; one more than the profile's lateness limit
(``late_limit_minutes``, 1 h by default) late is not sent by :func:`run_due`
unless ``late_ok`` (it stays scheduled and is reported as ``late-skipped``).

A timed change that failed was unscheduled when it failed (a ``cancel``
event, :class:`bottui.ops.mutations._Schedule`); a playbook step that
changed nothing is ``unchanged`` in its run's revert. An unknown or missing
outcome is reported as ``in-doubt`` and left scheduled: only a person
decides (``timed cancel`` after checking the value). So is a claim without a
result for :data:`~bottui.ops.timed.schedule.IN_DOUBT_AFTER` (its executor was
killed after claiming, maybe after sending; or someone else wrote the
claim): every ``run-due`` reports it (exit 2) until a person resolves it
(``timed resolve``, :mod:`bottui.ops.timed.resolve`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec

from bottui.api.errors import RefusedError
from bottui.ops import confirmation, mutations, timed_record
from bottui.ops.durations import duration_text
from bottui.ops.revert import RevertReport, revert_entries
from bottui.ops.timed.schedule import TimedChange, executor_name, executor_seen, find, list_timed
from bottui.ops.timed_record import now_of
from bottui.store.journal.journal_records import EntryId, JournalEntry, Outcome
from bottui.store.journal.journal_rows import micros
from bottui.store.store_errors import StoreError
from bottui.store.utc import utc_text

if TYPE_CHECKING:
    from bottui.ops.session import Session

#: Performed later than this after its due time: reported as late.
LATE_AFTER: Final = timedelta(minutes=2)
#: A profile's lateness limit when it sets none.
DEFAULT_LATE_LIMIT: Final = timedelta(hours=1)

Action = Literal[
    "reverted",
    "superseded",
    "failed",
    "unknown",
    "refused",
    "late-skipped",
    "in-doubt",
    "claimed-elsewhere",
]


class DueReport(msgspec.Struct, frozen=True):
    """What one executor did with one due timed change (texts not cleaned)."""

    timed: TimedChange
    action: Action
    #: How late it was performed (or skipped); None: on time.
    late: timedelta | None
    message: str
    revert: RevertReport | None = None

    @property
    def line(self) -> str:
        """One line for a person: ``#3 rate limiter rl-login: reverted to ON (late by 5m)``."""
        late = f" (late by {duration_text(self.late)})" if self.late is not None else ""
        return f"timed {self.timed.id} {self.timed.what}: {self.action}{late}: {self.message}"

    @property
    def sent(self) -> bool:
        """True when a revert request was sent."""
        return self.revert is not None and bool(self.revert.reverts)

    def to_json(self) -> dict[str, Any]:
        """As ``run-due --json`` prints it."""
        return {
            "id": self.timed.id,
            "key": self.timed.key,
            "what": self.timed.what,
            "action": self.action,
            "lateSeconds": None if self.late is None else int(self.late.total_seconds()),
            "message": self.message,
            "steps": [] if self.revert is None else [s.to_json() for s in self.revert.steps],
        }


def late_limit(session: Session) -> timedelta:
    """The profile's lateness limit (``late_limit_minutes``; 1 h when unset)."""
    minutes = session.settings.late_limit_minutes
    return DEFAULT_LATE_LIMIT if minutes is None else timedelta(minutes=minutes)


async def run_due(
    session: Session,
    *,
    now: datetime | None = None,
    executor: str | None = None,
    late_ok: bool = False,
    kind: str = "run-due",
) -> list[DueReport]:
    """Perform every revert of this profile that is due at ``now`` (the clock's when None).

    Records the run under ``kind`` (``"run-due"``: a timer, known for a day;
    ``"tui"``: a running TUI, known for minutes; see
    :func:`~bottui.ops.timed.schedule.executor_known`), so a TUI's rounds never
    pass for an installed timer. One report per due timed change; nothing
    raises for one change's sake.
    """
    moment = now_of(session, now)
    who = executor or executor_name(kind)
    await executor_seen(session, kind, now=moment)
    pending = await list_timed(session, now=moment)
    # A foreseen superseded one too: the run records how it ended.
    due = [t for t in pending if t.open]
    reports = [_doubt(t, moment) for t in pending if t.in_doubt(moment)]
    with mutations.sent_by("executor"):  # waited for before quitting, not asked about
        for timed in due:
            if timed.due_at > moment:
                continue
            reports.append(
                await _perform(session, timed, moment, who, late_ok=late_ok, person=False)
            )
    return reports


async def revert_now(
    session: Session,
    id_or_key: str,
    *,
    executor: str | None = None,
    confirmed: bool = False,
    now: datetime | None = None,
) -> DueReport:
    """Revert ``id_or_key`` now, before its due time or late (a person asked).

    ``confirmed``: the person confirmed now (protected profiles).

    Raises:
        TimedNotFound, RefusedError: no such timed change, it is no longer
            scheduled, read-only, or protected and not confirmed by either.
    """
    moment = now_of(session, now)
    timed = await find(session, id_or_key)
    if timed.state != "scheduled":
        by = f" by {timed.superseded_by}" if timed.superseded_by else ""
        raise RefusedError(
            "Cannot revert",
            f"timed change {timed.id} is {timed.state}{by}: nothing was sent",
        )
    who = executor or executor_name("cli")
    report = await _perform(
        session, timed, moment, who, late_ok=True, person=True, confirmed=confirmed
    )
    if report.action == "refused":
        raise RefusedError("Refused", report.message)
    return report


async def _perform(
    session: Session,
    timed: TimedChange,
    moment: datetime,
    who: str,
    *,
    late_ok: bool,
    person: bool,
    confirmed: bool = False,
) -> DueReport:
    late = lateness(timed, moment)
    ok_confirmed = confirmed or timed.confirmed
    try:
        confirmation.enforce(session.settings, confirmed=ok_confirmed)
    except RefusedError as exc:
        why = exc.details or exc.title
        if exc.title == "Protected profile":
            why = (
                f"profile {session.settings.profile_name} is protected and this timed change "
                "was not confirmed when it was made: revert it by hand (`bottui timed revert "
                f"{timed.id} --yes`); nothing was sent"
            )
        return DueReport(timed, "refused", late, why)
    # A foreseen superseded one sends nothing: not "too late to send blindly" either.
    too_late = late is not None and late > late_limit(session) and not timed.foreseen
    if not person and too_late and not late_ok:
        return DueReport(
            timed,
            "late-skipped",
            late,
            f"past the profile's lateness limit ({duration_text(late_limit(session))}): "
            "not sent blindly; `bottui run-due --late-ok` sends it, "
            f"`bottui timed cancel {timed.id}` keeps the change",
        )
    try:
        entries = await timed_entries(session, timed)
    except (RefusedError, StoreError) as exc:
        return DueReport(timed, "refused", late, exc.details or exc.title)
    doubt = next((e for e in entries if isinstance(e, JournalEntry) and _in_doubt(e)), None)
    if doubt is not None and not person:
        return DueReport(
            timed,
            "in-doubt",
            late,
            f"whether journal entry #{doubt.id} changed anything is not known "
            f"({doubt.outcome or 'no outcome'}): not sent; check its value now and "
            f"`bottui timed cancel {timed.id}` (or change it by hand)",
        )
    try:
        won = await timed_record.claim(session, timed.key, executor=who, at=micros(moment))
    except StoreError as exc:
        return DueReport(timed, "refused", late, f"{exc.title}: not claimed, so nothing was sent")
    if not won:
        return DueReport(timed, "claimed-elsewhere", late, "another executor claimed it first")
    return await send_revert(
        session, timed, moment, who, late, confirmed=ok_confirmed, entries=entries
    )


def revert_reason(timed: TimedChange) -> str:
    """The reason journaled with a timed change's revert (the same on every machine)."""
    return f"timed change {timed.id} ({timed.what}) due {timed.due_at.isoformat()[:19]}Z"


async def send_revert(
    session: Session,
    timed: TimedChange,
    moment: datetime,
    who: str,
    late: timedelta | None,
    *,
    confirmed: bool,
    extra: dict[str, Any] | None = None,
    entries: list[int | JournalEntry] | None = None,
    attempts: Sequence[JournalEntry] = (),
) -> DueReport:
    """Revert ``timed``'s entries (claimed already) and record how it ended on its key."""
    if entries is None:
        try:
            entries = await timed_entries(session, timed)
        except (RefusedError, StoreError) as exc:
            await timed_record.record(
                session, timed.key, "failed", {"note": exc.details}, micros(moment)
            )
            return DueReport(timed, "refused", late, exc.details or exc.title)
    pages = await timed_record.pages(session)
    try:
        report = await revert_entries(
            session,
            entries,
            executor=who,
            reason=revert_reason(timed),
            confirmed=confirmed,
            pages=pages,
            attempts=attempts,
        )
    except RefusedError as exc:
        # Refused before sending (the profile changed since the check): nothing was sent.
        # A store failure is not caught here: it may come after a request was sent.
        await timed_record.record(
            session, timed.key, "failed", {"note": exc.details}, micros(moment)
        )
        return DueReport(timed, "refused", late, exc.details or exc.title)
    state = report.state if report.state != "refused" else "failed"
    detail = {
        "note": report.message or None,
        "superseded_by": report.superseded_by,
        "reverts": list(report.reverts),
        "late_seconds": None if late is None else int(late.total_seconds()),
        **(extra or {}),
    }
    await timed_record.record(session, timed.key, state, detail, micros(now_of(session)))
    action: Action = state
    if state == "superseded":
        message = f"superseded by {report.superseded_by}: {report.message}"
    elif state == "reverted" and not report.reverts:
        message = "nothing to revert: the change changed nothing"
    elif state == "reverted":
        message = f"back to {timed.revert_to}"
    else:
        message = report.message
    return DueReport(timed, action, late, message, report)


def doubt_text(timed: TimedChange) -> str:
    """Why a claim is in doubt, and what a person does about it."""
    when = timed.claimed_at
    at = (
        "at a time that is not sane" if when is None or when.year < 1971 else f"at {utc_text(when)}"
    )
    return (
        f"claimed by {timed.executor or '?'} {at} and no outcome since: the revert may or "
        "may not have been sent (its executor stopped, or someone else claimed it); check "
        f"{timed.what} now, then `bottui timed resolve {timed.id} --done` (it is as it "
        f"should be) or `--resend` (send the revert again)"
    )


def lateness(timed: TimedChange, moment: datetime) -> timedelta | None:
    """How late a revert performed at ``moment`` is (None: on time, within :data:`LATE_AFTER`)."""
    late = moment - timed.due_at
    return late if late > LATE_AFTER else None


def _doubt(timed: TimedChange, moment: datetime) -> DueReport:
    return DueReport(timed, "in-doubt", lateness(timed, moment), doubt_text(timed))


def _in_doubt(entry: JournalEntry) -> bool:
    return entry.unfinished or entry.outcome == Outcome.UNKNOWN


async def timed_entries(session: Session, timed: TimedChange) -> list[int | JournalEntry]:
    """The timed change's entries: this journal's by id, a teammate's from the team store."""
    out: list[int | JournalEntry] = []
    foreign = [e for e, local in zip(timed.entries, timed.entry_ids, strict=True) if local is None]
    shared = await timed_record.entries(session, foreign) if foreign else {}
    for event, local in zip(timed.entries, timed.entry_ids, strict=True):
        if local is not None:
            entry = await session.journal_store.entry(EntryId(local))
            out.append(entry if entry is not None else local)
        else:
            found = shared.get(event)
            if found is None:
                raise RefusedError(
                    "Entry not shared yet",
                    f"journal entry {event} is not in the team store yet: nothing was sent",
                )
            out.append(found)
    return out
