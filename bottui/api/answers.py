"""What a 2xx or error answer's body becomes: decoded JSON, or an error of ours.

Every string kept from a server's body passes through
:func:`bottui.api.scrub.server_json` here (lone surrogates repaired, the
tokens in use masked), so models, errors, the journal and the inventory only
ever hold that text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from bottui.api.errors import ApiError, ErrorObject, UnusableBodyError
from bottui.api.scrub import server_json, server_text
from bottui.plaintext import clean

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
        data = server_json(json.loads(answer.body))
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
        data: Any = server_json(json.loads(body)) if body.strip() else None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        data = None
    return ApiError(status, ErrorObject.parse(data), body_excerpt=excerpt(body))


def excerpt(body: bytes) -> str:
    """The head of a body, masked and cleaned, for an error message."""
    # Masked before it is cut: a token across the cut would leave its head behind.
    text = server_text(body.decode("utf-8", "replace"))
    return clean(text[:EXCERPT_CHARS]) + ("…" if len(text) > EXCERPT_CHARS else "")


__all__ = ["EXCERPT_CHARS", "Answer", "api_error", "decode", "excerpt"]
