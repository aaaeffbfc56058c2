"""Sending one request: each attempt's answer or failure, retries in one deadline, a shared pause.

What one attempt comes back with: a 2xx :class:`Answer`, or a :class:`Failure`;
and what a 2xx or error answer's body becomes: decoded JSON, or an error of ours.

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

When to try an operation again, and how long to wait before it.

Exponential backoff with jitter for 429, 502, 503, 504 and connection
failures; ``Retry-After`` (seconds or an HTTP date) is honoured up to a cap;
and nothing waits past the operation's total deadline. Time comes in through
injectable callables so tests never wait.

A pause shared by every request of a run: one 429 slows the whole run down.

When the service answers 429 (or 503 with ``Retry-After``), the request that
got it waits before its retry, as always. With a :class:`SharedPause` passed
to :meth:`~bottui.api.client.BotProtectionClient.send`, every other request
of the run waits until the same moment before its next attempt, so a bulk
run stops hammering a service that asked it to slow down.

Time comes from the client's :class:`~bottui.api.sending.Timing`, so tests that
inject a fake clock and sleep see the pause as injected sleeps.

The retry loop (:func:`send_with_retries`) and how an answered status
becomes an :class:`~bottui.api.sending.Answer` or a
:class:`~bottui.api.sending.Failure` (:func:`answered`) serve every request
of :class:`~bottui.api.client.BotProtectionClient`, a single change or one
id of a bulk run alike, so every outcome is classified one way (a timeout or
a connection lost after sending is *unknown*, never *failed*).
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Final

import httpx
import msgspec

from bottui.api.errors import (
    ApiError,
    BottuiError,
    DeadlineExceeded,
    ErrorObject,
    NetworkError,
    UnusableBodyError,
)
from bottui.api.requests import PreparedRequest
from bottui.api.tokens import mask_members, mask_text, server_json, server_text
from bottui.plaintext import clean

# -- answers and failures -------------------------------------------------------------------------


#: Characters of a body quoted in an error when it is not an error object.
EXCERPT_CHARS: Final = 200

_NOT_JSON: Final = object()


class Answer(msgspec.Struct, frozen=True):
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
        problem = "with an empty body"
    else:
        data = _server_json(answer.body)
        if isinstance(data, dict):
            return data
        problem = "but the body is not a JSON object"
        if data is _NOT_JSON:
            problem = f"but the body is not JSON ({excerpt(answer.body)!r})"
    raise UnusableBodyError(
        f"HTTP {answer.status} {problem}; the change was probably applied", status=answer.status
    )


def api_error(status: int, body: bytes) -> ApiError:
    """The error of an error status: its error object when the body holds one."""
    error = ErrorObject.parse(mask_members(_server_json(body)))
    return ApiError(status, error, body_excerpt=excerpt(body))


def _server_json(body: bytes) -> Any:
    """A body decoded as every string is kept from here on (surrogates repaired, tokens
    masked: :func:`~bottui.api.tokens.server_json`); ``_NOT_JSON`` when it is not JSON."""
    try:
        return server_json(loads(body))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return _NOT_JSON


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


class Failure(msgspec.Struct, frozen=True):
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


# -- retries --------------------------------------------------------------------------------------


RETRY_STATUSES: Final = frozenset({429, 502, 503, 504})


# A 502 or 504 came from a gateway that may already have forwarded the
# request: the service may have acted on it.
AMBIGUOUS_STATUSES: Final = frozenset({502, 504})

Sleep = Callable[[float], Awaitable[None]]

Clock = Callable[[], float]

WallClock = Callable[[], datetime]


def _utcnow() -> datetime:
    return datetime.now(UTC)


class RetryPolicy(msgspec.Struct, frozen=True):
    """How many attempts, how far apart, and the total deadline.

    Attributes:
        max_attempts: Attempts in all, the first included.
        base_delay: Delay before the second attempt, doubled each time.
        max_delay: Cap of one backoff delay.
        retry_after_cap: Cap of a server's ``Retry-After``.
        deadline: Seconds for the whole operation, retries and waits included.
        connect_timeout: Per-attempt connect timeout.
        read_timeout: Per-attempt timeout for each read and write.
    """

    max_attempts: int = 4
    base_delay: float = 0.25
    max_delay: float = 4.0
    retry_after_cap: float = 30.0
    deadline: float = 30.0
    connect_timeout: float = 5.0
    read_timeout: float = 10.0

    def backoff(self, retry_number: int, rng: random.Random) -> float:
        """Delay before retry ``retry_number`` (1-based): equal jitter.

        Half the exponential delay is fixed and half random, so retries of
        many clients spread out but never collapse to zero wait.
        """
        ceiling: float = min(self.max_delay, self.base_delay * 2.0 ** (retry_number - 1))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` header; None if absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.isdigit():
        return float(text)
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


class Timing(msgspec.Struct):
    """The injectable sources of time and chance a client uses."""

    sleep: Sleep = asyncio.sleep
    clock: Clock = time.monotonic
    wall: WallClock = _utcnow
    rng: random.Random = msgspec.field(default_factory=random.Random)


class SharedPause:
    """The moment (on the client's clock) before which no request may go out.

    Attributes:
        until: Clock reading when the pause ends (``-inf``: never paused).
        count: How many answers asked for a pause so far.
    """

    def __init__(self) -> None:
        self.until: float = -math.inf
        self.count = 0

    def __repr__(self) -> str:
        return f"SharedPause(until={self.until!r}, count={self.count})"

    def hold(self, now: float, seconds: float) -> None:
        """Pause every request until ``now + seconds`` (never shortens a pause)."""
        if seconds <= 0:
            return
        self.count += 1
        end = now + seconds
        if end > self.until:
            self.until = end

    def remaining(self, now: float) -> float:
        """Seconds left before requests may go out again (0 when not paused)."""
        return max(0.0, self.until - now)

    async def wait(self, timing: Timing, *, limit: float = math.inf) -> None:
        """Sleep until the pause is over (re-checked: it may be extended meanwhile).

        ``limit`` is a clock reading not to sleep past (a request's deadline).
        """
        while True:
            now = timing.clock()
            end = min(self.until, limit)
            if end <= now:
                return
            await timing.sleep(end - now)


#: One attempt, given the seconds left before the deadline; never raises for
#: transport trouble (returns a Failure).
Attempt = Callable[[float], Awaitable[Answer | Failure]]


def answered(status: int, body: bytes, retry_after: str | None, timing: Timing) -> Answer | Failure:
    """What an answer of ``status`` is: a 2xx :class:`Answer`, or a :class:`Failure`."""
    if 200 <= status < 300:
        return Answer(status, body, attempts=1, retried_ambiguous=False)
    error = api_error(status, body)
    if status in RETRY_STATUSES:
        wait = None
        if status in (429, 503):
            wait = parse_retry_after(retry_after, timing.wall())
        return Failure(error, ambiguous=status in AMBIGUOUS_STATUSES, retryable=True, wait=wait)
    return Failure(error, ambiguous=False, retryable=False)


async def send_with_retries(
    attempt: Attempt, policy: RetryPolicy, timing: Timing, pause: SharedPause | None
) -> Answer:
    """Attempt until an answer, a final failure or the deadline; raise on failure.

    With a ``pause`` (a bulk run shares one among its requests), every
    attempt first waits out the pause, and a 429 (or a 503 with
    ``Retry-After``) extends it by the wait this request takes, so every
    request of the run slows down together. The deadline starts once the
    first wait is over.
    """
    if pause is not None:
        await pause.wait(timing)
    deadline_at = timing.clock() + policy.deadline
    ambiguous = False
    attempt_number = 0
    while True:
        attempt_number += 1
        remaining = deadline_at - timing.clock()
        if remaining <= 0:
            raise DeadlineExceeded(
                "Timed out",
                f"no answer within the {policy.deadline:g} s deadline",
                attempts=attempt_number - 1,
                ambiguous=ambiguous,
            )
        outcome = await attempt(remaining)
        if isinstance(outcome, Answer):
            if attempt_number == 1:
                return outcome  # the common case: no copy
            return Answer(
                outcome.status,
                outcome.body,
                attempts=attempt_number,
                retried_ambiguous=ambiguous,
            )
        ambiguous = ambiguous or outcome.ambiguous
        error = outcome.error
        if isinstance(error, ApiError | NetworkError):
            error.attempts = attempt_number
            # Any attempt that may have arrived makes the outcome unknown,
            # whatever the last one answered (a 400 after a timeout too).
            error.ambiguous = ambiguous
        if not outcome.retryable:
            raise error
        if attempt_number >= policy.max_attempts:
            error.add_note(f"gave up after {attempt_number} attempts")
            raise error
        if outcome.wait is not None:
            wait = min(outcome.wait, policy.retry_after_cap)
        else:
            wait = policy.backoff(attempt_number, timing.rng)
        if pause is not None and (
            outcome.wait is not None or (isinstance(error, ApiError) and error.status == 429)
        ):
            pause.hold(timing.clock(), wait)
        if timing.clock() + wait >= deadline_at:
            note = (
                f"the next retry ({wait:.1f} s away) would pass the "
                f"{policy.deadline:g} s deadline; gave up after {attempt_number} attempts"
            )
            error.add_note(note)
            raise error
        await timing.sleep(wait)
        if pause is not None:
            await pause.wait(timing, limit=deadline_at)
