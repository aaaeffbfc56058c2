"""Undo: put back the value before this profile's last rate limiter or threshold change.

:func:`find` asks the journal for the newest change of a kind
(:meth:`JournalStore.last_undoable <bottui.store.journal.protocol.JournalStore.last_undoable>`,
awaited: off the event loop)
and turns it into an :class:`UndoPlan` (what will be restored, old -> new),
or refuses with :class:`UndoRefused` saying why (exit 2): nothing to undo,
the value before it is not known, its outcome is not known, or it was made
against another base URL. :func:`apply` sends the plan as a new request
through :mod:`bottui.ops.mutations`, so the read-only and protected rules,
the journal (a new entry with ``undo_of`` pointing at the undone one) and
the inventory work as for any change. :func:`plan_change` gives the undo as
a :class:`~bottui.ops.plan.PlannedChange` (dry run, confirmation texts) that
:func:`apply` sends as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final, get_args

from bottui.api.errors import RefusedError
from bottui.api.models import DimensionThresholds
from bottui.ops import mutations
from bottui.ops import plan as planning
from bottui.ops.journal_view import value_text, when
from bottui.ops.mutations import Applied
from bottui.ops.plan import PlannedChange
from bottui.ops.session import Session
from bottui.store.errors import JournalUnavailable
from bottui.store.journal.records import JournalEntry, previous_json
from bottui.store.journal.undo import UndoCandidate, UndoKind

#: The kinds of change that can be undone, in the order ``--kind`` lists them.
KINDS: Final[tuple[UndoKind, ...]] = get_args(UndoKind)
_WORDS: Final[dict[str, str]] = {"limiter": "rate limiter", "thresholds": "threshold"}


class UndoRefused(RefusedError):
    """There is nothing to undo, or the value to restore is not known (exit 2).

    ``other`` names the other kind when its last change could be undone
    instead (``--kind``).
    """

    title = "Cannot undo"

    def __init__(self, details: str, *, other: UndoKind | None = None) -> None:
        self.other = other
        super().__init__(None, details)


@dataclass(frozen=True)
class UndoPlan:
    """The change to undo and the value that undoes it.

    ``passed_over`` is set when the newest change of the other kind could not
    be undone and this plan was chosen instead: the confirmation must say so.
    """

    kind: UndoKind
    #: The journal entry being undone.
    entry: JournalEntry
    #: Rate limiter id or dimension id.
    target_id: str
    #: The value to send: ``{"isActive": ...}`` or the threshold body (literals).
    restore: dict[str, Any]
    #: The value the undone change set, same shape; None when not known.
    current: dict[str, Any] | None
    passed_over: UndoCandidate | None = None
    #: The id the undo's journal entry names in ``undo_of``; -1: ``entry.id``.
    #: None for a teammate's shared entry (its id is not one of this journal's).
    undo_of: int | None = -1

    @property
    def undoes(self) -> int | None:
        """The local journal id this undo's entry records as ``undo_of``."""
        return self.entry.id if self.undo_of == -1 else self.undo_of

    @property
    def account(self) -> str:
        """The account of the undone change."""
        return self.entry.account

    @property
    def project(self) -> str:
        """The project of the undone change."""
        return self.entry.project

    def restore_active(self) -> bool:
        """The active flag to send (kind ``limiter``)."""
        return bool(self.restore["isActive"])

    def restore_thresholds(self) -> DimensionThresholds:
        """The thresholds to send (kind ``thresholds``), literals as recorded."""
        return DimensionThresholds.from_record(self.restore)

    @property
    def what(self) -> str:
        """``rate limiter rl-login`` or ``dimension bot-score``."""
        noun = "rate limiter" if self.kind == "limiter" else "dimension"
        return f"{noun} {self.target_id}"

    @property
    def restored(self) -> str:
        """The value restored, in words (``ON``, ``Bot score: block 0.8, challenge 0.5``)."""
        return value_text(self.restore)

    @property
    def change(self) -> str:
        """``OFF -> ON``: the value now (as the undone change set it) -> the value restored."""
        now = value_text(self.current) if self.current is not None else "?"
        return f"{now} -> {self.restored}"

    def summary(self) -> str:
        """One line: what, where, old -> new, and which entry (not cleaned)."""
        return (
            f"{self.what} of {self.account}/{self.project}: {self.change} "
            f"(undoes journal entry #{self.entry.id} of {self.entry.started_at[:19]}Z "
            f"by {self.entry.operator})"
        )

    def to_json(self) -> dict[str, Any]:
        """The plan as ``bottui undo --json`` reports it."""
        return {
            "kind": self.kind,
            "undoes": self.entry.id,
            "account": self.account,
            "project": self.project,
            "target": self.entry.target,
            # Thresholds as numbers, as everywhere in --json (the plan keeps the literals).
            "from": previous_json(self.current),
            "to": previous_json(self.restore),
        }


