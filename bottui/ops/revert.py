"""Put journal entries back to their values before, newest first, never blindly.

:func:`revert_entries` is what a timed change's revert and a playbook run's
revert send: each entry (a rate limiter or threshold change) back to the
value before it, in REVERSE order, through :func:`bottui.ops.undo.plan_row` (the
undo of a journal row: same refusals, ``undo_of`` pointing at the entry) and
:func:`bottui.ops.mutations.apply` (read-only and protected rules, journal,
inventory).

The superseded rule: when the object changed since the entry (a newer
change in the journal that is not one of the entries being reverted nor a
revert made here, or an inventory value learnt after the entry that differs
from what the entry set), nothing is sent for it: the report says
"superseded by #N" (or "by the inventory"), and the reverting stops there,
so an older step is never put back under a change somebody made since.
The first error stops it too; what was not sent is listed.

The value a timed change reverts to, stated by the operator when the inventory does not
know it. A timed change reverts to the value before it (:attr:`PlannedChange.previous
<bottui.ops.planning.PlannedChange.previous>`); a rate limiter added by id, or a
dimension never changed with bottui, has none, so it could not be timed.
:func:`with_revert_to` lets the operator state that value (``--revert-to
on|off``, ``--revert-to-block X --revert-to-challenge Y``, the TUI dialog's
"Revert to"): the plan's ``previous`` becomes a :class:`~bottui.ops.planning.KnownValue`
marked ``stated``, and then ``plan.with_revert_after(duration)`` times it as
usual.

Where the inventory knows the value before, a stated value that agrees
changes nothing (the plan keeps the inventory's, with its date), and one
that disagrees is refused (exit 2, naming both): the inventory learnt its
value from a change or an import, and a revert to a value nobody checked
is not sent on one word; refresh the inventory (``bottui inventory
import``) or leave ``--revert-to`` out. A stated value equal to what the
change sets is refused too: the change could never revert.

Recorded: the journal entry's ``previous`` carries ``"stated": true``
(:attr:`~bottui.ops.planning.PlannedChange.previous_json`), the timed change's
schedule ``revert_to_stated`` (``revertToStated`` in ``bottui timed --json``).

A playbook run's revert: :func:`run_steps` finds a run's steps in the journal
(``playbook revert RUN_ID``), :func:`revert_steps` takes them from a run that
just stopped (the offer after a failure); :class:`PlaybookRevert` words the
report for both faces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

import msgspec
from msgspec.structs import replace

from bottui.api.client import build_thresholds
from bottui.api.errors import (
    EXIT_API,
    EXIT_NETWORK,
    EXIT_OK,
    EXIT_REFUSED,
    BottuiError,
    RefusedError,
)
from bottui.ops import mutations, undo
from bottui.ops.journal_view import target_id, target_what, value_text
from bottui.ops.planning import (
    KnownValue,
    LimiterTarget,
    PlannedChange,
    ThresholdsTarget,
    TimedRefused,
)
from bottui.ops.undo import NOUNS, UndoRefused, identity
from bottui.store.journal.journal_records import (
    NO_CHANGE_OUTCOMES,
    EntryId,
    EntryQuery,
    JournalEntry,
    Operation,
    Outcome,
    RunId,
    UndoKind,
    entry_started,
    local_operator,
    value_of,
)
from bottui.store.utc import stamp, system_clock

if TYPE_CHECKING:
    from bottui.ops.playbooks.playbook_run import RunSummary
    from bottui.ops.session import Session
    from bottui.store.journal.journal_records import JournalReader
    from bottui.store.journal.journal_store import SqliteJournalStore

# -- reverting journal entries ---------------------------------------------------------

StepState = Literal[
    "reverted", "unchanged", "superseded", "refused", "failed", "unknown", "not-sent"
]
RevertState = Literal["reverted", "superseded", "refused", "failed", "unknown"]


class StepResult(msgspec.Struct, frozen=True):
    """What happened to one entry's revert (texts not cleaned)."""

    entry: str
    entry_id: int | None
    what: str
    state: StepState
    #: The revert's journal entry, when one was sent.
    journal_id: int | None = None
    message: str = ""
    superseded_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        """As ``--json`` prints it."""
        return {
            "entry": self.entry,
            "entryId": self.entry_id,
            "what": self.what,
            "state": self.state,
            "journalId": self.journal_id,
            "message": self.message,
            "supersededBy": self.superseded_by,
        }


