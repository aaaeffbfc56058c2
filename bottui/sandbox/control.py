"""The sandbox-only endpoints under ``/_sandbox/`` (no auth, not counted, no faults).

=======  ==========================  ================================================
method   path                        effect
=======  ==========================  ================================================
GET      ``/_sandbox/stats``         ``{"requests", "inFlight", "peakInFlight"}``
POST     ``/_sandbox/reset``         zero the counters and clear the request log
GET/PUT  ``/_sandbox/faults``        read / change fault settings (camelCase names)
POST     ``/_sandbox/clock``         ``{"advanceSeconds"}``; only with a ManualClock
GET      ``/_sandbox/grants``        standing grants
POST     ``/_sandbox/grants``        issue: ``{accountId, projectId, visitorId and/or
                                     userAccountId, lifetimeSeconds?, attempts?}``
POST     ``/_sandbox/grants/attempts``  use one attempt of the grant on one subject
POST     ``/_sandbox/outcomes``      ``{..., "kind": "FAILED"}`` removes the grant
=======  ==========================  ================================================
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from bottui.sandbox import errors
from bottui.sandbox.clock import ManualClock, iso_utc
from bottui.sandbox.errors import ApiError
from bottui.sandbox.faults import FaultError, Faults
from bottui.sandbox.handlers import Result
from bottui.sandbox.model import SUBJECT_KINDS, SubjectKind
from bottui.sandbox.state import SandboxState

Handler = Callable[[SandboxState, Faults, bytes], Result]


def _object(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body) if body else {}
    except (ValueError, RecursionError):
        raise errors.invalid("body", "The request body is not valid JSON.") from None
    if not isinstance(value, dict):
        raise errors.invalid("body", "The request body must be a JSON object.")
    return value


def _string(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise errors.invalid(name, f"{name} must be a non-empty string.")
    return value


def _subjects(data: dict[str, Any], *, only_one: bool) -> list[tuple[SubjectKind, str]]:
    found: list[tuple[SubjectKind, str]] = []
    for kind in SUBJECT_KINDS:
        if kind in data:
            found.append((kind, _string(data, kind)))
    if not found or (only_one and len(found) > 1):
        needed = "exactly one of" if only_one else "visitorId and/or"
        raise errors.invalid("subject", f"Give {needed} visitorId, userAccountId.")
    return found


def _project(state: SandboxState, data: dict[str, Any]) -> tuple[str, str]:
    account_id, project_id = _string(data, "accountId"), _string(data, "projectId")
    if not state.has_project(account_id, project_id):
        raise errors.not_found("No such project.", {"resource": "project", "id": project_id})
    return account_id, project_id


def stats(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``GET /_sandbox/stats``."""
    return Result(200, state.recorder.stats().to_json())


def reset(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``POST /_sandbox/reset``: counters and log."""
    state.recorder.reset()
    return Result(200, state.recorder.stats().to_json())


def get_faults(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``GET /_sandbox/faults``."""
    return Result(200, faults.snapshot())


def put_faults(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``PUT /_sandbox/faults``: change the settings given, keep the others."""
    data = _object(body)
    try:
        if data.pop("reset", False) is True:
            faults.reset()
        faults.configure_wire(data)
    except FaultError as error:
        raise errors.invalid(error.field, str(error)) from None
    return Result(200, faults.snapshot())


def advance_clock(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``POST /_sandbox/clock`` with ``{"advanceSeconds": n}``."""
    data = _object(body)
    clock = state.clock
    if not isinstance(clock, ManualClock):
        raise ApiError(409, "conflict", "invalid_request_error", "The clock is not manual.")
    seconds = data.get("advanceSeconds")
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not math.isfinite(seconds)
        or seconds < 0
    ):
        raise errors.invalid("advanceSeconds", "advanceSeconds is a number, 0 or more.")
    now = clock.advance(seconds)
    return Result(200, {"now": iso_utc(now), "epochSeconds": now})


def list_grants(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``GET /_sandbox/grants``."""
    return Result(200, {"grants": [grant.to_json() for grant in state.grants()]})


def issue_grant(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``POST /_sandbox/grants``."""
    data = _object(body)
    account_id, project_id = _project(state, data)
    lifetime = data.get("lifetimeSeconds", 3600)
    if (
        isinstance(lifetime, bool)
        or not isinstance(lifetime, int | float)
        or not math.isfinite(lifetime)
        or lifetime <= 0
    ):
        raise errors.invalid("lifetimeSeconds", "lifetimeSeconds is a positive number.")
    attempts = data.get("attempts", 3)
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts <= 0:
        raise errors.invalid("attempts", "attempts is a positive integer.")
    grants = [
        state.issue_grant(
            account_id, project_id, kind, subject, lifetime_seconds=lifetime, attempts=attempts
        ).to_json()
        for kind, subject in _subjects(data, only_one=False)
    ]
    return Result(201, {"grants": grants})


def use_attempt(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``POST /_sandbox/grants/attempts``: 404 when nothing stands."""
    data = _object(body)
    account_id, project_id = _project(state, data)
    [(kind, subject)] = _subjects(data, only_one=True)
    grant = state.use_attempt(account_id, project_id, kind, subject)
    if grant is None:
        raise errors.not_found("No grant stands on this subject.", {"resource": "grant"})
    return Result(
        200,
        {
            "grantRemainingAttempts": grant.remaining_attempts,
            "standing": grant.remaining_attempts > 0,
        },
    )


def report_outcome(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``POST /_sandbox/outcomes``: ``FAILED`` removes the grant."""
    data = _object(body)
    account_id, project_id = _project(state, data)
    [(kind, subject)] = _subjects(data, only_one=True)
    outcome = _string(data, "kind")
    record = state.report_outcome(account_id, project_id, kind, subject, outcome)
    return Result(200, {"recorded": True, "kind": outcome, "grantRemoved": record.removed_grant})


ROUTES: dict[tuple[str, ...], dict[str, Handler]] = {
    ("_sandbox", "stats"): {"GET": stats},
    ("_sandbox", "reset"): {"POST": reset},
    ("_sandbox", "faults"): {"GET": get_faults, "PUT": put_faults},
    ("_sandbox", "clock"): {"POST": advance_clock},
    ("_sandbox", "grants"): {"GET": list_grants, "POST": issue_grant},
    ("_sandbox", "grants", "attempts"): {"POST": use_attempt},
    ("_sandbox", "outcomes"): {"POST": report_outcome},
}


def handle_control(
    state: SandboxState, faults: Faults, method: str, segments: tuple[str, ...], body: bytes
) -> Result:
    """Answer one ``/_sandbox/`` request."""
    try:
        methods = ROUTES.get(segments)
        if methods is None:
            raise errors.not_found("No such sandbox endpoint.", {"resource": "endpoint"})
        handler = methods.get(method)
        if handler is None:
            raise errors.method_not_allowed(", ".join(methods))
        return handler(state, faults, body)
    except ApiError as error:
        return Result(error.status, error.body(), error.headers)
    except (KeyError, ValueError) as error:
        return Result(400, errors.invalid("body", str(error)).body())
