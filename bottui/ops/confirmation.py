"""The one rule deciding whether a change may be sent, and what it must be confirmed with.

A read-only profile (or ``--read-only``) refuses every change; a profile
with ``require_reason`` refuses one without a reason; a protected
profile wants the project id typed in the TUI (``--yes`` on the command
line); any other profile wants a click in the TUI (the CLI sends at once).
:func:`required` computes it when a change is planned, :func:`enforce`
checks it again just before sending; :meth:`Session.check_may_change
<bottui.ops.session.Session.check_may_change>` uses the same two.

Why a change is made, the operator's reason: a reason is untrusted text (``--reason``,
the TUI's field): kept exactly as given (a face cleans it as it shows it), blank counts
as none, and it may not be longer than :data:`MAX_REASON` characters. A profile with
``require_reason = true`` refuses a change without one before anything is sent (exit 2):
:func:`check_reason` is that rule, called by :func:`enforce` for every change, single or
bulk, and by the faces to say it early (a dry run, a confirmation dialog).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Final

import msgspec

from bottui.api.errors import RefusedError, ValidationError

if TYPE_CHECKING:
    from bottui.ops.session import Settings


class ConfirmKind(StrEnum):
    """How a face must confirm a change before sending it."""

    #: Nothing to ask (the planner does not produce it today; a face may lower to it).
    NONE = "none"
    #: A confirmation dialog (TUI); the CLI sends without asking.
    CLICK = "click"
    #: The project id typed in the TUI, ``--yes`` on the command line.
    TYPED = "typed"
    #: Never sent: ``title`` and ``reason`` say why.
    REFUSED = "refused"


class Confirmation(msgspec.Struct, frozen=True):
    """What a change needs before it is sent: see :class:`ConfirmKind`.

    ``typed`` is the text to type (the project id) for ``TYPED``; ``title``
    and ``reason`` explain a ``REFUSED`` one. None of them is cleaned.
    """

    kind: ConfirmKind
    typed: str | None = None
    title: str | None = None
    reason: str | None = None

    @property
    def refused(self) -> bool:
        """True when the change must never be sent."""
        return self.kind is ConfirmKind.REFUSED

    def error(self) -> RefusedError:
        """The refusal as the error ``apply`` raises (exit 2)."""
        return RefusedError(self.title or "Refused", self.reason or "nothing was sent")


def required(settings: Settings, project: str | None) -> Confirmation:
    """The confirmation a change of ``project`` needs under ``settings``."""
    if settings.read_only:
        return Confirmation(
            ConfirmKind.REFUSED,
            title="Read-only",
            reason=(
                f"profile {settings.profile_name or '(none)'} is read-only "
                "(or --read-only was given): nothing was sent"
            ),
        )
    if settings.protected:
        return Confirmation(ConfirmKind.TYPED, typed=project)
    return Confirmation(ConfirmKind.CLICK)


def enforce(
    settings: Settings, *needed: Confirmation, confirmed: bool, reason: str | None = None
) -> None:
    """Raise unless a change needing ``needed``, made for ``reason``, may be sent now.

    The rule is computed again from ``settings`` (the profile may have
    changed since the plan was made) and the strictest of all wins; a profile
    with ``require_reason`` wants a reason (:func:`check_reason`).

    Raises:
        RefusedError: refused (read-only), no reason where one is required,
            or protected and not ``confirmed``.
    """
    now = required(settings, None)
    for rule in (now, *needed):
        if rule.refused:
            raise rule.error()
    check_reason(settings, reason)
    if not confirmed and any(r.kind is ConfirmKind.TYPED for r in (now, *needed)):
        raise RefusedError(
            "Protected profile",
            f"profile {settings.profile_name} is protected: confirm the change "
            "(--yes on the command line); nothing was sent",
        )


# -- the reason ----------------------------------------------------------------------------

#: Characters a reason may hold (an incident id and a sentence fit many times).
MAX_REASON: Final = 1000


def normalize_reason(reason: str | None) -> str | None:
    """The reason to journal: None when none or blank, else exactly as given.

    Raises:
        ValidationError: longer than :data:`MAX_REASON` characters.
    """
    if reason is None or not reason.strip():
        return None
    if len(reason) > MAX_REASON:
        raise ValidationError(
            "reason",
            f"a reason holds at most {MAX_REASON} characters, not {len(reason)}",
            title="Reason too long",
        )
    return reason


def reason_refusal(settings: Settings, reason: str | None) -> RefusedError | None:
    """Why a change with ``reason`` would be refused under ``settings`` (None: it would not)."""
    if not settings.require_reason or normalize_reason(reason) is not None:
        return None
    return RefusedError(
        "Reason required",
        f"profile {settings.profile_name or '(none)'} requires a reason for every change "
        "(require_reason = true): give one with --reason TEXT; nothing was sent",
    )


def reason_refusal_text(settings: Settings, reason: str | None) -> str | None:
    """What a dry run or a dialog says of a change with ``reason`` (None: it may go ahead)."""
    refused = reason_refusal(settings, reason)
    return None if refused is None else f"{refused.title}: {refused.details}"


def check_reason(settings: Settings, reason: str | None) -> None:
    """Refuse (exit 2) a change whose reason is missing where one is required, or too long."""
    refused = reason_refusal(settings, reason)
    if refused is not None:
        raise refused
