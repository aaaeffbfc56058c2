"""Scheduling timed changes, and what a person does with them: list, extend, cancel.

The schedule is journaled (:mod:`bottui.store.journal.journal_schema`): a change made
with ``revert_after`` gets its ``schedule`` event right after its *started*
record and before its request is sent (:func:`schedule_plan`, called by
:func:`bottui.ops.mutations.apply`), so no change is ever made without its
revert on record. A playbook run schedules the revert of its steps after
they ran (:func:`schedule_revert`). Extend and cancel are new events.

In team mode the events are pushed to the team store with the journal's
(:func:`bottui.ops.timed_record.push_events`), and :func:`list_timed` shows everyone's
(:mod:`bottui.ops.timed.team`).

A change of a rate limiter or dimension whose timed change has not reverted
yet makes that revert superseded: when due, it is skipped and nothing is sent
(:mod:`bottui.ops.revert`'s rule). The operator learns it in the change's
confirmation (TUI) or on stderr (CLI), not from a revert that silently does
not happen (#27 item 6): :func:`pending_for` finds them; :func:`lines` says it
in plain, cleaned words.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from msgspec.structs import replace

from bottui.api.errors import RefusedError
from bottui.ops.durations import MAX_DURATION, duration_text
from bottui.ops.journal_view import target_id, target_what, value_text
from bottui.ops.revert import superseded
from bottui.ops.timed import team
from bottui.ops.timed.timed_state import TimedChange, fold
from bottui.ops.timed_record import aimed_at, append_event, detail_of, now_of, push_events
from bottui.plaintext import clean
from bottui.store.journal.journal_records import EntryId, local_host
from bottui.store.journal.journal_rows import micros
from bottui.store.store_errors import StoreError
from bottui.store.utc import stamp

if TYPE_CHECKING:
    from bottui.ops.planning import PlannedChange
    from bottui.ops.session import Session
    from bottui.store.journal.journal_timed import TimedEvent

#: How recently an executor must have been seen to count as running (the TUI
#: records itself every minute).
SEEN_RECENTLY: Final = timedelta(minutes=5)
#: A ``run-due`` within this long counts as an installed timer.
TIMER_RECENTLY: Final = timedelta(days=1)
_EXECUTOR_WORDS: Final = {"tui": "TUI", "run-due": "timer"}


class TimedNotFound(RefusedError):
    """No timed change has that id (exit 2)."""

    title = "No such timed change"

    def __init__(self, details: str) -> None:
        super().__init__(None, details)


def executor_name(kind: str) -> str:
    """``timer on bastion-2``, ``TUI on laptop``: how an executor is journaled."""
    return f"{_EXECUTOR_WORDS.get(kind, kind)} on {local_host()}"


async def schedule_revert(
    session: Session,
    entry_ids: Sequence[int],
    run_id: int | None,
    due_at: datetime,
    *,
    confirmed: bool = False,
) -> TimedChange:
    """Schedule the revert of these journal entries (a playbook run's steps, in the
    order they were made; they are reverted in reverse order) at ``due_at``.

    ``confirmed``: the run was confirmed under a protected profile, which
    confirms its revert too.

    Raises:
        RefusedError: no entries, one that is not in this journal, or a due
            time more than :data:`~bottui.ops.durations.MAX_DURATION` away.
    """
    if not entry_ids:
        raise RefusedError("Nothing to schedule", "no journal entries were given")
    now = now_of(session)
    if due_at - now > MAX_DURATION:
        raise RefusedError(
            "Too far ahead", f"a revert is due within {duration_text(MAX_DURATION)} at most"
        )
    entries = []
    for entry_id in entry_ids:
        entry = await session.journal_store.entry(entry_id)  # type: ignore[arg-type]
        if entry is None:
            raise RefusedError("No such journal entry", f"#{entry_id} is not in the journal")
        entries.append(entry)
    origin = await session.timed_store.read(lambda j: j.origin())
    first = entries[0]
    targets = list(dict.fromkeys(target_id(e) for e in entries))
    if len(entries) == 1:
        what = target_what(first)
        revert_to = value_text(first.previous)
    else:
        what = f"{len(entries)} changes ({', '.join(targets[:3])}{'…' if len(targets) > 3 else ''})"
        revert_to = "the value before each"
    if run_id is not None:
        what = f"run {run_id}: {what}"
    detail = detail_of(
        session,
        entries=[(e.event_id or f"{origin}:{e.id}", e.id) for e in entries],
        run_id=run_id,
        account=first.account,
        project=first.project,
        what=what,
        revert_to=revert_to,
        due=due_at,
        confirmed=confirmed,
    )
    key = await append_event(session, "schedule", None, detail, now)
    return await find(session, key)


async def list_timed(
    session: Session, include_done: bool = False, *, now: datetime | None = None
) -> list[TimedChange]:
    """The timed changes of this session's profile and base URL, by due time (a
    teammate's: of this base URL).

    Finished ones (reverted, superseded, cancelled, failed, unknown) only
    with ``include_done``. In team mode, every machine's (the team store's
    and this journal's not yet pushed), when the store answers.
    """
    events, claim_list, origin = await session.timed_store.read(
        lambda j: (j.events(include_done=True), j.claims(), j.origin())
    )
    events, claims = await team.merged(session, events, {c.timed: c for c in claim_list})
    profile, base = session.settings.inventory_scope, session.settings.base_url
    # This machine's by profile; a teammate's (profiles are per machine) by base URL.

    def skip(event: TimedEvent, why: str) -> None:
        session.warn_once(
            f"skipped timed event {clean(event.event_id)} by {clean(event.operator)}: {clean(why)}"
        )

    found = [
        t
        for t in fold(events, claims, origin, skip)
        if (t.profile == profile or not t.key.startswith(f"{origin}:"))
        and (base is None or t.base_url == base)
    ]
    found = [await foresee(session, t) if t.state == "scheduled" else t for t in found]
    return [t for t in found if include_done or not t.done]


async def foresee(session: Session, timed: TimedChange) -> TimedChange:
    """``timed`` as superseded (foreseen) when its object changed since; else as it is.

    The superseded rule the revert applies when due (:func:`bottui.ops.revert.superseded`),
    read only, against this journal (a run looks at the team's too). Its
    entries of another machine are not read here: the run decides for them.
    """
    local = [i for i in timed.entry_ids if i is not None]
    if not local or len(local) != len(timed.entry_ids):
        return timed
    try:
        step = await superseded(session, local)
    except StoreError:
        return timed
    if step is None:
        return timed
    by = step.superseded_by or "a newer change"
    return replace(
        timed,
        state="superseded",
        foreseen=True,
        superseded_by=by,
        note=f"changed since ({by}): its revert will not be sent",
    )


async def find(session: Session, id_or_key: str) -> TimedChange:
    """The timed change ``id_or_key`` names (finished ones too).

    Raises:
        TimedNotFound: none of this profile has that id.
    """
    wanted = id_or_key.strip()
    for timed in await list_timed(session, include_done=True):
        if wanted in (timed.id, timed.key):
            return timed
    raise TimedNotFound(
        f"no timed change {wanted!r} in profile {session.settings.inventory_scope!r}: "
        "`bottui timed` lists them"
    )


def _still_open(timed: TimedChange, doing: str) -> None:
    if timed.state != "scheduled":
        raise RefusedError(
            f"Cannot {doing}",
            f"timed change {timed.id} is {timed.state}"
            + (f" by {timed.superseded_by}" if timed.superseded_by else "")
            + (f" (by {timed.executor})" if timed.executor else "")
            + ": nothing was changed",
        )


async def extend(
    session: Session, id_or_key: str, by: timedelta, *, now: datetime | None = None
) -> TimedChange:
    """Move the revert of ``id_or_key`` ``by`` later (a new ``extend`` event).

    From its due time, or from now when it is overdue; at most
    :data:`~bottui.ops.durations.MAX_DURATION` from now.

    Raises:
        TimedNotFound, RefusedError: no such timed change, it is no longer
            scheduled, or the new time is too far ahead.
    """
    session.check_may_change(confirmed=True)
    timed = await find(session, id_or_key)
    _still_open(timed, "extend")
    moment = now_of(session, now)
    due = max(timed.due_at, moment) + by
    if due - moment > MAX_DURATION:
        raise RefusedError(
            "Too far ahead",
            f"that would revert in {duration_text(due - moment)}: at most "
            f"{duration_text(MAX_DURATION)} from now; nothing was changed",
        )
    detail = {"due_at": stamp(due), "by": int(by.total_seconds())}
    await append_event(session, "extend", timed.key, detail, moment)
    await push_events(session)
    return await find(session, timed.key)


async def cancel(session: Session, id_or_key: str, *, now: datetime | None = None) -> TimedChange:
    """Keep the change: its revert will not happen (a new ``cancel`` event).

    Raises:
        TimedNotFound, RefusedError: no such timed change, or it is no longer scheduled.
    """
    session.check_may_change(confirmed=True)
    timed = await find(session, id_or_key)
    _still_open(timed, "cancel")
    await append_event(session, "cancel", timed.key, {}, now_of(session, now))
    await push_events(session)
    return await find(session, timed.key)


async def executor_seen(session: Session, kind: str, now: datetime | None = None) -> None:
    """Record that an executor of ``kind`` (``tui``, ``run-due``) runs on this machine now."""
    name, at = executor_name(kind), micros(now_of(session, now))
    await session.timed_store.write(lambda j: j.seen(kind, name, at=at))


async def executor_known(session: Session, now: datetime | None = None) -> str | None:
    """An executor that will perform reverts, or None when none is known.

    Known: a TUI seen within :data:`SEEN_RECENTLY`, or a ``run-due`` within
    :data:`TIMER_RECENTLY` (a timer installed and running), on this machine's
    journal.
    """
    moment = micros(now_of(session, now))
    seen = await session.timed_store.read(lambda j: j.last_seen())
    for kind, name, at in sorted(seen, key=lambda s: -s[2]):
        window = SEEN_RECENTLY if kind == "tui" else TIMER_RECENTLY
        if moment - at <= int(window.total_seconds() * 1_000_000):
            return name
    return None


NO_EXECUTOR_WARNING: Final = (
    "No executor is known: no TUI runs on this profile and no `bottui run-due` ran in the "
    "last day, so nothing will revert this change on time (see the docs: docs/timed.md)."
)

# -- which pending reverts a change supersedes (#27 item 6) ---------------------------------


async def _aims_at(session: Session, timed: TimedChange, noun: str, aim: str) -> bool:
    if timed.what == f"{noun} {aim}":
        return True
    for local in timed.entry_ids:  # a playbook run's: each change of this journal
        if local is None:
            continue
        entry = await session.journal_store.entry(EntryId(local))
        if entry is not None and target_id(entry) == aim:
            return True
    return False


async def pending_for(session: Session, plan: PlannedChange[Any]) -> list[TimedChange]:
    """The timed changes still going to revert that ``plan`` would supersede.

    Never raises for the journal: one that cannot be read finds none (the
    change itself says what is wrong with the journal).
    """
    aim = aimed_at(plan)
    if aim is None:
        return []
    noun, aim_id = aim
    try:
        pending = [
            t
            for t in await list_timed(session)
            if t.pending and (t.account, t.project) == (plan.account, plan.project)
        ]
        return [t for t in pending if await _aims_at(session, t, noun, aim_id)]
    except StoreError:
        return []


def lines(found: list[TimedChange], now: datetime) -> list[str]:
    """``This supersedes timed change 1 (rate limiter rl-login -> ON in 27m): ...``."""
    out = []
    for timed in found:
        out.append(
            f"This supersedes timed change {clean(timed.id)} ({clean(timed.what)} -> "
            f"{clean(timed.revert_to)} {timed.when_text(now)}): its revert will not be sent."
        )
    return out


async def warning_lines(session: Session, plan: PlannedChange[Any]) -> list[str]:
    """:func:`lines` of :func:`pending_for`, at the session's now."""
    return lines(await pending_for(session, plan), now_of(session))