class RevertReport(msgspec.Struct, frozen=True):
    """How a revert of several entries ended: the worst step decides ``state``."""

    state: RevertState
    steps: tuple[StepResult, ...] = msgspec.field(default=())

    @property
    def superseded_by(self) -> str | None:
        """``#N`` (or ``the inventory``) when a step was superseded."""
        return next((s.superseded_by for s in self.steps if s.superseded_by), None)

    @property
    def reverts(self) -> tuple[int, ...]:
        """Journal ids of the reverts sent."""
        return tuple(s.journal_id for s in self.steps if s.journal_id is not None)

    @property
    def message(self) -> str:
        """The first step's message that is not a plain success."""
        return next((s.message for s in self.steps if s.state != "reverted" and s.message), "")


async def revert_entries(
    session: Session,
    entries: Sequence[int | JournalEntry],
    *,
    executor: str,
    reason: str,
    confirmed: bool = False,
    pages: JournalReader | SqliteJournalStore | None = None,
    attempts: Sequence[JournalEntry] = (),
) -> RevertReport:
    """Revert ``entries`` (given in the order they were made) newest first.

    Args:
        session: Its base URL must be the entries'.
        entries: This journal's ids, or entries (a teammate's, from the team store).
        executor: Who reverts, as the revert's reason names it ("timer on bastion-2").
        reason: Journaled with each revert (the executor is added to it).
        confirmed: Confirmed under a protected profile (by the person now, or
            when the timed change was confirmed).
        pages: Where newer changes are looked for (this journal unless given;
            the team's shared journal in team mode).
        attempts: Earlier attempts at this same revert (a person re-sends one in
            doubt, ``timed resolve --resend``): not changes "since" that supersede it.

    Raises:
        RefusedError: read-only, or protected and not ``confirmed`` (nothing sent).
    """
    why = f"{reason} (by {executor})"
    session.check_may_change(confirmed=confirmed, reason=why)
    look = pages if pages is not None else session.journal_store
    loaded = await _loaded(session, entries)
    ours = {identity(e) for e in loaded if e is not None}
    origin = await session.timed_store.read(lambda j: j.origin())
    sent: set[str] = {identity(e) for e in attempts}
    steps: list[StepResult] = []
    stopped = False
    for index in range(len(loaded) - 1, -1, -1):
        entry = loaded[index]
        given = entries[index]
        if entry is None:
            steps.append(StepResult(str(given), None, "?", "refused", message="not in the journal"))
            stopped = True
            continue
        what = target_what(entry)
        if stopped:
            steps.append(StepResult(identity(entry), entry.id, what, "not-sent"))
            continue
        step = await _revert_one(session, look, entry, ours, sent, why, confirmed)
        if step.journal_id is not None:
            # The revert is a change of the object too: not one "since" for older steps.
            sent.add(f"{origin}:{step.journal_id}")
        steps.append(step)
        stopped = step.state not in ("reverted", "unchanged")
    return RevertReport(_worst(steps), tuple(steps))


async def _loaded(
    session: Session, entries: Sequence[int | JournalEntry]
) -> list[JournalEntry | None]:
    """``entries`` as entries: an id is read from this journal (None: not in it)."""
    journal = session.journal_store
    return [e if isinstance(e, JournalEntry) else await journal.entry(EntryId(e)) for e in entries]