async def find(
    session: Session, kind: UndoKind | None = None, *, fall_back: bool = False
) -> UndoPlan:
    """The undo of the last change of ``kind`` of this profile (no kind: the newer of the two).

    Args:
        session: Its profile picks the journal entries, its base URL must match theirs.
        kind: ``"limiter"`` or ``"thresholds"``; None for the newest change of either.
        fall_back: With no kind, when the newest change cannot be undone but the
            other kind's can, plan that one (``passed_over`` says why); the
            caller must show it before confirming. Without it: refuse.

    Raises:
        UndoRefused: nothing to undo, or why it cannot be undone.
    """
    if kind is not None and kind not in KINDS:
        raise UndoRefused(f"unknown kind {kind!r}: one of {', '.join(KINDS)}")
    journal = session.journal_store
    profile = session.settings.inventory_scope
    try:
        # Read off the event loop (the store's executor); a journal that cannot
        # be opened raises JournalUnavailable here.
        candidates = [await journal.last_undoable(profile, k) for k in ((kind,) if kind else KINDS)]
    except JournalUnavailable as exc:
        raise UndoRefused(
            f"the journal cannot be read ({exc.title}), so the last change is not known"
        ) from None
    found = sorted(
        (c for c in candidates if c.entry is not None),
        key=lambda c: c.entry.id if c.entry else 0,
        reverse=True,
    )
    if not found:
        words = _WORDS[kind] if kind else "rate limiter or threshold"
        raise UndoRefused(
            f"nothing to undo: no {words} change of profile {profile!r} is in the journal"
        )
    newest = found[0]
    other = next((c for c in found[1:] if c.possible), None)
    if not newest.possible:
        if fall_back and other is not None:
            return _plan(session, other, passed_over=newest)
        raise UndoRefused(newest.reason or "nothing to undo", other=other.kind if other else None)
    return _plan(session, newest)


def _plan(
    session: Session, candidate: UndoCandidate, *, passed_over: UndoCandidate | None = None
) -> UndoPlan:
    entry, restore, target = candidate.entry, candidate.restore, candidate.target_id
    assert entry is not None and restore is not None
    if target is None:
        raise UndoRefused(f"journal entry #{entry.id} does not name the id it changed")
    if entry.base_url != session.base_url:
        raise UndoRefused(
            f"journal entry #{entry.id} was sent to {entry.base_url}, but this session "
            f"works against {session.base_url}: undo it from a session on that base URL"
        )
    return UndoPlan(
        kind=candidate.kind,
        entry=entry,
        target_id=target,
        restore=restore,
        current=candidate.current,
        passed_over=passed_over,
    )


async def plan_change(session: Session, plan: UndoPlan) -> PlannedChange[Any]:
    """The undo as a :class:`PlannedChange` (``undo_of`` = the undone entry).

    Its texts say which entry is undone, now -> restored, and which newer
    change was passed over, if one was.
    """
    change: PlannedChange[Any]
    if plan.kind == "limiter":
        change = await planning.plan_limiter(
            session,
            plan.account,
            plan.project,
            plan.target_id,
            plan.restore_active(),
            undo_of=plan.undoes,
        )
    else:
        change = await planning.plan_thresholds(
            session,
            plan.account,
            plan.project,
            plan.target_id,
            plan.restore_thresholds(),
            undo_of=plan.undoes,
        )
    entry = plan.entry
    now = value_text(plan.current) if plan.current is not None else "?"
    lines = [
        f"Journal entry #{entry.id}, {when(entry)}, by {entry.operator}",
        f"{'Rate limiter' if plan.kind == 'limiter' else 'Dimension'} {plan.target_id}",
        f"Project {plan.project}, account {plan.account}",
        f"Now: {now}",
        f"Restore: {plan.restored}",
        f"A new request sets the value back; the journal records it as the undo of #{entry.id}.",
    ]
    skipped = plan.passed_over
    if skipped is not None and skipped.entry is not None:
        lines[:0] = [
            f"The newer {_WORDS[skipped.kind]} change (#{skipped.entry.id}) cannot be undone: "
            f"{skipped.reason}",
            f"This undoes the last {_WORDS[plan.kind]} change instead.",
        ]
    return replace(
        change,
        title=f"Undo the last {_WORDS[plan.kind]} change?",
        confirm_label="Undo",
        lines=tuple(lines),
    )


async def apply(
    session: Session,
    plan: UndoPlan,
    *,
    confirmed: bool = False,
    change: PlannedChange[Any] | None = None,
) -> Applied[Any]:
    """Send the undo, journaled as its own entry with ``undo_of`` = the undone entry.

    The journal is read again first: when another change of the same kind was
    journaled since the plan was made (another terminal, another process),
    nothing is sent. ``change`` is the :func:`plan_change` a face showed: it is
    sent as it is (planned here when not given).

    Raises:
        UndoRefused: the plan is no longer the last change of its kind.
        RefusedError: read-only, or protected and not ``confirmed``.
        ValueError: ``change`` is not the undo of ``plan``'s entry.
        BottuiError: as :func:`bottui.ops.mutations.apply`.
    """
    session.check_may_change(
        confirmed=confirmed, reason=change.reason if change is not None else None
    )
    if change is not None and change.undo_of != plan.undoes:
        raise ValueError(f"the planned change does not undo journal entry #{plan.entry.id}")
    latest = await find(session, plan.kind)
    if latest.entry.id != plan.entry.id:
        raise UndoRefused(
            f"journal entry #{latest.entry.id} is now the last {_WORDS[plan.kind]} change "
            f"(the plan was to undo #{plan.entry.id}): nothing was sent; look again"
        )
    if change is None:
        change = await plan_change(session, plan)
    return await mutations.apply(session, change, confirmed=confirmed)


__all__ = ["KINDS", "UndoPlan", "UndoRefused", "apply", "find", "plan_change"]
