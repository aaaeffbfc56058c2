"""Sending one request with retries inside one total deadline, whatever carries it.

:class:`~bottui.api.client.BotProtectionClient` (over httpx's API) and
:class:`~bottui.api.lean.LeanRevocations` (straight on aiohttp, for bulk
runs) share this: the retry loop (:func:`send_with_retries`) and how an
answered status becomes an :class:`~bottui.api.answers.Answer` or a
:class:`~bottui.api.failures.Failure` (:func:`answered`). Only one attempt,
the wire itself, differs between them, so both classify every outcome alike
(a timeout or a connection lost after sending is *unknown*, never *failed*).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bottui.api.answers import Answer, api_error
from bottui.api.errors import ApiError, DeadlineExceeded, NetworkError
from bottui.api.failures import Failure
from bottui.api.pause import SharedPause
from bottui.api.retry import (
    AMBIGUOUS_STATUSES,
    RETRY_STATUSES,
    RetryPolicy,
    Timing,
    parse_retry_after,
)

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


__all__ = ["Attempt", "answered", "send_with_retries"]