async def _check(
    session: Session,
    pages: JournalReader | SqliteJournalStore,
    entry: JournalEntry,
    ours: set[str],
    sent: set[str],
) -> StepResult | tuple[undo.RowUndo, PlannedChange[Any]]:
    """Why ``entry`` is not to be reverted (a step), or the revert to send (nothing sent)."""
    ident, what = identity(entry), target_what(entry)
    if entry.outcome in NO_CHANGE_OUTCOMES:
        return StepResult(ident, entry.id, what, "unchanged", message="it changed nothing")
    try:
        row = await undo.plan_row(session, pages, entry, (entry.account, entry.project))
    except UndoRefused as exc:
        return StepResult(ident, entry.id, what, "refused", message=exc.details)
    others = [e for e in row.since.entries if identity(e) not in ours and identity(e) not in sent]
    if others:
        newest = others[0]
        by = f"#{newest.id}"
        return StepResult(
            ident,
            entry.id,
            what,
            "superseded",
            message=f"{what} was changed since by {newest.operator} ({by}): not reverted",
            superseded_by=by,
        )
    change = await undo.plan_row_change(session, row)
    kind = row.plan.kind
    known = change.previous
    set_to = value_of(kind, entry.request_body)
    if (
        known is not None
        and known.known_at > stamp(entry_started(entry))
        and value_of(kind, known.value) != set_to
    ):
        return StepResult(
            ident,
            entry.id,
            what,
            "superseded",
            message=(
                f"{what} is {value_text(known.value)} per the inventory ({known.source}, "
                f"{known.known_at[:19]}Z), not {value_text(set_to)} as the change set it: "
                "not reverted"
            ),
            superseded_by="the inventory",
        )
    return row, change


async def superseded(
    session: Session,
    entries: Sequence[int | JournalEntry],
    *,
    pages: JournalReader | SqliteJournalStore | None = None,
) -> StepResult | None:
    """The step that would stop a revert of ``entries`` as superseded; None: none would.

    The superseded rule of :func:`revert_entries`, read only: nothing is
    planned to be sent, nothing is written. What the views of a pending
    timed change say (the Timed screen, ``bottui timed``, the header,
    ``run-due --dry-run``), so none of them calls a revert live that will
    be skipped.
    """
    look = pages if pages is not None else session.journal_store
    loaded = [e for e in await _loaded(session, entries) if e is not None]
    ours = {identity(e) for e in loaded}
    for entry in reversed(loaded):
        try:
            checked = await _check(session, look, entry, ours, set())
        except BottuiError:
            return None  # it cannot be planned now: the run says why, not the view
        if isinstance(checked, StepResult) and checked.state == "superseded":
            return checked
    return None


async def _revert_one(
    session: Session,
    pages: JournalReader | SqliteJournalStore,
    entry: JournalEntry,
    ours: set[str],
    sent: set[str],
    reason: str,
    confirmed: bool,
) -> StepResult:
    checked = await _check(session, pages, entry, ours, sent)
    if isinstance(checked, StepResult):
        return checked
    row, change = checked
    ident, what = identity(entry), target_what(entry)
    change = change.with_reason(reason)
    try:
        applied = await mutations.apply(session, change, confirmed=confirmed)
    except BottuiError as exc:
        outcome = mutations.error_outcome(exc)
        state: StepState = "unknown" if outcome == Outcome.UNKNOWN else "failed"
        if exc.exit_code == 2:
            state = "refused"
        return StepResult(ident, entry.id, what, state, message=str(exc))
    return StepResult(
        ident,
        entry.id,
        what,
        "reverted",
        journal_id=applied.journal_id,
        message=f"{what} back to {row.plan.restored}",
    )


def _worst(steps: Sequence[StepResult]) -> RevertState:
    states = {s.state for s in steps}
    for word in ("unknown", "failed", "refused", "superseded"):
        if word in states:
            return word
    return "reverted"


# -- the value to revert to, stated --------------------------------------------------------

T = TypeVar("T")

#: ``KnownValue.source`` of a stated value.
STATED_SOURCE = "stated by the operator"


class RevertToRefused(TimedRefused):
    """The stated value cannot be the revert's (exit 2): nothing is sent."""

    title = "Cannot revert to that"


