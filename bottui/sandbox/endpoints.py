"""The sandbox's endpoints: the three operations of the spec, its error objects, and ``/_sandbox/``.

:func:`create_app` is a plain ASGI app, :class:`SandboxASGI` (served by uvicorn, or
in-process through ``httpx.ASGITransport``): it routes on ``scope["raw_path"]``, counts and logs
API requests, applies the injected faults (:mod:`bottui.sandbox.faults`), and answers
an API request (:func:`handle`) or, under ``/_sandbox/``, a control request
(:func:`handle_control`).

Routing is on the raw request path, so ids arrive exactly as the client sent them: the
decoded ``scope["path"]`` has already turned ``%2F`` into ``/``; here the raw path is
split on ``/`` first and each segment is percent-decoded (UTF-8) afterwards, so ``a%2Fb``
is the one id ``a/b`` and ``%2E%2E`` is the id ``..``.

An API request is checked in the order a real service would: route (404) and method
(405), then credential (401), token kind and owner (403), scope (403), then the existence
of the project / limiter / dimension (404), then the body (400). Bodies are parsed keeping
each number's JSON text (:class:`RawFloat`, :class:`RawInt`), so a threshold's digits can
be checked exactly as sent; every refusal is a 400 :class:`ApiError` whose
``context.field`` names the culprit.

Every error answers ``{"message", "code", "type", "context"?}``:

======  ======================  =========================
status  code                    type
======  ======================  =========================
400     ``invalid_request``     ``validation_error``
401     ``unauthorized``        ``authentication_error``
403     ``forbidden``           ``permission_error``
404     ``not_found``           ``not_found_error``
405     ``method_not_allowed``  ``invalid_request_error``
413     ``payload_too_large``   ``invalid_request_error``
429     ``rate_limited``        ``rate_limit_error``
5xx     ``unavailable``         ``server_error``
======  ======================  =========================

The sandbox-only endpoints under ``/_sandbox/`` (no auth, not counted, no faults):

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
import logging
import math
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from functools import partial
from typing import Any, Final, NamedTuple, Self
from urllib.parse import unquote_to_bytes

import msgspec
from msgspec.structs import replace

from bottui.sandbox.faults import FaultError, FaultKind, Faults, Hostile, odd_answer
from bottui.sandbox.state import (
    SCOPE_DIMENSION_THRESHOLDS,
    SCOPE_PROJECT_ACTION,
    SECRET_HEADERS,
    SUBJECT_KINDS,
    AuthInfo,
    Dimension,
    ManualClock,
    ProjectApiToken,
    RequestRecord,
    SandboxState,
    SubjectKind,
    TokenRecord,
    iso_utc,
)

# -- error objects -------------------------------------------------------------------------


#: Status -> (code, type) of its error object, as in the table above; any 5xx is
#: ``unavailable``/``server_error``.
ERROR_KINDS: Final[dict[int, tuple[str, str]]] = {
    400: ("invalid_request", "validation_error"),
    401: ("unauthorized", "authentication_error"),
    403: ("forbidden", "permission_error"),
    404: ("not_found", "not_found_error"),
    405: ("method_not_allowed", "invalid_request_error"),
    409: ("conflict", "invalid_request_error"),
    413: ("payload_too_large", "invalid_request_error"),
    429: ("rate_limited", "rate_limit_error"),
}


class ApiError(Exception):
    """An error answer: status, body fields and extra headers.

    ``kind`` is the ``(code, type)`` of the body; by default the status's
    (:data:`ERROR_KINDS`).
    """

    def __init__(
        self,
        status: int,
        message: str,
        context: Any = None,
        headers: dict[str, str] | None = None,
        *,
        kind: tuple[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code, self.type = kind or ERROR_KINDS.get(status, ("unavailable", "server_error"))
        self.message = message
        self.context = context
        self.headers = dict(headers or {})

    def body(self, message: str | None = None) -> dict[str, Any]:
        """The error object; ``message`` replaces the message (hostile mode)."""
        out: dict[str, Any] = {
            "message": self.message if message is None else message,
            "code": self.code,
            "type": self.type,
        }
        if self.context is not None:
            out["context"] = self.context
        return out


def invalid(field: str, message: str) -> ApiError:
    """400: the request (body or path) is not valid; ``context.field`` names the culprit."""
    return ApiError(400, message, {"field": field})


def method_not_allowed(allowed: str) -> ApiError:
    """405 with an ``Allow`` header."""
    return ApiError(
        405, f"Method not allowed; use {allowed}.", {"allowed": [allowed]}, {"allow": allowed}
    )


# -- routing -------------------------------------------------------------------------------

#: What an operation does once every check passed: ``(state, account id, project id, item
#: id, body object)`` -> the 200 body, or ``None`` when the item was removed meanwhile.
Apply = Callable[[SandboxState, str, str, str, dict[str, Any]], Any]


class Operation(NamedTuple):
    """One operation of the API, as the one path of :func:`handle` checks and applies it.

    ``path`` follows ``/api/v1/{account}/projects/{project}``, ``None`` standing for the
    id of ``item`` (a key of :data:`ITEMS`, which must exist); ``token`` is the kind of
    token it needs and ``scope`` the scope a personal token must hold.
    """

    path: tuple[str | None, ...]
    method: str
    token: str
    scope: str | None
    item: str | None
    apply: Apply


class Match(NamedTuple):
    """A path that names an operation, with its decoded ids (``item_id`` empty if none)."""

    operation: Operation
    account_id: str
    project_id: str
    item_id: str = ""


def split_raw_path(raw_path: bytes) -> tuple[str, ...]:
    """The percent-decoded segments of a raw path, without the leading empty one.

    Raises ``UnicodeDecodeError`` when a segment does not decode as UTF-8.
    ``b"/a%2Fb/c"`` gives ``("a/b", "c")``; a path not starting with ``/``
    gives its segments as they are (it will match nothing).
    """
    parts = raw_path.split(b"/")
    if parts and parts[0] == b"":
        parts = parts[1:]
    return tuple(unquote_to_bytes(part).decode("utf-8") for part in parts)


def match(segments: tuple[str, ...]) -> Match | None:
    """The operation a path names, or ``None``."""
    if len(segments) < 5 or segments[:2] != ("api", "v1") or segments[3] != "projects":
        return None
    rest = segments[5:]
    for operation in OPERATIONS:
        path = operation.path
        if len(rest) == len(path) and all(p in (None, r) for p, r in zip(path, rest, strict=True)):
            item_id = rest[path.index(None)] if None in path else ""
            return Match(operation, segments[2], segments[4], item_id)
    return None


# -- request bodies ------------------------------------------------------------------------

MAX_SUBJECT_ID: Final = 256


class _Raw:
    """A number that remembers the JSON text it was parsed from (mixed into float and int)."""

    raw: str

    def __new__(cls, text: str) -> Self:
        value = super().__new__(cls, text)  # type: ignore[call-arg]  # float's or int's
        value.raw = text
        return value


class RawFloat(_Raw, float):
    """A float that remembers the JSON text it was parsed from."""


class RawInt(_Raw, int):
    """An int that remembers the JSON text it was parsed from."""


def parse_json(body: bytes) -> Any:
    """The JSON value of a body, numbers as :class:`RawFloat`/:class:`RawInt`."""
    try:
        return json.loads(body, parse_float=RawFloat, parse_int=RawInt, parse_constant=RawFloat)
    except (ValueError, RecursionError):
        raise invalid("body", "The request body is not valid JSON.") from None


def plain_json(body: bytes) -> Any:
    """The JSON value of a body with plain numbers, or ``None`` when not JSON."""
    if not body:
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _object(body: bytes) -> dict[str, Any]:
    value = parse_json(body)
    if not isinstance(value, dict):
        raise invalid("body", "The request body must be a JSON object.")
    return value


#: Marks a member without a default: its absence is a 400.
_REQUIRED: Final = object()


def _field(
    data: dict[str, Any],
    name: str,
    valid: type | Callable[[Any], bool],
    words: str,
    default: Any = _REQUIRED,
    *,
    prefix: str = "",
) -> Any:
    """``data[name]`` when ``valid`` (a type, or a test; ``default`` when absent, if it has
    one); otherwise a 400 whose ``context.field`` is ``prefix + name``: every member of
    every body is read so."""
    field = prefix + name
    if name not in data:
        if default is _REQUIRED:
            raise invalid(field, f"{field} is required.")
        return default
    value = data[name]
    if not (isinstance(value, valid) if isinstance(valid, type) else valid(value)):
        raise invalid(field, f"{field} must be {words}.")
    return value


def _is_text(value: Any, limit: int | None = None) -> bool:
    """A non-empty string, of at most ``limit`` characters when given."""
    return isinstance(value, str) and 0 < len(value) <= (limit or len(value))


def _finite(value: Any) -> bool:
    """A finite JSON number: never a boolean, nor an integer too large for a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _positive(value: Any) -> bool:
    return _finite(value) and value > 0


