"""Every change bottui makes, from either face, goes through here.

For each operation: refuse when the profile forbids it, validate, find the
token, append a *started* journal record (durable) before sending, send,
teach the inventory what the answer revealed, and append the *outcome*.
A journal or inventory that cannot be written becomes a warning on the
session; the change itself still goes ahead.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from bottui.api.errors import (
    ApiError,
    BottuiError,
    NetworkError,
    RefusedError,
    UnusableBodyError,
)
from bottui.api.models import (
    DimensionThresholds,
    LimiterChange,
    Revocation,
)
from bottui.api.requests import PreparedRequest
from bottui.ops.session import Session
from bottui.store.journal_records import Operation, Outcome, dimension_target, limiter_target

T = TypeVar("T")


@dataclass(frozen=True)
class Applied(Generic[T]):
    """A change that was sent and answered, and the journal entry recording it."""

    value: T
    request: PreparedRequest
    journal_id: int | None
    duration_ms: float


def error_outcome(error: BaseException) -> Outcome:
    """The journal's outcome word for a failure.

    Anything unforeseen is ``unknown``: whether the service applied the
    change is not known, so undo refuses to guess from it.
    """
    if isinstance(error, BottuiError) and error.ambiguous:
        # A request that may have arrived: applied or not, nobody knows.
        return Outcome.UNKNOWN
    if isinstance(error, ApiError):
        return Outcome.API_ERROR
    if isinstance(error, UnusableBodyError):
        return Outcome.UNUSABLE_BODY
    if isinstance(error, NetworkError):
        return Outcome.NETWORK_ERROR
    if isinstance(error, RefusedError):
        return Outcome.REFUSED
    if isinstance(error, asyncio.CancelledError | KeyboardInterrupt):
        return Outcome.INTERRUPTED
    return Outcome.UNKNOWN


def _error_json(error: BaseException) -> dict[str, Any]:
    if isinstance(error, BottuiError):
        body: dict[str, Any] = error.to_json()["error"]
        return body
    return {"status": None, "message": type(error).__name__, "code": None, "type": None}


async def _journaled(
    session: Session,
    *,
    operation: Operation,
    request: PreparedRequest,
    account: str,
    project: str,
    target: dict[str, Any],
    previous: dict[str, Any] | None,
    undo_of: int | None,
    send: Callable[[], Awaitable[T]],
    outcome_of: Callable[[T], tuple[Outcome, int | None, dict[str, Any] | None]],
) -> Applied[T]:
    """Journal *started*, send, journal the outcome (even on failure or cancel)."""
    journal = session.journal
    entry_id: int | None = None
    if journal is not None:
        from bottui.store.journal import JournalUnavailable

        try:
            entry_id = journal.start(
                profile=session.settings.inventory_scope,
                base_url=session.base_url,
                operation=operation,
                account=account,
                project=project,
                target=target,
                request_body=request.body_json(),  # the journal redacts serverKey
                previous=previous,
                undo_of=undo_of,
            )
        except JournalUnavailable as exc:
            session.warn(f"this change is NOT journaled: {exc.title}. {exc.details}")
    started = time.perf_counter()
    try:
        value = await send()
    except BaseException as exc:
        duration = (time.perf_counter() - started) * 1000
        _finish(
            session,
            entry_id,
            outcome=error_outcome(exc),
            status=getattr(exc, "status", None),
            result=None,
            error=_error_json(exc),
            duration_ms=duration,
        )
        raise
    duration = (time.perf_counter() - started) * 1000
    outcome, status, result = outcome_of(value)
    _finish(
        session,
        entry_id,
        outcome=outcome,
        status=status,
        result=result,
        error=None,
        duration_ms=duration,
    )
    return Applied(value=value, request=request, journal_id=entry_id, duration_ms=duration)


def _finish(session: Session, entry_id: int | None, **outcome: Any) -> None:
    journal = session.journal
    if entry_id is None or journal is None:
        return
    from bottui.store.journal import JournalUnavailable

    try:
        journal.finish(entry_id, **outcome)
    except JournalUnavailable as exc:
        session.warn(f"the outcome is NOT journaled: {exc.title}. {exc.details}")


# -- planning (validation only; also what --dry-run prints) -----------------------


def plan_limiter(
    session: Session, account: str, project: str, limiter_id: str, is_active: bool
) -> PreparedRequest:
    """The request that would switch a limiter, validated; nothing is sent."""
    return session.client().prepare_rate_limiter(account, project, limiter_id, is_active)


def plan_revocation(
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


def plan_thresholds(
    session: Session,
    account: str,
    project: str,
    dimension_id: str,
    thresholds: DimensionThresholds,
) -> PreparedRequest:
    """The threshold update request, validated; nothing is sent."""
    return session.client().prepare_thresholds(account, project, dimension_id, thresholds)


# -- the three changes ------------------------------------------------------------


async def set_limiter(
    session: Session,
    account: str,
    project: str,
    limiter_id: str,
    is_active: bool,
    *,
    confirmed: bool = False,
    undo_of: int | None = None,
) -> Applied[LimiterChange]:
    """Switch a rate limiter on or off, journaled, and learn from the answer."""
    session.check_may_change(confirmed=confirmed)
    request = plan_limiter(session, account, project, limiter_id, is_active)
    token = await session.project_token(account, project)
    previous = _known_limiter_state(session, account, project, limiter_id)
    client = session.client()
    applied = await _journaled(
        session,
        operation=Operation.SET_LIMITER_ACTIVE,
        request=request,
        account=account,
        project=project,
        target=limiter_target(limiter_id),
        previous=previous,
        undo_of=undo_of,
        send=lambda: client.set_rate_limiter_active(account, project, limiter_id, is_active, token),
        outcome_of=lambda change: (
            Outcome.OK,
            change.status,
            {
                "isActive": change.is_active,
                "source": change.source.value,
                "project": change.project.to_json(),
            },
        ),
    )
    inventory = session.inventory
    if inventory is not None:
        _learn(session, lambda: inventory.learn_limiter_change(account, project, applied.value))
    return applied


async def revoke(
    session: Session,
    account: str,
    project: str,
    *,
    visitor_id: str | None = None,
    user_account_id: str | None = None,
    confirmed: bool = False,
) -> Applied[Revocation]:
    """Withdraw the grant held on a visitor id and/or user account id, journaled."""
    session.check_may_change(confirmed=confirmed)
    request = plan_revocation(
        session, account, project, visitor_id=visitor_id, user_account_id=user_account_id
    )
    token = await session.access_token(account)
    client = session.client()
    target = {k: v for k, v in (("visitorId", visitor_id), ("userAccountId", user_account_id)) if v}
    return await _journaled(
        session,
        operation=Operation.REVOKE_GRANT,
        request=request,
        account=account,
        project=project,
        target=target,
        previous=None,
        undo_of=None,
        send=lambda: client.send_revocation(request, token),
        outcome_of=lambda rev: (Outcome.of_revocation(rev.outcome), rev.status, rev.to_json()),
    )


async def set_thresholds(
    session: Session,
    account: str,
    project: str,
    dimension_id: str,
    thresholds: DimensionThresholds,
    *,
    confirmed: bool = False,
    undo_of: int | None = None,
) -> Applied[Any]:
    """Replace a dimension's name and thresholds, journaled, and remember them."""
    session.check_may_change(confirmed=confirmed)
    request = plan_thresholds(session, account, project, dimension_id, thresholds)
    token = await session.access_token(account)
    previous = _known_thresholds(session, account, project, dimension_id)
    client = session.client()
    applied = await _journaled(
        session,
        operation=Operation.SET_THRESHOLDS,
        request=request,
        account=account,
        project=project,
        target=dimension_target(dimension_id),
        previous=previous,
        undo_of=undo_of,
        send=lambda: client.update_dimension_thresholds(
            account, project, dimension_id, thresholds, token
        ),
        outcome_of=lambda update: (Outcome.OK, update.status, thresholds.to_json(dimension_id)),
    )
    inventory = session.inventory
    if inventory is not None:
        _learn(
            session,
            lambda: inventory.learn_thresholds(account, project, dimension_id, thresholds),
        )
    return applied


