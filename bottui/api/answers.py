"""What one attempt comes back with: a 2xx Answer, or a Failure; and what a body becomes.

What a 2xx or error answer's body becomes: decoded JSON, or an error of ours.

Every string kept from a server's body passes through
:func:`bottui.api.tokens.server_json` here (lone surrogates repaired, the
tokens in use masked), so models, errors, the journal and the inventory only
ever hold that text.

A number the JSON standard does not allow (``NaN``, ``Infinity``), a float
too large for a double (``1e999``) or an integer with more digits than
Python converts is *data*: it is kept as its text (:func:`loads`), so an
answer that holds one is still read, its outcome recorded.

Every excerpt of a body quoted in an error (:func:`excerpt`) has the
tokens in use and every secret member (``serverKey``) masked, by the same
rules as a decoded answer (:mod:`bottui.api.tokens`).

One failed attempt of a request, described without the HTTP library's objects.

The client keeps a :class:`Failure` (our error, whether the request may have
arrived, whether to retry) instead of the httpx exception: that exception's
request holds the headers, and so the token.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Final

import httpx

from bottui.api.errors import ApiError, BottuiError, ErrorObject, UnusableBodyError
from bottui.api.requests import PreparedRequest
from bottui.api.tokens import mask_members, mask_text, server_json, server_text
from bottui.plaintext import clean

# -- answers and their bodies ---------------------------------------------------------------------


#: Characters of a body quoted in an error when it is not an error object.
EXCERPT_CHARS: Final = 200

_NOT_JSON: Final = object()


@dataclass(frozen=True)
class Answer:
    """The final 2xx answer of a request, after its retries."""

    status: int
    body: bytes
    attempts: int
    retried_ambiguous: bool


def decode(answer: Answer, *, allow_empty: bool) -> Any:
    """Decode a 2xx body. An empty body reads as ``{}`` where allowed."""
    if not answer.body.strip() or answer.status == 204:
        if allow_empty:
            return {}
        raise UnusableBodyError(
            f"HTTP {answer.status} with an empty body; the change was probably applied",
            status=answer.status,
        )
    try:
        # Every string as kept from here on: surrogates repaired, tokens masked.
        data = server_json(loads(answer.body))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        data = _NOT_JSON
    if data is _NOT_JSON:
        raise UnusableBodyError(
            f"HTTP {answer.status} but the body is not JSON "
            f"({excerpt(answer.body)!r}); the change was probably applied",
            status=answer.status,
        )
    if not isinstance(data, dict):
        raise UnusableBodyError(
            f"HTTP {answer.status} but the body is not a JSON object; "
            "the change was probably applied",
            status=answer.status,
        )
    return data


def api_error(status: int, body: bytes) -> ApiError:
    """The error of an error status: its error object when the body holds one."""
    try:
        data: Any = server_json(loads(body)) if body.strip() else None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        data = None
    return ApiError(status, ErrorObject.parse(mask_members(data)), body_excerpt=excerpt(body))


def _number(text: str) -> float | str:
    """A JSON float, or its text when it is not finite (``1e999``)."""
    value = float(text)
    return value if math.isfinite(value) else text


def _integer(text: str) -> int | str:
    """A JSON integer, or its text when it has more digits than Python converts."""
    try:
        return int(text)
    except ValueError:
        return text


def loads(body: bytes | str) -> Any:
    """``json.loads``, keeping NaN, infinities and unconvertible numbers as their text.

    Raises what ``json.loads`` raises for a body that is not JSON.
    """
    return json.loads(body, parse_constant=str, parse_float=_number, parse_int=_integer)


def excerpt(body: bytes) -> str:
    """The head of a body, masked (tokens, secret members) and cleaned, for an error message."""
    # Masked before it is cut: a secret across the cut would leave its head behind.
    text = body.decode("utf-8", "replace")
    try:
        text = json.dumps(mask_members(loads(text)), ensure_ascii=False)
    except (json.JSONDecodeError, RecursionError):
        text = mask_text(text)  # not JSON (or cut short): masked member by member
    text = server_text(text)
    return clean(text[:EXCERPT_CHARS]) + ("…" if len(text) > EXCERPT_CHARS else "")


# -- a failed attempt -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """One failed attempt, described without keeping the httpx exception."""

    error: BottuiError
    ambiguous: bool
    retryable: bool
    wait: float | None = None  # from Retry-After


def describe(exc: Exception, request: PreparedRequest, plain: str | None = None) -> str:
    """The exception's text and host, never its request (whose headers hold the token).

    ``plain`` replaces the text when :mod:`bottui.api.transport` has words for the cause.
    """
    if plain is not None:
        return clean(plain)
    text = clean(str(exc)) or type(exc).__name__
    host = httpx.URL(request.url).host
    return f"{host}: {text}"
