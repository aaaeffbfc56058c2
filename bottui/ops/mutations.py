"""Every change bottui makes, from either face, goes through here.

A change is planned once (:mod:`bottui.ops.planning`: validated, the exact
request, the value before, the confirmation it needs), then :func:`apply`
sends it, the one template of every operation: re-check the read-only and
protected rule, find the token, append a *started* journal record (durable)
before sending, send exactly the planned request, teach the inventory what
the answer revealed, and append the *outcome*. A journal or inventory that
cannot be written becomes a warning on the session; the change itself still
goes ahead. ``set_limiter``, ``revoke`` and ``set_thresholds`` are plan-then-apply
conveniences for callers that show nothing before sending (tests, scripts);
the faces plan themselves, show that plan, and :func:`apply` it.

Every journal and inventory call is awaited on the stores' async facades
(``session.journal_store``, ``session.inventory_store``): a journal locked by
another process makes the change wait (at most the store's start bound, then
"not journaled"), never the event loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar

import msgspec

from bottui.api.errors import (
    ApiError,
    BottuiError,
    CredentialsError,
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
from bottui.ops import confirmation, planning, team_facts
from bottui.ops.planning import LimiterTarget, PlannedChange, RevocationTarget
from bottui.ops.session import ChangeOrigin, Session
from bottui.ops.timed_record import push_events, schedule_plan, unschedule
from bottui.store.journal.journal_records import (
    EntryId,
    Operation,
    Outcome,
    RunId,
    dimension_target,
    limiter_target,
)
from bottui.store.store_errors import InventoryUnavailable, JournalUnavailable, StoreError

if TYPE_CHECKING:
    from bottui.api.client import BotProtectionClient
    from bottui.store.inventory.inventory_store import SqliteInventoryStore

T = TypeVar("T")


class Applied(msgspec.Struct, Generic[T], frozen=True):
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
    if isinstance(error, RefusedError | CredentialsError):
        # Refused before sending (a token that cannot be sent, among others).
        return Outcome.REFUSED
    if isinstance(error, asyncio.CancelledError | KeyboardInterrupt):
        return Outcome.INTERRUPTED
    return Outcome.UNKNOWN


def _error_json(error: BaseException) -> dict[str, Any]:
    if isinstance(error, BottuiError):
        body: dict[str, Any] = error.to_json()["error"]
        return body
    return {"status": None, "message": type(error).__name__, "code": None, "type": None}


P = ParamSpec("P")
R = TypeVar("R")

#: Who sends the changes made in this task: an operator unless :func:`sent_by` says otherwise.
_origin: ContextVar[ChangeOrigin] = ContextVar("change_origin", default="operator")


@contextmanager
def sent_by(origin: ChangeOrigin) -> Iterator[None]:
    """Count the changes sent inside (in this task) as ``origin``'s (a due revert's executor)."""
    token = _origin.set(origin)
    try:
        yield
    finally:
        _origin.reset(token)


def _counted(
    send: Callable[Concatenate[Session, P], Awaitable[R]],
) -> Callable[Concatenate[Session, P], Awaitable[R]]:
    """Count the change in ``session.in_flight``, by origin, until its outcome is journaled.

    A face asks before quitting over an operator's change in flight: its
    outcome would be left unknown in the journal.
    """

    async def counted(session: Session, /, *args: P.args, **kwargs: P.kwargs) -> R:
        origin = _origin.get()
        session.in_flight[origin] += 1
        try:
            return await send(session, *args, **kwargs)
        finally:
            session.in_flight[origin] -= 1

    return counted


@_counted
async def _journaled(
    session: Session,
    plan: PlannedChange[Any],
    wire: _Wire[T],
    before_send: _Schedule | None,
    *,
    run_id: int | None,
    item_key: str | None,
) -> Applied[T]:
    """Journal *started*, send, journal the outcome (even on failure or cancel).

    ``before_send`` runs after the started record, before sending, with its
    id (None: not journaled); what it raises is journaled as the outcome and
    nothing is sent (a timed change's schedule, :mod:`bottui.ops.timed`).
    """
    entry_id: int | None = None
    try:
        # Awaited on the store executor: a locked journal waits there (at most
        # the store's start bound), never on the event loop.
        entry_id = await session.journal_store.start(
            profile=session.settings.inventory_scope,
            base_url=session.base_url,
            operation=wire.operation,
            account=plan.account,
            project=plan.project,
            target=wire.target,
            request_body=plan.request.body_json(),  # the journal redacts serverKey
            previous=plan.previous_json,
            undo_of=EntryId(plan.undo_of) if plan.undo_of is not None else None,
            operator=session.settings.operator,
            reason=plan.journal_reason,
            run_id=RunId(run_id) if run_id is not None else None,
            item_key=item_key,
        )
    except JournalUnavailable as exc:
        session.warn(f"this change is NOT journaled: {exc.title}. {exc.details}")
    started = time.perf_counter()
    failure: BaseException | None = None
    try:
        if before_send is not None:
            await before_send(entry_id)
        value = await wire.send()
    except BaseException as exc:
        failure = exc
    duration = (time.perf_counter() - started) * 1000
    if failure is None:
        outcome, status, result = wire.outcome_of(value)
    else:
        outcome, status, result = error_outcome(failure), getattr(failure, "status", None), None
        if before_send is not None:
            await before_send.failed(outcome)
    if entry_id is not None:
        try:
            # Shielded: a cancelled change (Ctrl+C, a closed screen) still records
            # its outcome; the write goes on in the store's lane either way.
            await asyncio.shield(
                session.journal_store.finish(
                    EntryId(entry_id),
                    outcome=outcome,
                    status=status,
                    result=result,
                    error=None if failure is None else _error_json(failure),
                    duration_ms=duration,
                )
            )
        except JournalUnavailable as exc:
            session.warn(f"the outcome is NOT journaled: {exc.title}. {exc.details}")
    if failure is not None:
        raise failure
    return Applied(value=value, request=plan.request, journal_id=entry_id, duration_ms=duration)


# -- the pipeline: one template for every change ---------------------------------


async def apply(
    session: Session,
    plan: PlannedChange[T],
    *,
    confirmed: bool = False,
    run_id: int | None = None,
    item_key: str | None = None,
) -> Applied[T]:
    """Send a planned change: re-check the rule, journal, send ``plan.requests``, learn.

    ``run_id`` and ``item_key`` journal it as one step of a run (a playbook's).

    Nothing is prepared again: the bytes sent are the plan's. The rule of
    :mod:`bottui.ops.confirmation` is checked again against the session's
    settings now (the profile may have changed since planning).

    Raises:
        RefusedError: read-only (a refused plan), no reason where the profile
            requires one, protected and not ``confirmed``, or the plan was made
            for another base URL; nothing sent, nothing journaled.
        BottuiError: as the client raises for the request.
    """
    confirmation.enforce(
        session.settings, plan.confirmation, confirmed=confirmed, reason=plan.reason
    )
    client = session.client()
    _check_base_url(client.base_url, plan.request)
    wire = await _wire(session, client, plan)
    schedule = _Schedule(session, plan, confirmed) if plan.revert_after is not None else None
    applied: Applied[T] = await _journaled(
        session, plan, wire, schedule, run_id=run_id, item_key=item_key
    )
    if wire.learn is not None:
        await wire.learn(applied.value)
    if plan.revert_after is not None:
        # After the change, not before: the team store never delays a mitigation.
        await push_events(session)
    return applied


class _Wire(msgspec.Struct, Generic[T], frozen=True):
    """How one planned change goes on the wire: journaled as what, sent how, learnt from."""

    operation: Operation
    #: The journal's ``target``.
    target: dict[str, Any]
    #: Sends exactly the plan's request, with the token it needs.
    send: Callable[[], Awaitable[T]]
    #: The journal's outcome, status and result of the answer.
    outcome_of: Callable[[T], tuple[Outcome, int | None, dict[str, Any] | None]]
    #: What the answer teaches the inventory and the team (None: nothing).
    learn: Callable[[T], Awaitable[None]] | None = None


async def _wire(session: Session, client: BotProtectionClient, plan: PlannedChange[T]) -> Any:
    """The :class:`_Wire` of ``plan``'s target, its token found (``CredentialsError``)."""
    request, target = plan.request, plan.target
    account, project = plan.account, plan.project
    if isinstance(target, LimiterTarget):
        project_token = await session.project_token(account, project)

        async def learn_limiter(change: LimiterChange) -> None:
            await _learn(
                session, lambda store: store.learn_limiter_change(account, project, change)
            )
            await team_facts.share(session, team_facts.limiter_change(account, project, change))

        return _Wire(
            Operation.SET_LIMITER_ACTIVE,
            limiter_target(target.limiter_id),
            lambda: client.send_rate_limiter(
                request, target.limiter_id, target.is_active, project_token
            ),
            _limiter_outcome,
            learn_limiter,
        )
    token = await session.access_token(account)
    if isinstance(target, RevocationTarget):
        return _Wire(
            Operation.REVOKE_GRANT,
            target.journal_target(),
            lambda: client.send_revocation(request, token),
            lambda rev: (Outcome.of_revocation(rev.outcome), rev.status, rev.to_json()),
        )
    dimension_id, thresholds = target.dimension_id, target.thresholds

    async def learn_thresholds(_update: object) -> None:
        await _learn(
            session,
            lambda store: store.learn_thresholds(account, project, dimension_id, thresholds),
        )
        await team_facts.share(
            session, team_facts.thresholds(account, project, dimension_id, thresholds)
        )

    return _Wire(
        Operation.SET_THRESHOLDS,
        dimension_target(dimension_id),
        lambda: client.send_thresholds(request, dimension_id, thresholds, token),
        lambda update: (Outcome.OK, update.status, thresholds.to_json(dimension_id)),
        learn_thresholds,
    )


class _Schedule:
    """Journals a timed change's schedule before sending; cancels it when the change failed.

    A change that surely changed nothing (an error answer, refused, no connection) has
    nothing to revert: its schedule gets a ``cancel`` event. One whose outcome is not
    known (a timeout after sending, interrupted) keeps it: ``run-due`` reports it
    ``in-doubt`` and a person decides.
    """

    def __init__(self, session: Session, plan: PlannedChange[Any], confirmed: bool) -> None:
        self.session, self.plan, self.confirmed = session, plan, confirmed
        self.key: str | None = None

    async def __call__(self, entry_id: int | None) -> None:
        if entry_id is None:
            raise RefusedError(
                "Not timed",
                "the journal cannot be written, so the revert could not be scheduled: "
                "nothing was sent",
            )
        try:
            self.key = await schedule_plan(
                self.session, self.plan, entry_id, confirmed=self.confirmed
            )
        except StoreError as exc:
            raise RefusedError(
                "Not timed",
                f"the revert could not be scheduled ({exc.title}): nothing was sent",
            ) from None

    async def failed(self, outcome: Outcome) -> None:
        if self.key is None or outcome in (Outcome.UNKNOWN, Outcome.INTERRUPTED):
            return
        await unschedule(self.session, self.key, f"the change ended as {outcome}")


def _check_base_url(base_url: str, request: PreparedRequest) -> None:
    """Refuse a plan made against another base URL (the token would not be its own)."""
    if request.url.startswith(base_url) and request.url[len(base_url) :].startswith("/"):
        return
    raise RefusedError(
        "Out-of-date plan",
        f"the change was planned for another base URL than {base_url}: plan it again; "
        "nothing was sent",
    )


def _limiter_outcome(change: LimiterChange) -> tuple[Outcome, int | None, dict[str, Any]]:
    return (
        Outcome.OK,
        change.status,
        {
            "isActive": change.is_active,
            "source": change.source.value,
            "project": change.project.to_json(),
        },
    )


async def _learn(
    session: Session, write: Callable[[SqliteInventoryStore], Awaitable[None]]
) -> None:
    try:
        await write(session.inventory_store)
    except InventoryUnavailable as exc:
        session.warn(f"inventory not updated: {exc.title}. {exc.details}")


# -- the three changes, as their callers knew them: plan, then apply ---------------


async def set_limiter(
    session: Session,
    account: str,
    project: str,
    limiter_id: str,
    is_active: bool,
    *,
    confirmed: bool = False,
    undo_of: int | None = None,
    reason: str | None = None,
) -> Applied[LimiterChange]:
    """Switch a rate limiter on or off, journaled, and learn from the answer."""
    plan = await planning.plan_limiter(
        session, account, project, limiter_id, is_active, undo_of=undo_of
    )
    return await apply(session, plan.with_reason(reason), confirmed=confirmed)


async def revoke(
    session: Session,
    account: str,
    project: str,
    *,
    visitor_id: str | None = None,
    user_account_id: str | None = None,
    confirmed: bool = False,
    reason: str | None = None,
) -> Applied[Revocation]:
    """Withdraw the grant held on a visitor id and/or user account id, journaled."""
    plan = await planning.plan_revocation(
        session, account, project, visitor_id=visitor_id, user_account_id=user_account_id
    )
    return await apply(session, plan.with_reason(reason), confirmed=confirmed)


async def set_thresholds(
    session: Session,
    account: str,
    project: str,
    dimension_id: str,
    thresholds: DimensionThresholds,
    *,
    confirmed: bool = False,
    undo_of: int | None = None,
    reason: str | None = None,
) -> Applied[Any]:
    """Replace a dimension's name and thresholds, journaled, and remember them."""
    plan = await planning.plan_thresholds(
        session, account, project, dimension_id, thresholds, undo_of=undo_of
    )
    return await apply(session, plan.with_reason(reason), confirmed=confirmed)
