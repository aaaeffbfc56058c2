"""Fault injection for the sandbox's API requests, settable from Python and over HTTP.

Each API request first waits out ``latency``, then waits while ``hold`` is
on, then takes at most one fault, in this order of precedence:

1. ``drop_next``: the response starts (status, headers with a
   ``Content-Length``), half the body is sent, then the connection is cut.
   With ``drop_mode="after"`` (default) the request was applied to the state
   first, as when a real server did the work and the network failed; with
   ``"before"`` it was not.
2. ``fail_next``: answered ``error_status`` (default 503), state untouched.
3. ``rate_limit_next``: answered 429 with ``Retry-After: retry_after``.
4. ``non_json_next``: answered 200 with an HTML page.
5. ``error_rate``: chance (0..1, seeded ``random.Random``) of ``error_status``.

Then ``hostile_status`` (4xx/5xx, ``0``/``None`` off) answers every request
without a fault above with an error object of that status, unapplied. And
``hostile`` (a kind of :data:`~bottui.sandbox.hostile.HOSTILE_KINDS`, or
``"off"``) laces every string of every API answer, success or error, with
that kind of payload: see :mod:`bottui.sandbox.hostile`. ``hostile_body``
(a kind of :data:`~bottui.sandbox.hostile.BODY_KINDS`, or ``"off"``)
reshapes every applied answer: an unexpected status, a body that is not
UTF-8, numbers JSON does not allow, a huge integer, the opposite limiter state.

Thread-safe: a test sets faults from its thread while the server reads them.
"""

from __future__ import annotations

import asyncio
import math
import random
import threading
import time
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final, Literal, cast

from bottui.sandbox.hostile import BODY_KINDS, HOSTILE_KINDS, BodyKind, HostileKind

DropMode = Literal["after", "before"]
POLL_SECONDS: Final = 0.01

# HTTP (camelCase) name -> Python (snake_case) name.
WIRE_NAMES: Final = {
    "latency": "latency",
    "errorRate": "error_rate",
    "errorStatus": "error_status",
    "failNext": "fail_next",
    "rateLimitNext": "rate_limit_next",
    "retryAfter": "retry_after",
    "nonJsonNext": "non_json_next",
    "dropNext": "drop_next",
    "dropMode": "drop_mode",
    "hold": "hold",
    "seed": "seed",
    "hostile": "hostile",
    "hostileStatus": "hostile_status",
    "hostileBody": "hostile_body",
}


class FaultKind(StrEnum):
    """The fault that shaped one answer (recorded in the request log)."""

    DROP = "drop"
    FAIL = "fail"
    RATE_LIMIT = "rate_limit"
    NON_JSON = "non_json"
    RANDOM_ERROR = "error_rate"


