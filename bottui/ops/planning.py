"""Plan a change once: what will be sent, to what, over what, and how it must be confirmed.

A :class:`PlannedChange` is the one description of a change that every
consumer shares: the TUI's confirmation and dry-run dialogs, the CLI's
``--dry-run``, undo, and :func:`bottui.ops.mutations.apply`, which journals
and sends exactly ``plan.requests``. Planning validates (a
:class:`~bottui.api.errors.ValidationError` is raised here, never at
sending), reads the value the inventory last knew (undo needs it) and
applies the rule of :mod:`bottui.ops.confirmation`. A refused plan still
holds its requests, so a read-only profile can show a dry run.

The texts (``title``, ``lines``, ``last_known``) are plain strings built
from untrusted ids: a face cleans them (``plaintext.clean``) as it shows them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

import msgspec
from msgspec.structs import replace

from bottui.api.errors import RefusedError
from bottui.api.models import DimensionThresholds, LimiterChange, Revocation
from bottui.api.requests import PreparedRequest, request_json, request_lines
from bottui.ops.confirmation import (
    Confirmation,
    normalize_reason,
    reason_refusal_text,
    required,
)
from bottui.ops.journal_view import value_text
from bottui.ops.session import Session
from bottui.store.store_errors import InventoryUnavailable

if TYPE_CHECKING:
    from bottui.api.client import ThresholdUpdate
    from bottui.ops.session import Settings
    from bottui.store.inventory.inventory_records import DimensionEntry, LimiterEntry

T = TypeVar("T")

ChangeKind = Literal["limiter", "revoke", "thresholds"]

#: What ``--dry-run`` says after the request(s).
DRY_RUN_NOTE = "dry run: nothing was sent"


class LimiterTarget(msgspec.Struct, frozen=True):
    """A rate limiter, and the state to give it."""

    limiter_id: str
    is_active: bool


class RevocationTarget(msgspec.Struct, frozen=True):
    """The subject whose challenge grant is withdrawn (only the ids given)."""

    visitor_id: str | None
    user_account_id: str | None

    def journal_target(self) -> dict[str, Any]:
        """The journal's ``target`` of a revocation."""
        pairs = (("visitorId", self.visitor_id), ("userAccountId", self.user_account_id))
        return {k: v for k, v in pairs if v}


class ThresholdsTarget(msgspec.Struct, frozen=True):
    """A risk dimension, and the name and thresholds to give it."""

    dimension_id: str
    thresholds: DimensionThresholds


Target = LimiterTarget | RevocationTarget | ThresholdsTarget


class KnownValue(msgspec.Struct, frozen=True):
    """A value as the inventory last knew it.

    ``value`` has the journal's ``previous`` shape (``{"isActive": ...}`` or
    the threshold record); ``known_at`` is a UTC stamp, ``source`` the
    inventory's word for how it learnt it (``response``, ``request``, ...).
    ``stated``: not known to the inventory but stated by the operator as the
    value to revert to (``--revert-to``, :mod:`bottui.ops.revert`).
    """

    value: dict[str, Any]
    known_at: str
    source: str
    stated: bool = False

    @property
    def text(self) -> str:
        """``ON`` / ``OFF`` / ``Bot score: block 0.8, challenge 0.5``."""
        return value_text(self.value)

    @property
    def when(self) -> str:
        """``known_at`` as ``2026-11-21 03:00:00`` (UTC; another shape as it is)."""
        stamp = self.known_at
        if len(stamp) >= 19 and stamp[10] == "T":
            return f"{stamp[:10]} {stamp[11:19]}"
        return stamp


class TimedRefused(RefusedError):
    """This change cannot be timed (exit 2): it could never revert. Nothing is sent."""

    title = "Cannot time this change"

    def __init__(self, details: str) -> None:
        super().__init__(None, details)