def limiter_value(is_active: bool) -> dict[str, Any]:
    """A rate limiter's state as a value to revert to (``{"isActive": ...}``)."""
    return {"isActive": bool(is_active)}


def thresholds_value(name: str, block: str, challenge: str) -> dict[str, Any]:
    """A dimension's name and thresholds as a value to revert to (literals as typed).

    Raises:
        ValidationError: a threshold the API would refuse.
    """
    return build_thresholds(name, block, challenge).record()


def choices(plan: PlannedChange[Any]) -> tuple[dict[str, Any], ...]:
    """The values a face may offer as "Revert to" for ``plan`` when its value before is
    unknown: a rate limiter's other state (none for a dimension, whose value is typed;
    none when the value before is known or the change cannot be timed)."""
    target = plan.target
    if plan.previous is not None or not isinstance(target, LimiterTarget):
        return ()
    return (limiter_value(not target.is_active),)


def with_revert_to(plan: PlannedChange[T], value: dict[str, Any] | None) -> PlannedChange[T]:
    """``plan`` whose value before is ``value``, as the operator states it (None: as it is).

    ``value``: :func:`limiter_value` for a rate limiter, :func:`thresholds_value`
    for a dimension. Time it afterwards with ``with_revert_after``.

    Raises:
        RevertToRefused: a revocation; a value of the other kind; one that is
            what the change sets; or one that disagrees with the value the
            inventory knows (both are named).
    """
    if value is None:
        return plan
    target = plan.target
    kind: UndoKind
    if isinstance(target, LimiterTarget):
        kind, sets = "limiter", limiter_value(target.is_active)
    elif isinstance(target, ThresholdsTarget):
        kind, sets = "thresholds", target.thresholds.record()
    else:
        raise RevertToRefused(
            "a revocation cannot be timed, so it has no value to revert to; nothing was sent"
        )
    stated = value_of(kind, value)
    if stated is None:
        raise RevertToRefused(
            f"{value_text(value) or value!r} is not a value of this {NOUNS[kind]}; nothing was sent"
        )
    known = plan.previous
    if known is not None and not known.stated:
        if value_of(kind, known.value) == stated:
            return plan
        raise RevertToRefused(
            f"the inventory knows {known.text} (since {known.when} UTC, {known.source}), "
            f"not {value_text(stated)} as stated: leave the value to revert to out, or "
            "refresh the inventory first (`bottui inventory import`); nothing was sent"
        )
    if value_of(kind, sets) == stated:
        raise RevertToRefused(
            f"{value_text(stated)} is what this change sets, so it could never revert: "
            "state the value before it; nothing was sent"
        )
    value_before = KnownValue(stated, stamp(system_clock()), STATED_SOURCE, stated=True)
    old_line = plan.last_known
    changed = replace(plan, previous=value_before)
    lines = tuple(changed.last_known if line == old_line else line for line in plan.lines)
    return replace(changed, lines=lines)


# -- a playbook run's revert ----------------------------------------------------------
#: Operations a playbook step makes (a bulk revocation's run is not a playbook's).
STEP_OPERATIONS: Final = frozenset(
    {Operation.SET_LIMITER_ACTIVE.value, Operation.SET_THRESHOLDS.value}
)
_EXIT: Final = {
    "reverted": EXIT_OK,
    "superseded": EXIT_REFUSED,
    "refused": EXIT_REFUSED,
    "failed": EXIT_API,
    "unknown": EXIT_NETWORK,
}


class NotAPlaybookRun(RefusedError):
    """The run id names no playbook run with a step done (exit 2)."""


class RunSteps(msgspec.Struct, frozen=True):
    """The steps of one run that were done (outcome ok), in the order they were sent."""

    run_id: int
    playbook: str
    entries: tuple[JournalEntry, ...]

    def lines(self) -> list[str]:
        """One line per step, as the journal knows it (not cleaned)."""
        rows = [f"playbook {self.playbook}, run #{self.run_id}: {len(self.entries)} step(s) done"]
        for entry in self.entries:
            rows.append(
                f"  #{entry.id} {entry.item_key or ''} {target_id(entry)}: "
                f"{value_text(entry.previous)} -> {value_text(entry.request_body)}"
            )
        return rows