def _not_negative(value: Any) -> bool:
    return _finite(value) and value >= 0


def _is_count(value: Any) -> bool:
    return _positive(value) and isinstance(value, int)


def _subjects(
    data: dict[str, Any], *, prefix: str = "", only_one: bool = False
) -> dict[SubjectKind, str]:
    """The subject ids of ``data`` by kind: at least one (exactly one with ``only_one``)."""
    words = f"a string of 1 to {MAX_SUBJECT_ID} characters"
    is_id = partial(_is_text, limit=MAX_SUBJECT_ID)
    found = {
        kind: _field(data, kind, is_id, words, prefix=prefix)
        for kind in SUBJECT_KINDS
        if kind in data
    }
    if not found or (only_one and len(found) > 1):
        needed = "exactly one" if only_one else "one or both"
        raise invalid("subject", f"Give {needed} of {prefix}visitorId, {prefix}userAccountId.")
    return found


# -- the three operations ------------------------------------------------------------------


def _set_active(
    state: SandboxState, account_id: str, project_id: str, limiter_id: str, data: dict[str, Any]
) -> Any:
    active = _field(data, "isActive", bool, "a boolean")
    return state.set_rate_limiter_active(account_id, project_id, limiter_id, active)


def _revoke(
    state: SandboxState, account_id: str, project_id: str, _none: str, data: dict[str, Any]
) -> Any:
    # ``customFields`` and any other member of the subject are ignored.
    subject = _field(data, "subject", dict, "an object")
    ids = _subjects(subject, prefix="subject.")
    return state.revoke(account_id, project_id, ids.get("visitorId"), ids.get("userAccountId"))


