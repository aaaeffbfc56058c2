"""One failed attempt of a request, described without the HTTP library's objects.

The client keeps a :class:`Failure` (our error, whether the request may have
arrived, whether to retry) instead of the httpx exception: that exception's
request holds the headers, and so the token.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from bottui.api.errors import BottuiError
from bottui.api.requests import PreparedRequest
from bottui.plaintext import clean


@dataclass(frozen=True)
class Failure:
    """One failed attempt, described without keeping the httpx exception."""

    error: BottuiError
    ambiguous: bool
    retryable: bool
    wait: float | None = None  # from Retry-After


def describe(exc: Exception, request: PreparedRequest, plain: str | None = None) -> str:
    """The exception's text and host, never its request (whose headers hold the token).

    ``plain`` replaces the text when :mod:`bottui.api.netfail` has words for the cause.
    """
    if plain is not None:
        return clean(plain)
    text = clean(str(exc)) or type(exc).__name__
    host = httpx.URL(request.url).host
    return f"{host}: {text}"


def join_details(details: str, note: str) -> str:
    """``details; note`` (or the note alone)."""
    return f"{details}; {note}" if details else note


__all__ = ["Failure", "describe", "join_details"]
