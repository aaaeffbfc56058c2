"""What a change's confirmation needs, built once from the plan for both kinds of dialog.

:class:`ChangePrompt` is what a screen hands to :meth:`TuiServices.confirmed`: the
title, the body, the confirm button's words and what the profile demands
(:class:`~bottui.ops.confirmation.Confirmation`: a typed project id, a refusal). Its answer is a
:class:`Decided`: the reason, and the duration typed for a timed change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import msgspec
from textual.content import Content

from bottui.ops.confirmation import Confirmation

if TYPE_CHECKING:
    from bottui.api.requests import PreparedRequest
    from bottui.ops.planning import PlannedChange


#: What a read-only profile's refusal says in the TUI (the plan's own words name the flag).
READ_ONLY_REASON: Final = "this profile refuses every change; nothing was sent"


class Timing(msgspec.Struct, frozen=True):
    """What a confirmation offers for a timed change (#15): a duration field, or why not.

    ``offered`` False: no field, only ``unavailable`` as a note line (a
    revocation). ``offered`` with ``unavailable``: the field is shown disabled
    and the line says why (the value before the change is not known). The
    ``notes`` are said once a duration is typed (no executor known, a
    protected profile's revert confirmed now).
    """

    offered: bool = True
    unavailable: str = ""
    notes: tuple[str, ...] = ()
    #: What the change reverts to, for the line under the field ("OFF", "block 0.9 …").
    reverts_to: str = ""
    #: Opened as a timed change: the duration must be typed before it is sent.
    required: bool = False
    #: The value before is not known: the one the operator states by typing a
    #: duration (:func:`bottui.ops.revert.choices`); journaled as stated.
    stated: dict[str, Any] | None = None


#: A revocation's note: there is nothing to revert it to.
REVOCATION_TIMING = Timing(
    offered=False,
    unavailable="No duration: a revocation cannot be timed (a grant cannot be re-issued).",
)


def timing_of(plan: PlannedChange[Any]) -> Timing | None:
    """The duration field a plan's confirmation gets (None: none, e.g. an undo)."""
    if plan.kind == "revoke":
        return REVOCATION_TIMING
    if plan.undo_of is not None:
        return None
    protected: tuple[str, ...] = ()
    if plan.confirmation.kind.value == "typed":
        protected = (PROTECTED_NOTE,)
    if plan.previous is None:
        from bottui.ops import revert
        from bottui.ops.journal_view import value_text

        offered = revert.choices(plan)
        if offered:  # a limiter has one other state: typing a duration states it
            text = value_text(offered[0])
            note = (
                f"Its state before is not known: with a duration you state it was {text}, "
                "and it reverts to that (journaled as stated)."
            )
            return Timing(notes=(note, *protected), reverts_to=text, stated=offered[0])
        thing = "state" if plan.kind == "limiter" else "thresholds"
        return Timing(
            unavailable=f"No duration: the {thing} before this change is not known, "
            "so it could never revert (bottui thresholds set --revert-to-block/-challenge "
            "can state them)."
        )
    return Timing(notes=protected, reverts_to=plan.previous.text)


#: A protected profile: its scheduled revert is confirmed with the change.
PROTECTED_NOTE = (
    "Protected profile: confirming now also confirms the scheduled revert; "
    "it is sent without asking again."
)


class ChangePrompt(msgspec.Struct, frozen=True):
    """What a change's confirmation shows, what it sends, and what it needs."""

    #: Dialog title, body and the confirm button's label.
    title: str
    body: Content
    confirm_label: str
    #: What a protected profile wants typed.
    project_id: str
    #: The request(s) a dry run shows (:meth:`ChangePrompt.of`: the plan's own);
    #: a BottuiError raised here is reported, nothing sent.
    plan: Callable[[], Sequence[PreparedRequest]]
    #: None: the profile decides (:func:`bottui.ops.confirmation.required`).
    needs: Confirmation | None = None
    #: Teammates' recent changes of the same target (or why they could not be
    #: checked), cleaned lines shown inside the confirmation; empty: none.
    recent: tuple[str, ...] = ()
    #: The timed changes whose revert this change supersedes (it will not be sent),
    #: cleaned lines shown with ``recent`` among the facts; empty: none (#27).
    supersedes: tuple[str, ...] = ()
    #: A long list under the body, scrolled (the limiters of a change of many).
    listing: Content | None = None
    #: The duration field of a timed change (#15); None: none.
    timing: Timing | None = None
    #: The decision line kept beside the buttons: what, before -> after
    #: (:attr:`~bottui.ops.planning.PlannedChange.decision`); None: the title says it.
    decision: str | None = None

    def warning_lines(self) -> tuple[str, ...]:
        """Every warning line the facts show: teammates' changes, then superseded reverts."""
        return (*self.recent, *self.supersedes)

    @classmethod
    def of(
        cls,
        plan: PlannedChange[Any],
        body: Content,
        *,
        title: str | None = None,
        confirm_label: str | None = None,
    ) -> ChangePrompt:
        """The prompt of a planned change: its requests, its confirmation, its texts.

        ``body`` is the screen's own rendering of the plan's data; ``title`` and
        ``confirm_label`` default to the plan's.
        """
        return cls(
            title=plan.title if title is None else title,
            body=body,
            confirm_label=plan.confirm_label if confirm_label is None else confirm_label,
            project_id=plan.confirmation.typed or plan.project,
            plan=partial(list, plan.requests),
            needs=plan.confirmation,
            timing=timing_of(plan),
            decision=plan.decision,
        )


class Decided(msgspec.Struct, frozen=True):
    """What a confirmation was confirmed with: the reason, and a duration (None: untimed)."""

    reason: str | None
    revert_after: timedelta | None
    #: The value to revert to as the operator stated it (None: the inventory's).
    revert_to: dict[str, Any] | None = None