def _thresholds(
    state: SandboxState, account_id: str, project_id: str, dimension_id: str, data: dict[str, Any]
) -> Any:
    # The numbers keep their JSON text, so a test can check the digits sent.
    name = _field(data, "name", _is_text, "a non-empty string")
    block = _field(data, "blockThreshold", _finite, "a finite number")
    challenge = _field(data, "challengeThreshold", _finite, "a finite number")
    dimension = Dimension(
        dimension_id, name, float(block), float(challenge), block.raw, challenge.raw
    )
    return {} if state.update_dimension(account_id, project_id, dimension) else None


#: The three operations of the spec.
OPERATIONS: Final = (
    Operation(
        ("rate_limiters", None, "active"), "PATCH", "project", None, "rate_limiter", _set_active
    ),
    Operation(
        ("challenges", "grant-revocations"), "POST", "personal", SCOPE_PROJECT_ACTION, None, _revoke
    ),
    Operation(
        ("dimension-thresholds", None),
        "PUT",
        "personal",
        SCOPE_DIMENSION_THRESHOLDS,
        "dimension",
        _thresholds,
    ),
)

#: Each kind of item a path names, and how the state finds one.
ITEMS: Final = {"rate_limiter": SandboxState.rate_limiter, "dimension": SandboxState.dimension}


class Result(msgspec.Struct):
    """What to answer: status, JSON body, extra headers, and who authenticated."""

    status: int
    body: Any
    headers: dict[str, str] = msgspec.field(default_factory=dict)
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
            raise invalid("path", "The path is not valid UTF-8 once percent-decoded.")
        route = match(segments)
        if route is None:
            raise ApiError(404, "No such endpoint.", {"resource": "endpoint"})
        if method != route.operation.method:
            raise method_not_allowed(route.operation.method)
        record = _authenticate(state, headers)
        auth = auth_info(record)
        _permit(route, record)
        return Result(200, _apply(state, route, body), auth=auth)
    except ApiError as error:
        return error_result(error, state, auth)


def _authenticate(state: SandboxState, headers: Mapping[str, str]) -> TokenRecord:
    token = headers.get("x-api-key", "")
    if not token:
        if headers.get("authorization"):
            raise ApiError(401, "Missing X-Api-Key; the Authorization header is not accepted.")
        raise ApiError(401, "Missing X-Api-Key.")
    record = state.authenticate(token)
    if record is None:
        raise ApiError(401, "Invalid X-Api-Key.")
    return record