class PlannedChange(msgspec.Struct, Generic[T], frozen=True):
    """One change, planned: ``T`` is what :func:`~bottui.ops.mutations.apply` returns.

    Immutable; built by :func:`plan_limiter`, :func:`plan_revocation`,
    :func:`plan_thresholds` and :func:`bottui.ops.undo.plan_change`.
    """

    kind: ChangeKind
    account: str
    project: str
    target: Target
    #: Exactly what will be sent, in order (one request today).
    requests: tuple[PreparedRequest, ...]
    #: The value before the change as the inventory knew it; None when unknown.
    previous: KnownValue | None
    #: What a face must ask before sending (or why it never may).
    confirmation: Confirmation
    #: The journal entry this change undoes, if it is an undo.
    undo_of: int | None = None
    #: Dialog title (``Disable rate limiter?``) and its confirm button (``Disable``).
    title: str = ""
    confirm_label: str = ""
    #: What changes, one line each (target, project, new value, last known).
    lines: tuple[str, ...] = msgspec.field(default=())
    #: Why, as the operator gave it (``--reason``, the dialog's field); None: none.
    #: Journaled with the change; required when the profile says ``require_reason``.
    reason: str | None = None
    #: Revert to ``previous`` this long after it is applied (a timed change,
    #: :mod:`bottui.ops.timed`); None: it stays.
    revert_after: timedelta | None = None
    #: A teammate's recent change of the same target the operator acknowledged
    #: (:func:`bottui.ops.collisions.acknowledge`), in words; journaled with the
    #: reason (:attr:`journal_reason`). None: none acknowledged.
    acknowledged: str | None = None

    def with_revert_after(self, after: timedelta | None) -> PlannedChange[T]:
        """This plan, reverting ``after`` it is applied (None: not timed).

        Raises:
            TimedRefused: a revocation (a grant cannot be re-issued), or a
                change whose value before is not known (it could never revert).
        """
        if after is None:
            return replace(self, revert_after=None)
        if self.kind == "revoke":
            raise TimedRefused(
                "a revocation cannot be timed: the API has no call that gives a challenge "
                "grant back, so it could never revert; nothing was sent"
            )
        if self.previous is None:
            raise TimedRefused(
                "the value before this change is not known to the inventory (it learns it "
                "from a change made with bottui, the TUI's screens or `bottui inventory "
                "import`), so it could never revert: state the value to revert to "
                "(--revert-to); nothing was sent"
            )
        if after <= timedelta(0):
            raise TimedRefused("a timed change needs a duration above zero; nothing was sent")
        return replace(self, revert_after=after)

    def with_reason(self, reason: str | None) -> PlannedChange[T]:
        """This plan made for ``reason`` (blank: none).

        Raises:
            ValidationError: a reason longer than :data:`~bottui.ops.confirmation.MAX_REASON`.
        """
        return replace(self, reason=normalize_reason(reason))

    def reason_refusal(self, settings: Settings) -> str | None:
        """Why this plan would be refused for its reason under ``settings`` (None: it would not)."""
        return reason_refusal_text(settings, self.reason)

    @property
    def request(self) -> PreparedRequest:
        """The single request of this plan."""
        if len(self.requests) != 1:
            raise ValueError(f"a plan of {len(self.requests)} requests has no single request")
        return self.requests[0]

    @property
    def previous_json(self) -> dict[str, Any] | None:
        """The journal's ``previous`` (undo restores it); ``"stated": true`` added when
        the operator stated it (:mod:`bottui.ops.revert`)."""
        known = self.previous
        if known is None:
            return None
        return {**known.value, "stated": True} if known.stated else known.value

    @property
    def journal_reason(self) -> str | None:
        """The reason as journaled: the operator's, then the acknowledged collision, if any."""
        if self.acknowledged is None:
            return self.reason
        if self.reason is None:
            return self.acknowledged
        return f"{self.reason} · {self.acknowledged}"

    @property
    def last_known(self) -> str:
        """``Last known: ON since 2026-11-21 03:00:00 UTC (response).`` or not known."""
        known = self.previous
        if known is None:
            return "Its value now is not known."
        if known.stated:
            return f"Its value now is not known; the operator states {known.text}."
        return f"Last known: {known.text} since {known.when} UTC ({known.source})."

    @property
    def decision(self) -> str:
        """What this change does, before and after, in one line (not cleaned).

        ``rate limiter rl-login: ON -> OFF``, ``dimension bot-score: block 0.9,
        challenge 0.5 -> block 0.8, challenge 0.5``, ``revoke the grant of visitor
        v-1``; an undo starts ``undo #7:``. The confirmation keeps it beside its
        buttons whatever else scrolls.
        """
        before = "?" if self.previous is None else self.previous.text
        target = self.target
        if isinstance(target, LimiterTarget):
            after = "ON" if target.is_active else "OFF"
            what = f"rate limiter {target.limiter_id}: {before} -> {after}"
        elif isinstance(target, ThresholdsTarget):
            after = f"block {target.thresholds.block}, challenge {target.thresholds.challenge}"
            what = f"dimension {target.dimension_id}: {_bare(before)} -> {after}"
        else:
            whose = [
                f"visitor {target.visitor_id}" if target.visitor_id else "",
                f"user account {target.user_account_id}" if target.user_account_id else "",
            ]
            what = "revoke the grant of " + " and ".join(w for w in whose if w)
        return what if self.undo_of is None else f"undo #{self.undo_of}: {what}"

    def dry_run_lines(self) -> list[str]:
        """What ``--dry-run`` prints: each request, its headers, body and curl (not cleaned)."""
        lines: list[str] = []
        for index, request in enumerate(self.requests):
            if index:
                lines.append("")
            lines += request_lines(request)
        return lines

    def dry_run_json(self, refused: str | None = None) -> dict[str, Any]:
        """What ``--dry-run --json`` prints (``refused``: why sending it would be refused)."""
        document: dict[str, Any] = {
            "dryRun": True,
            "requests": [request_json(r) for r in self.requests],
        }
        if self.revert_after is not None and self.previous is not None:
            document["revert"] = {
                "afterSeconds": int(self.revert_after.total_seconds()),
                "to": self.previous.text,
                "stated": self.previous.stated,
            }
        if refused is not None:
            document["wouldBeRefused"] = refused
        return document


