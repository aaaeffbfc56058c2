"""Why a change is made: the operator's reason, and the rule of ``require_reason``.

A reason is untrusted text (``--reason``, the TUI's field): kept exactly as
given (a face cleans it as it shows it), blank counts as none, and it may
not be longer than :data:`MAX_REASON` characters. A profile with
``require_reason = true`` refuses a change without one before anything is
sent (exit 2): :func:`check` is that rule, called by
:func:`bottui.ops.confirmation.enforce` for every change, single or bulk,
and by the faces to say it early (a dry run, a confirmation dialog).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from bottui.api.errors import RefusedError, ValidationError

if TYPE_CHECKING:
    from bottui.ops.session import Settings

#: Characters a reason may hold (an incident id and a sentence fit many times).
MAX_REASON: Final = 1000


def normalize(reason: str | None) -> str | None:
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


def refusal(settings: Settings, reason: str | None) -> RefusedError | None:
    """Why a change with ``reason`` would be refused under ``settings`` (None: it would not)."""
    if not settings.require_reason or normalize(reason) is not None:
        return None
    return RefusedError(
        "Reason required",
        f"profile {settings.profile_name or '(none)'} requires a reason for every change "
        "(require_reason = true): give one with --reason TEXT; nothing was sent",
    )


def refusal_text(settings: Settings, reason: str | None) -> str | None:
    """What a dry run or a dialog says of a change with ``reason`` (None: it may go ahead)."""
    refused = refusal(settings, reason)
    return None if refused is None else f"{refused.title}: {refused.details}"


def check(settings: Settings, reason: str | None) -> None:
    """Refuse (exit 2) a change whose reason is missing where one is required, or too long."""
    refused = refusal(settings, reason)
    if refused is not None:
        raise refused


__all__ = ["MAX_REASON", "check", "normalize", "refusal", "refusal_text"]