#: The words of each kind of token, as a 403 names the one required.
TOKEN_WORDS: Final = {"project": "a project API token", "personal": "a personal access token"}


def _permit(route: Match, record: TokenRecord) -> None:
    """403 unless the token is of the operation's kind, of its owner, with its scope."""
    required, scope = route.operation.token, route.operation.scope
    if record.kind != required:
        context = {"tokenKind": record.kind, "requiredTokenKind": required}
        raise ApiError(403, f"This operation needs {TOKEN_WORDS[required]}.", context)
    if isinstance(record, ProjectApiToken):
        if (record.account_id, record.project_id) != (route.account_id, route.project_id):
            raise ApiError(403, "This token does not belong to this project.")
    elif record.account_id != route.account_id:
        raise ApiError(403, "This token does not belong to this account.")
    elif scope not in record.scopes:
        raise ApiError(403, f"The token lacks the scope {scope!r}.", {"missingScope": scope})


def _missing(resource: str, item_id: str | None = None) -> ApiError:
    """404: no such project, rate limiter or dimension (``item_id``: which one)."""
    context = {"resource": resource} if item_id is None else {"resource": resource, "id": item_id}
    return ApiError(404, f"No such {resource.replace('_', ' ')}.", context)


def _apply(state: SandboxState, route: Match, body: bytes) -> Any:
    """404 unless the project and the item exist, then 400 unless the body is valid; the
    200 body of the operation applied."""
    operation, account_id, project_id, item_id = route
    if not state.has_project(account_id, project_id):
        raise _missing("project", project_id)
    item = operation.item
    if item is not None and ITEMS[item](state, account_id, project_id, item_id) is None:
        raise _missing(item, item_id)
    answer = operation.apply(state, account_id, project_id, item_id, _object(body))
    if answer is None:  # removed meanwhile
        raise _missing(item or "project")
    return answer


# -- the /_sandbox/ endpoints --------------------------------------------------------------

Handler = Callable[[SandboxState, Faults, bytes], Result]


def _control_object(body: bytes) -> dict[str, Any]:
    # The API's parser: numbers keep their text, and are ints and floats all the same.
    return _object(body) if body else {}


def _control_project(state: SandboxState, data: dict[str, Any]) -> tuple[str, str]:
    account_id = _field(data, "accountId", _is_text, "a non-empty string")
    project_id = _field(data, "projectId", _is_text, "a non-empty string")
    if not state.has_project(account_id, project_id):
        raise _missing("project", project_id)
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
    data = _control_object(body)
    try:
        if data.pop("reset", False) is True:
            faults.reset()
        faults.configure_wire(data)
    except FaultError as error:
        raise invalid(error.field, str(error)) from None
    return Result(200, faults.snapshot())