def _bare(thresholds: str) -> str:
    """``block 0.8, challenge 0.5`` of ``Bot score: block 0.8, challenge 0.5``."""
    _head, colon, rest = thresholds.partition(": ")
    return rest if colon and rest.startswith("block") else thresholds


# -- building and validating the requests (no store, no network) ----------------------


def limiter_request(
    session: Session, account: str, project: str, limiter_id: str, is_active: bool
) -> PreparedRequest:
    """The request that would switch a limiter, validated; nothing is sent."""
    return session.client().prepare_rate_limiter(account, project, limiter_id, is_active)


def revocation_request(
    session: Session,
    account: str,
    project: str,
    *,
    visitor_id: str | None,
    user_account_id: str | None,
) -> PreparedRequest:
    """The revocation request, validated; nothing is sent."""
    return session.client().prepare_revocation(
        account, project, visitor_id=visitor_id, user_account_id=user_account_id
    )


def thresholds_request(
    session: Session,
    account: str,
    project: str,
    dimension_id: str,
    thresholds: DimensionThresholds,
) -> PreparedRequest:
    """The threshold update request, validated; nothing is sent."""
    return session.client().prepare_thresholds(account, project, dimension_id, thresholds)


# -- planning ------------------------------------------------------------------------


async def plan_limiter(
    session: Session,
    account: str,
    project: str,
    limiter_id: str,
    is_active: bool,
    *,
    undo_of: int | None = None,
) -> PlannedChange[LimiterChange]:
    """Plan switching a rate limiter on or off.

    Raises:
        ValidationError: an id the API would refuse (nothing is planned).
    """
    request = limiter_request(session, account, project, limiter_id, is_active)
    inventory = session.inventory_store
    previous = await _known(session, lambda: inventory.limiter(account, project, limiter_id))
    verb = "Enable" if is_active else "Disable"
    plan: PlannedChange[LimiterChange] = PlannedChange(
        kind="limiter",
        account=account,
        project=project,
        target=LimiterTarget(limiter_id, bool(is_active)),
        requests=(request,),
        previous=previous,
        confirmation=required(session.settings, project),
        undo_of=undo_of,
        title=f"{verb} rate limiter?",
        confirm_label=verb,
    )
    lines = (
        f"Rate limiter {limiter_id}",
        _where(account, project),
        f"New state: {'ON' if is_active else 'OFF'}",
        plan.last_known,
    )
    return _with_lines(plan, lines)