# -- what the inventory knew before ------------------------------------------------


def _known_limiter_state(
    session: Session, account: str, project: str, limiter_id: str
) -> dict[str, Any] | None:
    """The limiter's state before the change, as the inventory knew it (undo needs it)."""
    inventory = session.inventory
    if inventory is None:
        return None
    entry = _safe(session, lambda: inventory.limiter(account, project, limiter_id))
    return entry.previous() if entry is not None else None


def _known_thresholds(
    session: Session, account: str, project: str, dimension_id: str
) -> dict[str, Any] | None:
    """The dimension's name and thresholds before the change, as the inventory knew them."""
    inventory = session.inventory
    if inventory is None:
        return None
    entry = _safe(session, lambda: inventory.dimension(account, project, dimension_id))
    return entry.previous() if entry is not None else None


def _safe(session: Session, read: Callable[[], T]) -> T | None:
    from bottui.store.inventory import InventoryUnavailable

    try:
        return read()
    except InventoryUnavailable as exc:
        session.warn(f"inventory unavailable: {exc.title}. {exc.details}")
        return None


def _learn(session: Session, write: Callable[[], object]) -> None:
    from bottui.store.inventory import InventoryUnavailable

    try:
        write()
    except InventoryUnavailable as exc:
        session.warn(f"inventory not updated: {exc.title}. {exc.details}")


__all__ = [
    "Applied",
    "RefusedError",
    "plan_limiter",
    "plan_revocation",
    "plan_thresholds",
    "revoke",
    "set_limiter",
    "set_thresholds",
]