def advance_clock(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``POST /_sandbox/clock`` with ``{"advanceSeconds": n}``."""
    data = _control_object(body)
    clock = state.clock
    if not isinstance(clock, ManualClock):
        raise ApiError(409, "The clock is not manual.")
    now = clock.advance(_field(data, "advanceSeconds", _not_negative, "a number, 0 or more"))
    return Result(200, {"now": iso_utc(now), "epochSeconds": now})


def list_grants(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``GET /_sandbox/grants``."""
    return Result(200, {"grants": [grant.to_json() for grant in state.grants()]})


def issue_grant(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``POST /_sandbox/grants``."""
    data = _control_object(body)
    account_id, project_id = _control_project(state, data)
    lifetime = _field(data, "lifetimeSeconds", _positive, "a positive number", 3600)
    attempts = _field(data, "attempts", _is_count, "a positive integer", 3)
    grants = [
        state.issue_grant(
            account_id, project_id, kind, subject, lifetime_seconds=lifetime, attempts=attempts
        ).to_json()
        for kind, subject in _subjects(data).items()
    ]
    return Result(201, {"grants": grants})


def use_attempt(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``POST /_sandbox/grants/attempts``: 404 when nothing stands."""
    data = _control_object(body)
    account_id, project_id = _control_project(state, data)
    [(kind, subject)] = _subjects(data, only_one=True).items()
    grant = state.use_attempt(account_id, project_id, kind, subject)
    if grant is None:
        raise ApiError(404, "No grant stands on this subject.", {"resource": "grant"})
    return Result(
        200,
        {
            "grantRemainingAttempts": grant.remaining_attempts,
            "standing": grant.remaining_attempts > 0,
        },
    )


def report_outcome(state: SandboxState, faults: Faults, body: bytes) -> Result:
    """``POST /_sandbox/outcomes``: ``FAILED`` removes the grant."""
    data = _control_object(body)
    account_id, project_id = _control_project(state, data)
    [(kind, subject)] = _subjects(data, only_one=True).items()
    outcome = _field(data, "kind", _is_text, "a non-empty string")
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
            raise ApiError(404, "No such sandbox endpoint.", {"resource": "endpoint"})
        handler = methods.get(method)
        if handler is None:
            raise method_not_allowed(", ".join(methods))
        return handler(state, faults, body)
    except ApiError as error:
        return Result(error.status, error.body(), error.headers)
    except (KeyError, ValueError) as error:
        return Result(400, invalid("body", str(error)).body())


# -- the ASGI app --------------------------------------------------------------------------

# The ASGI interface's types, named as in the ASGI specification. No framework: the sandbox
# routes on the raw path itself, so Starlette's router, middleware and lifespan (#29: a
# runtime dependency for three type names and an empty router) were an unused layer.
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Largest request body accepted (413 above).
MAX_BODY: Final = 1 << 20

HTML_GARBAGE: Final = (
    b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>"
    b"<body><h1>Bad Gateway</h1><p>upstream sent nonsense</p></body></html>"
)


class ConnectionDropped(ConnectionError):
    """Raised by the app to cut a response short (the ``drop_next`` fault).

    Under uvicorn the connection is closed after the partial response; with
    ``httpx.ASGITransport`` the client sees this exception itself.
    """


class DropFilter(logging.Filter):
    """Keeps uvicorn from logging the deliberate :class:`ConnectionDropped` as a crash."""

    def filter(self, record: logging.LogRecord) -> bool:
        """``False`` for uvicorn's report of a deliberate drop."""
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ConnectionDropped)


def install_drop_filter() -> None:
    """Add :class:`DropFilter` to the ``uvicorn.error`` logger (once)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, DropFilter) for f in logger.filters):
        logger.addFilter(DropFilter())


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON; ASCII with ``\\uXXXX`` escapes when it holds a lone surrogate."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # the hostile "surrogates" payload: only escapes carry it
        return json.dumps(value, ensure_ascii=True, allow_nan=False).encode("ascii")


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """The whole request body, and whether it exceeded :data:`MAX_BODY`."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks), False
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size <= MAX_BODY:
            chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), size > MAX_BODY


def _start(status: int, body: bytes, content_type: str, extra: dict[str, str]) -> dict[str, Any]:
    headers = [
        (b"content-type", content_type.encode("latin-1")),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"cache-control", b"no-store"),
    ]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in extra.items()]
    return {"type": "http.response.start", "status": status, "headers": headers}


async def _send(
    send: Send, status: int, body: bytes, content_type: str, extra: dict[str, str]
) -> None:
    await send(_start(status, body, content_type, extra))
    await send({"type": "http.response.body", "body": body, "more_body": False})