class FaultError(ValueError):
    """A fault setting was refused; ``field`` names it (wire name)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FaultError(name, f"{name} is a count: an integer, 0 or more")
    return value


def _hostile_kind(value: object) -> HostileKind | None:
    if value == "off":
        return None
    if not isinstance(value, str) or value not in HOSTILE_KINDS:
        raise FaultError("hostile", f"hostile is one of {', '.join(HOSTILE_KINDS)} or off")
    return cast(HostileKind, value)


def _body_kind(value: object) -> BodyKind | None:
    if value == "off":
        return None
    if not isinstance(value, str) or value not in BODY_KINDS:
        raise FaultError("hostileBody", f"hostileBody is one of {', '.join(BODY_KINDS)} or off")
    return cast(BodyKind, value)


def _number(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FaultError(name, f"{name} is a number")
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise FaultError(name, f"{name} is between {low:g} and {high:g}")
    return number


class Faults:
    """The faults to inject; all off by default."""

    def __init__(self, *, seed: int = 0) -> None:
        self._lock = threading.Lock()
        self._seed = seed
        self._rng = random.Random(seed)
        self._held = 0
        self._set_defaults()

    def _set_defaults(self) -> None:
        self._latency = 0.0
        self._error_rate = 0.0
        self._error_status = 503
        self._fail_next = 0
        self._rate_limit_next = 0
        self._retry_after = "1"
        self._non_json_next = 0
        self._drop_next = 0
        self._drop_mode: DropMode = "after"
        self._hold = False
        self._hostile: HostileKind | None = None
        self._hostile_status = 0
        self._hostile_body: BodyKind | None = None

    # ----------------------------------------------------------- settings

    def configure(
        self,
        *,
        latency: float | None = None,
        error_rate: float | None = None,
        error_status: int | None = None,
        fail_next: int | None = None,
        rate_limit_next: int | None = None,
        retry_after: str | None = None,
        non_json_next: int | None = None,
        drop_next: int | None = None,
        drop_mode: DropMode | None = None,
        hold: bool | None = None,
        seed: int | None = None,
        hostile: str | None = None,
        hostile_status: int | None = None,
        hostile_body: str | None = None,
    ) -> None:
        """Change the given settings, leave the others; ``FaultError`` when invalid.

        ``seed`` re-seeds the generator behind ``error_rate``. ``hostile="off"``,
        ``hostile_body="off"`` and ``hostile_status=0`` turn those off.
        """
        values: dict[str, Any] = {}
        if latency is not None:
            values["latency"] = _number("latency", latency, 0.0, 3600.0)
        if error_rate is not None:
            values["error_rate"] = _number("errorRate", error_rate, 0.0, 1.0)
        if error_status is not None:
            if isinstance(error_status, bool) or error_status not in range(500, 600):
                raise FaultError("errorStatus", "errorStatus is a 5xx status")
            values["error_status"] = error_status
        for name, wire, value in (
            ("fail_next", "failNext", fail_next),
            ("rate_limit_next", "rateLimitNext", rate_limit_next),
            ("non_json_next", "nonJsonNext", non_json_next),
            ("drop_next", "dropNext", drop_next),
        ):
            if value is not None:
                values[name] = _count(wire, value)
        if retry_after is not None:
            if (
                not isinstance(retry_after, str)
                or not retry_after.strip()
                or any(c in retry_after for c in "\r\n\0")
            ):
                raise FaultError("retryAfter", "retryAfter is a header value: seconds or a date")
            values["retry_after"] = retry_after
        if drop_mode is not None:
            if drop_mode not in ("after", "before"):
                raise FaultError("dropMode", 'dropMode is "after" or "before"')
            values["drop_mode"] = drop_mode
        if hold is not None:
            if not isinstance(hold, bool):
                raise FaultError("hold", "hold is a boolean")
            values["hold"] = hold
        if hostile is not None:
            values["hostile"] = _hostile_kind(hostile)
        if hostile_body is not None:
            values["hostile_body"] = _body_kind(hostile_body)
        if hostile_status is not None:
            if (
                isinstance(hostile_status, bool)
                or not isinstance(hostile_status, int)
                or (hostile_status != 0 and hostile_status not in range(400, 600))
            ):
                raise FaultError("hostileStatus", "hostileStatus is a 4xx or 5xx status, or 0")
            values["hostile_status"] = hostile_status
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise FaultError("seed", "seed is an integer")
        with self._lock:
            for name, value in values.items():
                setattr(self, f"_{name}", value)
            if seed is not None:
                self._seed = seed
                self._rng = random.Random(seed)

    def configure_wire(self, body: Mapping[str, Any]) -> None:
        """Apply settings named as over HTTP (camelCase); unknown names are refused."""
        kwargs: dict[str, Any] = {}
        for key, value in body.items():
            if key not in WIRE_NAMES:
                raise FaultError(key, f"unknown fault setting {key!r}")
            if value is None:
                continue
            kwargs[WIRE_NAMES[key]] = value
        self.configure(**kwargs)

    def reset(self) -> None:
        """Every fault off; the generator re-seeded with the last seed."""
        with self._lock:
            self._set_defaults()
            self._rng = random.Random(self._seed)

    def snapshot(self) -> dict[str, Any]:
        """The settings as served by ``GET /_sandbox/faults`` (camelCase), plus ``held``."""
        with self._lock:
            return {
                "latency": self._latency,
                "errorRate": self._error_rate,
                "errorStatus": self._error_status,
                "failNext": self._fail_next,
                "rateLimitNext": self._rate_limit_next,
                "retryAfter": self._retry_after,
                "nonJsonNext": self._non_json_next,
                "dropNext": self._drop_next,
                "dropMode": self._drop_mode,
                "hold": self._hold,
                "seed": self._seed,
                "hostile": self._hostile or "off",
                "hostileStatus": self._hostile_status,
                "hostileBody": self._hostile_body or "off",
                "held": self._held,
            }

    @property
    def latency(self) -> float:
        """Seconds slept before handling each API request."""
        with self._lock:
            return self._latency

    @property
    def error_status(self) -> int:
        """Status of injected server errors."""
        with self._lock:
            return self._error_status

    @property
    def retry_after(self) -> str:
        """``Retry-After`` value of injected 429 answers."""
        with self._lock:
            return self._retry_after

    @property
    def drop_mode(self) -> DropMode:
        """Whether a dropped request is applied to the state first (``"after"``)."""
        with self._lock:
            return self._drop_mode

    @property
    def hostile(self) -> HostileKind | None:
        """The payload kind laced into every answer's strings, or ``None``."""
        with self._lock:
            return self._hostile

    @property
    def hostile_status(self) -> int:
        """Status of the error every request is answered with; ``0`` for none."""
        with self._lock:
            return self._hostile_status

    @property
    def hostile_body(self) -> BodyKind | None:
        """How every applied answer is reshaped, or ``None``."""
        with self._lock:
            return self._hostile_body

    # -------------------------------------------------------------- hold

    @property
    def hold(self) -> bool:
        """Whether API requests are held (not answered) until released."""
        with self._lock:
            return self._hold

    def hold_requests(self) -> None:
        """Hold every API request from now until :meth:`release`."""
        self.configure(hold=True)

    def release(self) -> None:
        """Let held requests go on."""
        self.configure(hold=False)

    @property
    def held(self) -> int:
        """How many requests are being held right now."""
        with self._lock:
            return self._held

    def wait_until_held(self, count: int = 1, timeout: float = 60.0) -> bool:
        """Block until ``count`` requests are held; ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        while self.held < count:
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SECONDS / 2)
        return True

    async def wait_until_held_async(self, count: int = 1, timeout: float = 60.0) -> bool:
        """:meth:`wait_until_held` for a coroutine."""
        deadline = time.monotonic() + timeout
        while self.held < count:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL_SECONDS / 2)
        return True

    # ------------------------------------------------------------ serving

    async def delay(self) -> None:
        """Sleep the latency, then wait while held (polled every 10 ms)."""
        latency = self.latency
        if latency > 0:
            await asyncio.sleep(latency)
        if not self.hold:
            return
        with self._lock:
            self._held += 1
        try:
            while self.hold:
                await asyncio.sleep(POLL_SECONDS)
        finally:
            with self._lock:
                self._held -= 1

    def take(self) -> FaultKind | None:
        """The fault for the request at hand, consuming one count; ``None`` for none."""
        with self._lock:
            if self._drop_next > 0:
                self._drop_next -= 1
                return FaultKind.DROP
            if self._fail_next > 0:
                self._fail_next -= 1
                return FaultKind.FAIL
            if self._rate_limit_next > 0:
                self._rate_limit_next -= 1
                return FaultKind.RATE_LIMIT
            if self._non_json_next > 0:
                self._non_json_next -= 1
                return FaultKind.NON_JSON
            if self._error_rate > 0 and self._rng.random() < self._error_rate:
                return FaultKind.RANDOM_ERROR
            return None