class PlaybookRevert(msgspec.Struct, frozen=True):
    """How a run's revert ended: the report of :func:`~bottui.ops.revert.revert_entries`."""

    run_id: int | None
    report: RevertReport

    @property
    def exit_code(self) -> int:
        """0 when every step was put back; 2 superseded or refused; 1 failed; 4 unknown."""
        return _EXIT.get(self.report.state, EXIT_API)

    def lines(self) -> list[str]:
        """The report, one line per step, last step first (not cleaned)."""
        head = f"revert of run #{self.run_id}" if self.run_id is not None else "revert"
        rows = [f"{head}: {self.report.state}"]
        for step in self.report.steps:
            entry = f" (journal #{step.journal_id})" if step.journal_id is not None else ""
            message = f": {step.message}" if step.message else ""
            rows.append(f"  #{step.entry_id} {step.what}: {step.state}{entry}{message}")
        return rows

    def to_json(self) -> dict[str, Any]:
        """``revert --json`` (and a run's ``revert`` member)."""
        return {
            "runId": self.run_id,
            "state": self.report.state,
            "steps": [s.to_json() for s in self.report.steps],
        }


async def run_steps(session: Session, run_id: int) -> RunSteps:
    """The steps of playbook run ``run_id`` that were done, oldest first.

    Raises:
        NotAPlaybookRun: no such run, a bulk revocation's run, or nothing done.
    """
    journal = session.journal_store
    entries: list[JournalEntry] = []
    cursor = None
    while True:
        page = await journal.page(EntryQuery(run_id=RunId(run_id)), limit=200, cursor=cursor)
        entries.extend(page.entries)
        if page.next is None:
            break
        cursor = page.next
    if not entries:
        raise NotAPlaybookRun("No such run", f"the journal has no run #{run_id}; nothing was sent")
    if any(e.operation not in STEP_OPERATIONS for e in entries):
        raise NotAPlaybookRun(
            "Not a playbook run",
            f"run #{run_id} is a bulk revocation, which cannot be reverted; nothing was sent",
        )
    done = sorted((e for e in entries if e.outcome == Outcome.OK.value), key=lambda e: e.id)
    if not done:
        raise NotAPlaybookRun(
            "Nothing to revert", f"run #{run_id} has no step that was done; nothing was sent"
        )
    name = (done[0].item_key or "?").rpartition("#")[0] or "?"
    return RunSteps(run_id, name, tuple(done))


def check_may_revert(
    session: Session, steps: RunSteps, *, confirmed: bool, reason: str | None
) -> None:
    """Refuse before asking: read-only, or protected without confirmation."""
    session.check_may_change(confirmed=confirmed, reason=_reason(steps.run_id, reason))


async def revert_run(session: Session, steps: RunSteps, *, reason: str | None) -> PlaybookRevert:
    """Revert a run's steps, last first (``playbook revert RUN_ID``); the caller confirmed."""
    return await _revert(session, steps.run_id, steps.entries, reason)


async def revert_steps(
    session: Session, summary: RunSummary, *, reason: str | None
) -> PlaybookRevert:
    """Revert the steps a stopped run did, last first (the offer after a failure)."""
    return await _revert(session, summary.run_id, summary.done_entry_ids(), reason)


async def _revert(
    session: Session, run_id: int | None, entries: Sequence[int | JournalEntry], reason: str | None
) -> PlaybookRevert:
    report = await revert_entries(
        session,
        entries,
        executor=session.settings.operator or local_operator(),
        reason=_reason(run_id, reason),
        confirmed=True,
    )
    return PlaybookRevert(run_id, report)


def _reason(run_id: int | None, reason: str | None) -> str:
    run = f"run #{run_id}" if run_id is not None else "a run"
    return reason.strip() if reason and reason.strip() else f"revert of playbook {run}"
