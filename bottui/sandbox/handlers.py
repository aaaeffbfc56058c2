"""The three API operations: routing result -> authentication -> permission -> state.

Checks run in the order a real service would: route (404) and method (405),
then credential (401), token kind and owner (403), scope (403), then the
existence of the project / limiter / dimension (404), then the body (400).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bottui.sandbox import bodies, errors
from bottui.sandbox.errors import ApiError
from bottui.sandbox.model import (
    SCOPE_DIMENSION_THRESHOLDS,
    SCOPE_PROJECT_ACTION,
    PersonalToken,
    ProjectApiToken,
    TokenRecord,
)
from bottui.sandbox.recorder import AuthInfo
from bottui.sandbox.routing import Match, Operation, match
from bottui.sandbox.state import SandboxState


@dataclass
class Result:
    """What to answer: status, JSON body, extra headers, and who authenticated."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    auth: AuthInfo | None = None


def error_result(error: ApiError, state: SandboxState, auth: AuthInfo | None = None) -> Result:
    """An error as a :class:`Result`, with the state's hostile message if set."""
    return Result(error.status, error.body(state.error_message), error.headers, auth)


def auth_info(record: TokenRecord) -> AuthInfo:
    """The loggable description of a token (never its value)."""
    project_id = record.project_id if isinstance(record, ProjectApiToken) else None
    return AuthInfo(record.kind, record.account_id, project_id, record.label)


def handle(
    state: SandboxState,
    method: str,
    segments: tuple[str, ...] | None,
    headers: Mapping[str, str],
    body: bytes,
) -> Result:
    """Answer one API request. ``segments`` is ``None`` when the path was not UTF-8."""
    auth: AuthInfo | None = None
    try:
        if segments is None:
            raise errors.invalid("path", "The path is not valid UTF-8 once percent-decoded.")
        route = match(segments)
        if route is None:
            raise errors.not_found("No such endpoint.", {"resource": "endpoint"})
        if method != route.method:
            raise errors.method_not_allowed(route.method)
        record = _authenticate(state, headers)
        auth = auth_info(record)
        if route.operation is Operation.SET_ACTIVE:
            return Result(200, _set_active(state, route, record, body), auth=auth)
        _check_personal(route, record)
        if route.operation is Operation.REVOKE:
            return Result(200, _revoke(state, route, body), auth=auth)
        return Result(200, _thresholds(state, route, body), auth=auth)
    except ApiError as error:
        return error_result(error, state, auth)


def _authenticate(state: SandboxState, headers: Mapping[str, str]) -> TokenRecord:
    token = headers.get("x-api-key", "")
    if not token:
        if headers.get("authorization"):
            raise errors.unauthorized(
                "Missing X-Api-Key; the Authorization header is not accepted."
            )
        raise errors.unauthorized("Missing X-Api-Key.")
    record = state.authenticate(token)
    if record is None:
        raise errors.unauthorized("Invalid X-Api-Key.")
    return record


def _set_active(state: SandboxState, route: Match, record: TokenRecord, body: bytes) -> Any:
    if not isinstance(record, ProjectApiToken):
        raise errors.forbidden(
            "This operation needs a project API token.",
            {"tokenKind": record.kind, "requiredTokenKind": "project"},
        )
    if record.account_id != route.account_id or record.project_id != route.project_id:
        raise errors.forbidden("This token does not belong to this project.")
    _require_project(state, route)
    assert route.item_id is not None
    if state.rate_limiter(route.account_id, route.project_id, route.item_id) is None:
        raise errors.not_found(
            "No such rate limiter.", {"resource": "rate_limiter", "id": route.item_id}
        )
    active = bodies.parse_set_active(body)
    project = state.set_rate_limiter_active(
        route.account_id, route.project_id, route.item_id, active
    )
    if project is None:  # removed meanwhile
        raise errors.not_found("No such rate limiter.", {"resource": "rate_limiter"})
    return project


def _check_personal(route: Match, record: TokenRecord) -> None:
    if not isinstance(record, PersonalToken):
        raise errors.forbidden(
            "This operation needs a personal access token.",
            {"tokenKind": record.kind, "requiredTokenKind": "personal"},
        )
    if record.account_id != route.account_id:
        raise errors.forbidden("This token does not belong to this account.")
    scope = (
        SCOPE_PROJECT_ACTION if route.operation is Operation.REVOKE else SCOPE_DIMENSION_THRESHOLDS
    )
    if scope not in record.scopes:
        raise errors.forbidden(f"The token lacks the scope {scope!r}.", {"missingScope": scope})


def _require_project(state: SandboxState, route: Match) -> None:
    if not state.has_project(route.account_id, route.project_id):
        raise errors.not_found("No such project.", {"resource": "project", "id": route.project_id})


def _revoke(state: SandboxState, route: Match, body: bytes) -> Any:
    _require_project(state, route)
    visitor_id, user_account_id = bodies.parse_revocation(body)
    return state.revoke(route.account_id, route.project_id, visitor_id, user_account_id)


def _thresholds(state: SandboxState, route: Match, body: bytes) -> Any:
    _require_project(state, route)
    assert route.item_id is not None
    if state.dimension(route.account_id, route.project_id, route.item_id) is None:
        raise errors.not_found("No such dimension.", {"resource": "dimension", "id": route.item_id})
    update = bodies.parse_thresholds(body)
    done = state.update_dimension(
        route.account_id,
        route.project_id,
        route.item_id,
        name=update.name,
        block=update.block,
        challenge=update.challenge,
        block_raw=update.block_raw,
        challenge_raw=update.challenge_raw,
    )
    if not done:  # removed meanwhile
        raise errors.not_found("No such dimension.", {"resource": "dimension"})
    return {}