async def plan_revocation(
    session: Session,
    account: str,
    project: str,
    *,
    visitor_id: str | None = None,
    user_account_id: str | None = None,
) -> PlannedChange[Revocation]:
    """Plan withdrawing the grant held on a visitor id and/or a user account id.

    A grant has no value the inventory knows: ``previous`` is None.
    """
    request = revocation_request(
        session, account, project, visitor_id=visitor_id, user_account_id=user_account_id
    )
    subject = [
        f"{label} {value}"
        for label, value in (("visitor id", visitor_id), ("user account id", user_account_id))
        if value is not None
    ]
    return PlannedChange(
        kind="revoke",
        account=account,
        project=project,
        target=RevocationTarget(visitor_id, user_account_id),
        requests=(request,),
        previous=None,
        confirmation=required(session.settings, project),
        title="Revoke challenge grant?",
        confirm_label="Revoke",
        lines=(
            "Withdraw the challenge grant held on",
            "  " + " · ".join(subject),
            _where(account, project),
            "The identity faces the challenge again.",
        ),
    )


async def plan_thresholds(
    session: Session,
    account: str,
    project: str,
    dimension_id: str,
    thresholds: DimensionThresholds,
    *,
    undo_of: int | None = None,
) -> PlannedChange[ThresholdUpdate]:
    """Plan replacing a dimension's name and thresholds (literals sent as typed)."""
    request = thresholds_request(session, account, project, dimension_id, thresholds)
    inventory = session.inventory_store
    previous = await _known(session, lambda: inventory.dimension(account, project, dimension_id))
    plan: PlannedChange[ThresholdUpdate] = PlannedChange(
        kind="thresholds",
        account=account,
        project=project,
        target=ThresholdsTarget(dimension_id, thresholds),
        requests=(request,),
        previous=previous,
        confirmation=required(session.settings, project),
        undo_of=undo_of,
        title="Set dimension thresholds?",
        confirm_label="Set thresholds",
    )
    lines = (
        f"Dimension {dimension_id}",
        _where(account, project),
        f"New: {value_text(thresholds.record())}",
        plan.last_known,
    )
    return _with_lines(plan, lines)


def _where(account: str, project: str) -> str:
    return f"Project {project}, account {account}"


def _with_lines(plan: PlannedChange[T], lines: tuple[str, ...]) -> PlannedChange[T]:
    return replace(plan, lines=lines)


# -- what the inventory knew before ---------------------------------------------------


async def _known(
    session: Session, read: Callable[[], Awaitable[LimiterEntry | DimensionEntry | None]]
) -> KnownValue | None:
    """What an inventory record knew before the change; None when unknown or unreadable."""
    try:
        entry = await read()
    except InventoryUnavailable as exc:
        # The inventory is a help, not a condition: unreadable means "not known".
        session.warn(f"inventory unavailable: {exc.title}. {exc.details}")
        return None
    value = entry.previous() if entry is not None else None
    if entry is None or value is None:
        return None
    return KnownValue(value, entry.known_at, entry.source)
