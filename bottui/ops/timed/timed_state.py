"""What a timed change is, read from its journal events: :class:`TimedChange`.

:func:`fold` turns the events (schedule, extends, cancel), the claim and the
result of each timed change into one :class:`TimedChange` with its state.
Nothing here reads a store: :mod:`bottui.ops.timed.schedule` reads them.

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

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Final, Literal

import msgspec

from bottui.ops.durations import duration_text
from bottui.store.journal.journal_rows import from_micros
from bottui.store.journal.journal_timed import TimedClaim, TimedEvent
from bottui.store.utc import parse_time, stamp

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