class SandboxASGI:
    """The raw ASGI app behind :func:`create_app`."""

    def __init__(self, state: SandboxState, faults: Faults) -> None:
        self.state = state
        self.faults = faults

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one HTTP request (websockets are closed)."""
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            return
        raw_path: bytes = scope.get("raw_path") or scope["path"].encode("utf-8")
        try:
            segments: tuple[str, ...] | None = split_raw_path(raw_path)
        except UnicodeDecodeError:
            segments = None
        body, oversized = await _read_body(receive)
        if segments and segments[0] == "_sandbox":
            result = handle_control(self.state, self.faults, scope["method"], segments, body)
            await _send(
                send, result.status, encode_json(result.body), "application/json", result.headers
            )
            return
        await self._api(scope, send, raw_path, segments, body, oversized)

    async def _api(
        self,
        scope: Scope,
        send: Send,
        raw_path: bytes,
        segments: tuple[str, ...] | None,
        body: bytes,
        oversized: bool,
    ) -> None:
        method: str = scope["method"]
        header_list = [
            (name.decode("latin-1").lower(), value.decode("latin-1"))
            for name, value in scope.get("headers", [])
        ]
        headers: dict[str, str] = {}
        for name, value in header_list:
            headers.setdefault(name, value)
        record = RequestRecord(
            method=method,
            raw_path=raw_path.decode("latin-1"),
            segments=segments or (),
            query_string=bytes(scope.get("query_string", b"")).decode("latin-1"),
            body=body,
            json=plain_json(body),
            content_type=headers.get("content-type"),
            # The headers that carry credentials are never recorded.
            headers=tuple((k, v) for k, v in header_list if k not in SECRET_HEADERS),
        )
        recorder = self.state.recorder
        recorder.begin()
        ended = False

        def end(
            status: int | None,
            result: Result | None,
            fault: FaultKind | None,
            dropped: bool = False,
        ) -> None:
            # Logged before the last byte leaves: a client that has its answer
            # finds its request in the log.
            nonlocal ended
            ended = True
            recorder.end(
                replace(
                    record,
                    status=status,
                    auth=result.auth if result else None,
                    fault=fault.value if fault else None,
                    dropped=dropped,
                )
            )

        fault: FaultKind | None = None
        kind = self.faults.hostile
        hostile = Hostile(kind, headers.get("x-api-key", "")) if kind else None
        try:
            await self.faults.delay()
            fault = self.faults.take()
            if fault is FaultKind.DROP:
                await self._drop(send, method, segments, headers, body, end)
                return
            refusal = self._refusal(fault, oversized)
            if refusal is None and fault is FaultKind.NON_JSON:
                end(200, None, fault)
                page = hostile.page(HTML_GARBAGE) if hostile else HTML_GARBAGE
                await _send(send, 200, page, "text/html; charset=utf-8", {})
                return
            if refusal is not None:
                result = error_result(refusal, self.state)
            else:
                result = handle(self.state, method, segments, headers, body)
            payload = hostile.answer(result.status, result.body) if hostile else result.body
            odd = self.faults.hostile_body
            if odd is not None and result.status == 200:
                status, encoded = odd_answer(odd, result.status, payload, encode_json)
            else:
                status, encoded = result.status, encode_json(payload)
            end(status, result, fault)
            await _send(send, status, encoded, "application/json", result.headers)
        finally:
            if not ended:
                end(None, None, fault)

    def _refusal(self, fault: FaultKind | None, oversized: bool) -> ApiError | None:
        """The error answered instead of the operation, in the order of precedence: a body too
        large, an injected failure or 429, then (unless the page of ``non_json_next`` is due)
        ``hostileStatus``; ``None`` when the operation is to be applied."""
        faults = self.faults
        if oversized:
            return ApiError(413, "Request body too large.", {"limitBytes": MAX_BODY})
        if fault in (FaultKind.FAIL, FaultKind.RANDOM_ERROR):
            return ApiError(faults.error_status, "The service is unavailable.")
        if fault is FaultKind.RATE_LIMIT:
            after = faults.retry_after
            context, headers = {"retryAfter": after}, {"retry-after": after}
            return ApiError(429, "Too many requests; retry later.", context, headers)
        if fault is FaultKind.NON_JSON or not faults.hostile_status:
            return None
        return ApiError(
            faults.hostile_status,
            "The sandbox answers every request with this error.",
            {"field": "hostileStatus"},
            kind=("hostile", "hostile_error"),
        )

    async def _drop(
        self,
        send: Send,
        method: str,
        segments: tuple[str, ...] | None,
        headers: dict[str, str],
        body: bytes,
        end: Callable[..., None],
    ) -> None:
        """Start a response, send half of it (or none), log it, cut the connection."""
        result: Result | None = None
        if self.faults.drop_mode == "after":
            result = handle(self.state, method, segments, headers, body)
            status, payload = result.status, encode_json(result.body)
            await send(_start(status, payload, "application/json", result.headers))
            half = payload[: len(payload) // 2]
            await send({"type": "http.response.body", "body": half, "more_body": True})
        else:
            status = 200
            await send(_start(status, b"{}" * 32, "application/json", {}))
        end(status, result, FaultKind.DROP, dropped=True)
        raise ConnectionDropped("sandbox fault: connection dropped mid-response")


def create_app(state: SandboxState, faults: Faults | None = None) -> SandboxASGI:
    """The sandbox as an ASGI app over ``state``, with ``faults`` (default: none)."""
    return SandboxASGI(state, faults if faults is not None else Faults())
