"""Which change ``bottui undo`` would reverse, and with what value, or why not.

:func:`undo_candidate` looks at the newest attempt of one kind (rate limiter
or thresholds) of a profile, as :meth:`Journal.last_undoable
<bottui.store.journal.sync.Journal.last_undoable>` found it, and decides. An
attempt that surely changed nothing (``api-error``, ``refused``) is skipped
by that query. The newest remaining attempt must have succeeded (``ok``) and
carry the value before it (``previous``); an attempt without a known outcome
(unfinished, network error, unknown) makes the current value uncertain, so
undo refuses rather than guess. An undo is itself a change of its kind with
``undo_of`` set: undoing it again is a redo.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from bottui.api.errors import ValidationError
from bottui.api.models import DimensionThresholds
from bottui.api.requests import threshold_literal
from bottui.store.journal.records import JournalEntry, Operation, Outcome

UndoKind = Literal["limiter", "thresholds"]

#: The operations each undo kind covers.
KIND_OPERATIONS: Final[dict[str, tuple[str, ...]]] = {
    "limiter": (Operation.SET_LIMITER_ACTIVE,),
    "thresholds": (Operation.SET_THRESHOLDS,),
}
#: Outcomes of attempts that changed nothing for sure; undo looks past them.
NO_CHANGE_OUTCOMES: Final = (Outcome.API_ERROR, Outcome.REFUSED)

_WORDS: Final = {"limiter": "rate limiter change", "thresholds": "threshold change"}
_TARGET_KEYS: Final = {"limiter": "rate_limiter_id", "thresholds": "dimension_id"}


@dataclass(frozen=True)
class UndoCandidate:
    """The change undo would reverse, or the reason it cannot.

    When :attr:`possible`, send :attr:`restore` (the value before
    :attr:`entry`) with a new request and journal it with
    ``previous=self.current`` and ``undo_of=self.entry.id``
    (:meth:`journal_fields` gives exactly those).
    """

    kind: UndoKind
    #: The newest attempt of this kind, or None when there is none.
    entry: JournalEntry | None
    #: The body that restores the previous value: ``{"isActive": bool}`` or
    #: ``{"name", "blockThreshold", "challengeThreshold"}`` (numbers as literal strings).
    restore: dict[str, Any] | None
    #: The value the entry set, in the same shape (``previous`` of the undo), if known.
    current: dict[str, Any] | None
    #: Why undo is refused; None when it is possible.
    reason: str | None

    @property
    def possible(self) -> bool:
        """True when there is a change to undo and its previous value is known."""
        return self.reason is None and self.entry is not None and self.restore is not None

    @property
    def target_id(self) -> str | None:
        """The rate limiter id or dimension id the entry changed."""
        if self.entry is None or not isinstance(self.entry.target, dict):
            return None
        value = self.entry.target.get(_TARGET_KEYS[self.kind])
        return value if isinstance(value, str) else None

    def restore_active(self) -> bool:
        """The active flag to send (kind ``limiter``)."""
        if self.kind != "limiter" or self.restore is None:
            raise ValueError(self.reason or "not a rate limiter undo")
        return bool(self.restore["isActive"])

    def restore_thresholds(self) -> DimensionThresholds:
        """The thresholds to send (kind ``thresholds``), literals as recorded."""
        if self.kind != "thresholds" or self.restore is None:
            raise ValueError(self.reason or "not a threshold undo")
        return DimensionThresholds.from_record(self.restore)

    def journal_fields(self) -> dict[str, Any]:
        """Keyword arguments for ``Journal.start`` (add ``profile`` and ``base_url``)."""
        if not self.possible or self.entry is None:
            raise ValueError(self.reason or "nothing to undo")
        return {
            "operation": self.entry.operation,
            "account": self.entry.account,
            "project": self.entry.project,
            "target": self.entry.target,
            "request_body": self.restore,
            "previous": self.current,
            "undo_of": self.entry.id,
        }


def undo_candidate(kind: UndoKind, profile: str, entry: JournalEntry | None) -> UndoCandidate:
    """Decide whether ``entry`` (the newest attempt of ``kind`` that may have changed
    something) can be undone."""
    word = _WORDS[kind]
    if entry is None:
        reason = f"no {word} of profile {profile!r} is in the journal"
        return UndoCandidate(kind, None, None, None, reason)
    ref = f"the last {word} (journal entry #{entry.id}, {entry.started_at})"
    current = value_of(kind, entry.request_body)
    if entry.unfinished:
        reason = (
            f"{ref} has no outcome: it is still running or was cut off, "
            "so the current value is not known"
        )
        return UndoCandidate(kind, entry, None, current, reason)
    if entry.outcome != Outcome.OK:
        reason = (
            f"{ref} ended as {entry.outcome!r}: whether it changed anything is not known, "
            "so the current value is not known"
        )
        return UndoCandidate(kind, entry, None, current, reason)
    if entry.previous is None:
        reason = (
            f"{ref} was sent when the value before it was not known, so there is nothing to restore"
        )
        return UndoCandidate(kind, entry, None, current, reason)
    restore = value_of(kind, entry.previous)
    if restore is None:
        reason = f"{ref} recorded a previous value bottui cannot use: {entry.previous!r}"
        return UndoCandidate(kind, entry, None, current, reason)
    return UndoCandidate(kind, entry, restore, current, None)


def value_of(kind: UndoKind, value: object) -> dict[str, Any] | None:
    """``value`` in the canonical shape of ``kind``, or None if it is not one.

    ``{"isActive": bool}`` for a limiter; for thresholds ``{"name": str,
    "blockThreshold": str, "challengeThreshold": str}`` with each number a JSON
    literal (a recorded number is turned into its shortest literal).
    """
    if not isinstance(value, Mapping):
        return None
    if kind == "limiter":
        active = value.get("isActive")
        return {"isActive": active} if isinstance(active, bool) else None
    name = value.get("name")
    if not isinstance(name, str):
        return None
    block_value, challenge_value = value.get("blockThreshold"), value.get("challengeThreshold")
    if block_value is None or challenge_value is None:
        return None
    try:
        block = threshold_literal("blockThreshold", block_value)
        challenge = threshold_literal("challengeThreshold", challenge_value)
    except ValidationError:
        return None
    return DimensionThresholds(name=name, block=block, challenge=challenge).record()


__all__ = [
    "KIND_OPERATIONS",
    "NO_CHANGE_OUTCOMES",
    "UndoCandidate",
    "UndoKind",
    "undo_candidate",
    "value_of",
]
