"""What a timed change is, scheduling one, and what a person does with them: list, extend, cancel.

The schedule is journaled (:mod:`bottui.store.journal.journal_schema`): a change made
with ``revert_after`` gets its ``schedule`` event right after its *started*
record and before its request is sent (:func:`schedule_plan`, called by
:func:`bottui.ops.mutations.apply`), so no change is ever made without its
revert on record. A playbook run schedules the revert of its steps after
they ran (:func:`schedule_revert`). Extend and cancel are new events.

In team mode the events are pushed to the team store with the journal's
(:func:`bottui.ops.timed_record.push_events`), and :func:`list_timed` shows everyone's
(:func:`bottui.ops.timed_record.merged`).

A change of a rate limiter or dimension whose timed change has not reverted
yet makes that revert superseded: when due, it is skipped and nothing is sent
(:mod:`bottui.ops.revert`'s rule). The operator learns it in the change's
confirmation (TUI) or on stderr (CLI), not from a revert that silently does
not happen (#27 item 6): :func:`pending_for` finds them; :func:`lines` says it
in plain, cleaned words.

What a timed change is, read from its journal events: :class:`TimedChange`;
:func:`fold` turns the events (schedule, extends, cancel), the claim and the
result of each timed change into one :class:`TimedChange` with its state.
Nothing in it reads a store: :func:`list_timed` reads them.

Events are untrusted (in team mode anyone with INSERT on the store wrote
them): a schedule or an extend that is not one bottui can read (a field
missing or of another type, a due time outside any sane range) is skipped
and said through ``skip`` (event id, operator, why), and never stops the
others. A claim without a result for :data:`IN_DOUBT_AFTER` is *in doubt*
(:meth:`TimedChange.in_doubt`): its executor died after claiming (maybe
after sending), or someone else wrote the claim; a person resolves it
(:mod:`bottui.ops.timed.resolve`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec
from msgspec.structs import replace

from bottui.api.errors import RefusedError
from bottui.ops import timed_record
from bottui.ops.durations import MAX_DURATION, duration_text
from bottui.ops.journal_view import target_id, target_what, value_text
from bottui.ops.revert import superseded
from bottui.ops.timed_record import aimed_at, append_event, detail_of, now_of, push_events
from bottui.plaintext import clean
from bottui.store.journal.journal_records import EntryId, local_host
from bottui.store.journal.journal_rows import from_micros, micros
from bottui.store.journal.journal_timed import TimedClaim, TimedEvent
from bottui.store.store_errors import StoreError
from bottui.store.utc import parse_time, stamp

if TYPE_CHECKING:
    from bottui.ops.planning import PlannedChange
    from bottui.ops.session import Session

# -- what a timed change is, folded from its events ------------------------------------

TimedState = Literal[
    "scheduled",  # waits for its due time (or is due: see ``due``)
    "claimed",  # an executor claimed it and has not said how it ended (unfinished)
    "reverted",  # every change was put back
    "superseded",  # the object changed since: nothing (or not everything) was sent
    "cancelled",  # kept on purpose (``timed cancel``)
    "failed",  # the revert was answered with an error
    "unknown",  # the revert may or may not have arrived
    "resolved",  # a claim in doubt, settled by a person (`timed resolve --done`)
]
#: States after which nothing more happens.
DONE: Final = frozenset({"reverted", "superseded", "cancelled", "failed", "unknown", "resolved"})
#: A claim without a result for this long is in doubt: sending one revert takes
#: seconds (the API's retries end well within it).
IN_DOUBT_AFTER: Final = timedelta(minutes=10)
#: The years a due time may fall in (else the schedule is not one bottui can read).
_SANE_YEARS: Final = range(1970, 2100)
#: Told each event skipped, and why.
Skip = Callable[[TimedEvent, str], None]


class TimedChange(msgspec.Struct, frozen=True):
    """A change (or a playbook run's changes) that reverts at ``due_at``.

    ``id`` is what a person types (``timed extend ID``): the schedule's number
    in this machine's journal, or ``ORIGIN8:N`` for another machine's
    (the first 8 characters of that journal's origin). ``key`` is the full,
    unique one. Texts are untrusted: a face cleans them as it shows them.
    """

    id: str
    key: str
    #: Event ids (``ORIGIN:ID``) of the changes, in the order they were made.
    entries: tuple[str, ...]
    #: Their ids in this machine's journal (None for another machine's).
    entry_ids: tuple[int | None, ...]
    run_id: int | None
    profile: str
    base_url: str
    account: str
    project: str
    what: str
    revert_to: str
    due_at: datetime
    state: TimedState
    #: Who scheduled it (operator) and when.
    operator: str
    scheduled_at: datetime
    #: Confirmed when made (protected profiles): the revert needs no new confirmation.
    confirmed: bool = False
    executor: str | None = None
    superseded_by: str | None = None
    #: The claim's or the result's words (e.g. the error), when there is one.
    note: str | None = None
    #: Journal ids of the reverts sent (this machine's).
    reverts: tuple[int, ...] = ()
    #: ``revert_to`` was stated by the operator (``--revert-to``), not known to the inventory.
    revert_to_stated: bool = False
    #: When its revert was claimed (None: not claimed; the epoch: a time not sane).
    claimed_at: datetime | None = None

    def in_doubt(self, now: datetime) -> bool:
        """Claimed, no result, and for :data:`IN_DOUBT_AFTER` already: a person decides."""
        return (
            self.state == "claimed"
            and self.claimed_at is not None
            and now - self.claimed_at >= IN_DOUBT_AFTER
        )

    def shown_state(self, now: datetime) -> str:
        """The state as a person reads it: ``in doubt`` for a claim in doubt."""
        return "in doubt" if self.in_doubt(now) else self.state

    #: The state is foreseen, not yet recorded: still scheduled in the journal, but the
    #: object changed since, so its revert will be skipped as superseded when due
    #: (:func:`bottui.ops.timed.schedule.list_timed`). Every view says superseded.
    foreseen: bool = False

    @property
    def done(self) -> bool:
        """True when nothing more will happen to it (a foreseen end has yet to be recorded)."""
        return self.state in DONE and not self.foreseen

    @property
    def pending(self) -> bool:
        """True while a revert is going to be sent when due: scheduled, and not superseded."""
        return self.state == "scheduled"

    @property
    def open(self) -> bool:
        """True while its end is still to be recorded by a run (scheduled, or foreseen)."""
        return self.state == "scheduled" or self.foreseen

    def due_in(self, now: datetime) -> timedelta:
        """Time until due (negative: overdue)."""
        return self.due_at - now

    def when_text(self, now: datetime) -> str:
        """``in 14m`` / ``late by 3m`` / ``2026-11-24 12:00 UTC`` for a finished one."""
        if self.done:
            return stamp(self.due_at)[:16].replace("T", " ") + " UTC"
        left = self.due_in(now)
        if left >= timedelta(0):
            return f"in {duration_text(left)}"
        return f"late by {duration_text(-left)}"

    def to_json(self, now: datetime) -> dict[str, Any]:
        """The timed change as ``bottui timed --json`` prints it (not cleaned)."""
        return {
            "id": self.id,
            "key": self.key,
            "state": self.state,
            "what": self.what,
            "revertTo": self.revert_to,
            "revertToStated": self.revert_to_stated,
            "account": self.account,
            "project": self.project,
            "dueAt": stamp(self.due_at),
            "dueInSeconds": int(self.due_in(now).total_seconds()),
            "entries": list(self.entries),
            "entryIds": list(self.entry_ids),
            "runId": self.run_id,
            "operator": self.operator,
            "executor": self.executor,
            "supersededBy": self.superseded_by,
            "note": self.note,
            "claimedAt": None if self.claimed_at is None else stamp(self.claimed_at),
            "inDoubt": self.in_doubt(now),
            "foreseen": self.foreseen,
        }


def short_id(key: str, origin: str | None) -> str:
    """The id a person types for ``key`` (``ORIGIN:tN``) from the journal of ``origin``."""
    head, _, number = key.rpartition(":t")
    return number if head == origin else f"{head[:8]}:{number}"


def _due(detail: Mapping[str, Any]) -> datetime:
    due = parse_time(str(detail["due_at"]))
    if due.year not in _SANE_YEARS:
        raise ValueError("its due time is outside any sane range")
    return due


def _schedule(
    key: str,
    schedule: TimedEvent,
    later: Iterable[TimedEvent],
    claim: TimedClaim | None,
    origin: str | None,
    skip: Skip,
) -> TimedChange:
    """One timed change; raises KeyError, TypeError or ValueError when the schedule is
    not one bottui can read (an extend that is not is skipped alone)."""
    detail = schedule.detail
    due = _due(detail)
    if not isinstance(detail["entries"], list) or not isinstance(detail["local"], list):
        raise TypeError("its entries are not a list")
    entries = tuple(str(e) for e in detail["entries"])
    local = list(detail["local"])
    if len(local) != len(entries) or not entries:
        raise ValueError("its entries and their ids do not match")
    run_id = detail.get("run_id")
    if run_id is not None and (isinstance(run_id, bool) or not isinstance(run_id, int)):
        raise TypeError("its run id is not a number")
    state: TimedState = "scheduled"
    why: object = None
    for event in sorted(later, key=lambda e: (e.at, e.event_id)):
        if event.kind == "extend":
            try:
                due = _due(event.detail)
            except (KeyError, TypeError, ValueError) as exc:
                skip(event, f"not an extend bottui can read: {exc}")
        elif event.kind == "cancel":
            state = "cancelled"
            why = event.detail.get("why")
    executor = superseded = note = None
    if why is not None:
        note = str(why)
    reverts: tuple[int, ...] = ()
    claimed_at = None
    if claim is not None:
        executor = claim.executor
        claimed_at = from_micros(claim.at)
        state = "claimed" if claim.state is None else _state(claim.state)
        found = claim.detail.get("note")
        note = None if found is None else str(found)
        by = claim.detail.get("superseded_by")
        superseded = None if by is None else str(by)
        sent = claim.detail.get("reverts", ())
        reverts = tuple(i for i in sent if isinstance(i, int)) if isinstance(sent, list) else ()
    mine = key.rpartition(":t")[0] == origin
    return TimedChange(
        id=short_id(key, origin),
        key=key,
        entries=entries,
        # Another journal's ids are not this one's.
        entry_ids=tuple(None if i is None or not mine else int(i) for i in local),
        run_id=run_id,
        profile=str(detail["profile"]),
        base_url=str(detail["base_url"]),
        account=str(detail["account"]),
        project=str(detail["project"]),
        what=str(detail["what"]),
        revert_to=str(detail["revert_to"]),
        due_at=due,
        state=state,
        operator=schedule.operator,
        scheduled_at=from_micros(schedule.at),
        confirmed=detail.get("confirmed", False) is True,
        executor=executor,
        superseded_by=superseded,
        note=note,
        reverts=reverts,
        revert_to_stated=detail.get("revert_to_stated", False) is True,
        claimed_at=claimed_at,
    )


def _ignore(_event: TimedEvent, _why: str) -> None:
    return None


def fold(
    events: Iterable[TimedEvent],
    claims: Mapping[str, TimedClaim],
    origin: str | None,
    skip: Skip = _ignore,
) -> list[TimedChange]:
    """One :class:`TimedChange` per schedule in ``events``, by due time (oldest events first).

    A schedule bottui cannot read is told to ``skip`` and left out; the rest go on.
    """
    schedules: dict[str, TimedEvent] = {}
    later: dict[str, list[TimedEvent]] = {}
    for event in events:
        if event.kind == "schedule":
            schedules.setdefault(event.timed, event)
        else:
            later.setdefault(event.timed, []).append(event)
    out = []
    for key, schedule in schedules.items():
        try:
            out.append(_schedule(key, schedule, later.get(key, ()), claims.get(key), origin, skip))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            skip(schedule, f"not a timed change bottui can read: {exc}")
    out.sort(key=lambda t: (t.due_at, t.key))
    return out


def _state(word: str) -> TimedState:
    known: dict[str, TimedState] = {
        "reverted": "reverted",
        "superseded": "superseded",
        "failed": "failed",
        "unknown": "unknown",
        "resolved": "resolved",
    }
    return known.get(word, "unknown")


# -- scheduling, and what a person does with them ---------------------------------------

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
    events, claims = await timed_record.merged(session, events, {c.timed: c for c in claim_list})
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
