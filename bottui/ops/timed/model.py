"""What a timed change is, read from its journal events: :class:`TimedChange`.

:func:`fold` turns the events (schedule, extends, cancel), the claim and the
result of each timed change into one :class:`TimedChange` with its state.
Nothing here reads a store: :mod:`bottui.ops.timed.schedule` reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from bottui.ops.durations import duration_text
from bottui.store.journal_codec import from_micros
from bottui.store.timed_sqlite import TimedClaim, TimedEvent
from bottui.store.utc import parse_time, stamp

TimedState = Literal[
    "scheduled",  # waits for its due time (or is due: see ``due``)
    "claimed",  # an executor claimed it and has not said how it ended (unfinished)
    "reverted",  # every change was put back
    "superseded",  # the object changed since: nothing (or not everything) was sent
    "cancelled",  # kept on purpose (``timed cancel``)
    "failed",  # the revert was answered with an error
    "unknown",  # the revert may or may not have arrived
]
#: States after which nothing more happens.
DONE: Final = frozenset({"reverted", "superseded", "cancelled", "failed", "unknown"})


@dataclass(frozen=True)
class TimedChange:
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

    @property
    def done(self) -> bool:
        """True when nothing more will happen to it."""
        return self.state in DONE

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
        }


def short_id(key: str, origin: str | None) -> str:
    """The id a person types for ``key`` (``ORIGIN:tN``) from the journal of ``origin``."""
    head, _, number = key.rpartition(":t")
    return number if head == origin else f"{head[:8]}:{number}"


def fold(
    events: Iterable[TimedEvent],
    claims: Mapping[str, TimedClaim],
    origin: str | None,
) -> list[TimedChange]:
    """One :class:`TimedChange` per schedule in ``events``, by due time (oldest events first)."""
    schedules: dict[str, TimedEvent] = {}
    later: dict[str, list[TimedEvent]] = {}
    for event in events:
        if event.kind == "schedule":
            schedules.setdefault(event.timed, event)
        else:
            later.setdefault(event.timed, []).append(event)
    out = []
    for key, schedule in schedules.items():
        detail = schedule.detail
        due = parse_time(str(detail["due_at"]))
        state: TimedState = "scheduled"
        why: str | None = None
        for event in sorted(later.get(key, ()), key=lambda e: (e.at, e.event_id)):
            if event.kind == "extend":
                due = parse_time(str(event.detail["due_at"]))
            elif event.kind == "cancel":
                state = "cancelled"
                why = event.detail.get("why")
        claim = claims.get(key)
        executor = superseded = None
        note = None if why is None else str(why)
        reverts: tuple[int, ...] = ()
        if claim is not None:
            executor = claim.executor
            state = "claimed" if claim.state is None else _state(claim.state)
            note = claim.detail.get("note")
            superseded = claim.detail.get("superseded_by")
            reverts = tuple(int(i) for i in claim.detail.get("reverts", ()))
        mine = key.rpartition(":t")[0] == origin
        out.append(
            TimedChange(
                id=short_id(key, origin),
                key=key,
                entries=tuple(str(e) for e in detail["entries"]),
                # Another journal's ids are not this one's.
                entry_ids=tuple(None if i is None or not mine else int(i) for i in detail["local"]),
                run_id=detail.get("run_id"),
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
                confirmed=bool(detail.get("confirmed", False)),
                executor=executor,
                superseded_by=superseded,
                note=note,
                reverts=reverts,
                revert_to_stated=bool(detail.get("revert_to_stated", False)),
            )
        )
    out.sort(key=lambda t: (t.due_at, t.key))
    return out


def _state(word: str) -> TimedState:
    known: dict[str, TimedState] = {
        "reverted": "reverted",
        "superseded": "superseded",
        "failed": "failed",
        "unknown": "unknown",
    }
    return known.get(word, "unknown")


__all__ = ["DONE", "TimedChange", "TimedState", "fold", "short_id"]
