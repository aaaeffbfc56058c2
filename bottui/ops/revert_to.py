"""The value a timed change reverts to, stated by the operator when the inventory does not know it.

A timed change reverts to the value before it (:attr:`PlannedChange.previous
<bottui.ops.plan.PlannedChange.previous>`); a rate limiter added by id, or a
dimension never changed with bottui, has none, so it could not be timed.
:func:`with_revert_to` lets the operator state that value (``--revert-to
on|off``, ``--revert-to-block X --revert-to-challenge Y``, the TUI dialog's
"Revert to"): the plan's ``previous`` becomes a :class:`~bottui.ops.plan.KnownValue`
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
(:attr:`~bottui.ops.plan.PlannedChange.previous_json`), the timed change's
schedule ``revert_to_stated`` (``revertToStated`` in ``bottui timed --json``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from bottui.api.client import build_thresholds
from bottui.ops.journal_view import value_text
from bottui.ops.plan import (
    KnownValue,
    LimiterTarget,
    PlannedChange,
    ThresholdsTarget,
    TimedRefused,
)
from bottui.store.journal.records import UndoKind, value_of
from bottui.store.utc import stamp, system_clock

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
            f"{value_text(value) or value!r} is not a value of this {_word(kind)}; nothing was sent"
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


def _word(kind: str) -> str:
    return "rate limiter" if kind == "limiter" else "dimension"


__all__ = [
    "STATED_SOURCE",
    "RevertToRefused",
    "choices",
    "limiter_value",
    "thresholds_value",
    "with_revert_to",
]
