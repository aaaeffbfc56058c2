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
``hostile`` (a kind of :data:`HOSTILE_KINDS`, or
``"off"``) laces every string of every API answer, success or error, with
that kind of payload (below). ``hostile_body``
(a kind of :data:`BODY_KINDS`, or ``"off"``)
reshapes every applied answer: an unexpected status, a body that is not
UTF-8, numbers JSON does not allow, a huge integer, the opposite limiter state.

Thread-safe: a test sets faults from its thread while the server reads them.

Hostile answers: every string the sandbox sends, laced with one kind of payload.

Set with ``Faults.configure(hostile=KIND)`` (``PUT /_sandbox/faults`` with
``{"hostile": "KIND"}``; ``"off"`` turns it off). While on, every string of
every API answer (success and error: the project object of the limiter
PATCH with its limiter entries, the revocation answer, error objects with
``message``, ``code``, ``type`` and ``context``; object keys stay as they
are) keeps its original text and gains the payload, and an error object
without a ``context`` gets one holding a hostile string. The HTML page of
``nonJsonNext`` gets the payload too. Numbers and booleans are untouched.

Kinds (:data:`HOSTILE_KINDS`):

``surrogates``
    Lone surrogates (``\\ud800``, ``\\udfff``), sent as ``\\uXXXX`` escapes
    (the only way valid UTF-8 JSON can carry them).
``c1``
    C1 controls: CSI (U+009B) clearing the screen, NEL, an OSC title via C1.
``bidi``
    Every bidi embedding, override and isolate (U+202A-U+202E, U+2066-U+2069).
``token_echo``
    The request's ``X-Api-Key`` as received, percent-encoded, and in base64
    (standard and URL-safe, with and without padding): :func:`token_forms`.
``escapes``
    ESC sequences (clear screen, an OSC window title ended by BEL), BEL, NUL
    and backspace, each string starting with a spreadsheet formula prefix
    (``=``, ``+``, ``-``, ``@`` in turn).

``hostileStatus`` (``Faults.configure(hostile_status=400)``) makes every API
request answer an error object with that status instead of being applied,
so a hostile *error* answer can be had for any operation (without it, the
error answers the sandbox gives anyway, such as ``failNext``, are hostile).

``hostileBody`` (``Faults.configure(hostile_body=KIND)``, ``"off"`` turns it
off) reshapes the answer of every *applied* API request instead, after the
payload above (:func:`odd_answer`). Kinds (:data:`BODY_KINDS`):

``status999``
    The answer's body (the project object, serverKey included) with status
    999, a status no contract names.
``not_utf8``
    Status 200, the body with bytes that are not UTF-8 (``\\xff\\xfe``) inside
    its first string.
``nan``
    Status 200, the body with ``NaN``, ``Infinity``, ``-Infinity`` and
    ``1e999`` as extra members (numbers the JSON standard does not allow, or
    too large for a float).
``huge_int``
    Status 200, the body with a 100,000-digit integer as an extra member
    (more digits than Python converts by default).
``opposite``
    Status 200, every ``isActive`` of the body flipped: the limiter is
    reported in the other state than the one asked for.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import math
import random
import threading
import time
from collections.abc import Callable, Container, Mapping
from enum import StrEnum
from functools import partial
from typing import Any, Final, Literal, get_args
from urllib.parse import quote

# -- hostile answers ---------------------------------------------------------------------

HostileKind = Literal["surrogates", "c1", "bidi", "token_echo", "escapes"]
#: Every payload kind, as named over HTTP and from Python.
HOSTILE_KINDS: Final[tuple[str, ...]] = get_args(HostileKind)

BodyKind = Literal["status999", "not_utf8", "nan", "huge_int", "opposite"]
#: Every answer shape of ``hostileBody``, as named over HTTP and from Python.
BODY_KINDS: Final[tuple[str, ...]] = get_args(BodyKind)
#: The digits of the ``huge_int`` member.
HUGE_DIGITS: Final = 100_000
#: The members ``nan`` adds to an answer, as JSON text.
ODD_NUMBERS: Final = '"oddNaN":NaN,"oddInf":Infinity,"oddNegInf":-Infinity,"oddBig":1e999'

SURROGATES: Final = "\ud800|\udfff"
#: CSI 2 J (clear screen), NEL, and OSC 0 (window title) ended by ST, all as C1.
C1: Final = "\x9b2J\x85\x9d0;c1-title\x9c"
BIDI: Final = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
#: Clear screen, set the window title (OSC ended by BEL), BEL, NUL, backspace.
ESCAPES: Final = "\x1b[2J\x1b]0;pwned\x07\x07\x00\x08"
FORMULA_PREFIXES: Final = ("=", "+", "-", "@")


def token_forms(token: str) -> tuple[str, ...]:
    """``token`` raw, percent-encoded, and base64 (standard/URL-safe, with/without ``=``)."""
    if not token:
        return ()
    raw = token.encode("utf-8", "surrogateescape")
    standard = base64.b64encode(raw).decode("ascii")
    urlsafe = base64.urlsafe_b64encode(raw).decode("ascii")
    forms = (
        token,
        quote(raw, safe=""),
        standard,
        urlsafe,
        standard.rstrip("="),
        urlsafe.rstrip("="),
    )
    return tuple(dict.fromkeys(forms))


class Hostile:
    """The payload of one kind for one request (``token`` is its ``X-Api-Key``)."""

    def __init__(self, kind: HostileKind, token: str = "") -> None:
        self.kind = kind
        self._token = token
        self._prefixes = itertools.cycle(FORMULA_PREFIXES)

    def __repr__(self) -> str:
        return f"Hostile({self.kind!r})"  # never the token

    def text(self, original: str) -> str:
        """``original`` with this kind's payload around it."""
        if self.kind == "surrogates":
            return f"{original}{SURROGATES}"
        if self.kind == "c1":
            return f"{original}{C1}"
        if self.kind == "bidi":
            return f"{BIDI[:5]}{original}{BIDI[5:]}"
        if self.kind == "token_echo":
            forms = token_forms(self._token)
            return f"{original} invalid key " + " ".join(forms)
        return f"{next(self._prefixes)}{original}{ESCAPES}"

    def value(self, value: Any) -> Any:
        """``value`` with every string (at any depth, keys excepted) made hostile."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self.value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value

    def answer(self, status: int, body: Any) -> Any:
        """The body of one API answer made hostile; an error object gains a ``context``."""
        if status >= 400 and isinstance(body, dict) and body.get("context") is None:
            body = {**body, "context": {"detail": "context"}}
        return self.value(body)

    def page(self, page: bytes) -> bytes:
        """A non-JSON page with the payload appended (surrogates as their raw bytes)."""
        return page + self.text("").encode("utf-8", "surrogatepass")


def _flip(value: Any) -> Any:
    """``value`` with every ``isActive`` boolean negated, at any depth."""
    if isinstance(value, dict):
        return {
            key: (not item if key == "isActive" and isinstance(item, bool) else _flip(item))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_flip(item) for item in value]
    return value


def _with_members(encoded: bytes, members: bytes) -> bytes:
    """An encoded JSON object with ``members`` (``"k":v,...``) added first."""
    if not encoded.startswith(b"{"):
        return encoded
    rest = encoded[1:]
    return b"{" + members + (b"," if rest != b"}" else b"") + rest


def odd_answer(
    kind: BodyKind, status: int, body: Any, encode: Callable[[Any], bytes]
) -> tuple[int, bytes]:
    """The status and bytes of an applied answer reshaped by ``kind`` (see the module)."""
    if kind == "opposite":
        return status, encode(_flip(body))
    encoded = encode(body)
    if kind == "status999":
        return 999, encoded
    if kind == "not_utf8":
        quote_at = encoded.find(b'":"')
        at = quote_at + 3 if quote_at >= 0 else len(encoded)
        return status, encoded[:at] + b"\xff\xfe" + encoded[at:]
    if kind == "nan":
        return status, _with_members(encoded, ODD_NUMBERS.encode("ascii"))
    return status, _with_members(encoded, b'"oddHuge":' + b"7" * HUGE_DIGITS)


# -- the faults ------------------------------------------------------------------------

DropMode = Literal["after", "before"]
POLL_SECONDS: Final = 0.01


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


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _number(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FaultError(name, f"{name} is a number")
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise FaultError(name, f"{name} is between {low:g} and {high:g}")
    return number


def _integer(
    name: str, value: object, words: str, allowed: Container[int] | None = None, low: int | None = 0
) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FaultError(name, f"{name} is {words}")
    # A plain int: the control body's numbers are an int subclass, which a range
    # does not find at once (it walks itself), and which is kept as a plain int.
    number = int(value)
    if (low is not None and number < low) or (allowed is not None and number not in allowed):
        raise FaultError(name, f"{name} is {words}")
    return number


def _one_of(name: str, value: object, kinds: tuple[str, ...], off: bool = False) -> Any:
    if off and value == "off":
        return None
    if not isinstance(value, str) or value not in kinds:
        words = " or ".join((", ".join(kinds), "off") if off else (", ".join(kinds),))
        raise FaultError(name, f"{name} is one of {words}")
    return value


def _retry_after(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip() or any(c in value for c in "\r\n\0"):
        raise FaultError(name, f"{name} is a header value: seconds or a date")
    return value


def _boolean(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise FaultError(name, f"{name} is a boolean")
    return value


#: ``hostileStatus``: a 4xx or 5xx status, or 0 (off).
HOSTILE_STATUSES: Final = frozenset({0, *range(400, 600)})
STATUS_WORDS: Final = "a 4xx or 5xx status, or 0"
#: The check of a count of faults to come.
_COUNT: Final = partial(_integer, words="a count: an integer, 0 or more")

#: Every setting: its default and its check (given the wire name), in the order
#: ``GET /_sandbox/faults`` lists them.
SETTINGS: Final[dict[str, tuple[Any, Callable[[str, Any], Any]]]] = {
    "latency": (0.0, partial(_number, low=0.0, high=3600.0)),
    "error_rate": (0.0, partial(_number, low=0.0, high=1.0)),
    "error_status": (503, partial(_integer, words="a 5xx status", allowed=range(500, 600))),
    "fail_next": (0, _COUNT),
    "rate_limit_next": (0, _COUNT),
    "retry_after": ("1", _retry_after),
    "non_json_next": (0, _COUNT),
    "drop_next": (0, _COUNT),
    "drop_mode": ("after", partial(_one_of, kinds=get_args(DropMode))),
    "hold": (False, _boolean),
    "seed": (0, partial(_integer, words="an integer", low=None)),
    "hostile": (None, partial(_one_of, kinds=HOSTILE_KINDS, off=True)),
    "hostile_status": (0, partial(_integer, words=STATUS_WORDS, allowed=HOSTILE_STATUSES)),
    "hostile_body": (None, partial(_one_of, kinds=BODY_KINDS, off=True)),
}
#: HTTP (camelCase) name -> Python (snake_case) name.
WIRE_NAMES: Final = {_camel(name): name for name in SETTINGS}
#: Every setting off: its default.
DEFAULTS: Final = {name: default for name, (default, _check) in SETTINGS.items()}


#: The counted faults, in their order of precedence (the module's list).
COUNTED: Final = {
    "drop_next": FaultKind.DROP,
    "fail_next": FaultKind.FAIL,
    "rate_limit_next": FaultKind.RATE_LIMIT,
    "non_json_next": FaultKind.NON_JSON,
}


class Faults:
    """The faults to inject; all off by default."""

    def __init__(self, *, seed: int = 0) -> None:
        self._lock = threading.Lock()
        self._settings = {**DEFAULTS, "seed": seed}
        self._rng = random.Random(seed)
        self._held = 0

    # ----------------------------------------------------------- settings

    def configure(self, **settings: Any) -> None:
        """Change the given settings (the names of :data:`SETTINGS`; ``None``: unchanged),
        leave the others; ``FaultError`` when one is unknown or invalid, and then none
        changes.

        ``seed`` re-seeds the generator behind ``error_rate``. ``hostile="off"``,
        ``hostile_body="off"`` and ``hostile_status=0`` turn those off.
        """
        checked: dict[str, Any] = {}
        for name, value in settings.items():
            if name not in SETTINGS:
                raise FaultError(_camel(name), f"unknown fault setting {name!r}")
            if value is not None:
                checked[name] = SETTINGS[name][1](_camel(name), value)
        with self._lock:
            self._settings.update(checked)
            if "seed" in checked:
                self._rng = random.Random(checked["seed"])

    def configure_wire(self, body: Mapping[str, Any]) -> None:
        """Apply settings named as over HTTP (camelCase); unknown names are refused."""
        for key in body:
            if key not in WIRE_NAMES:
                raise FaultError(key, f"unknown fault setting {key!r}")
        self.configure(**{WIRE_NAMES[key]: value for key, value in body.items()})

    def reset(self) -> None:
        """Every fault off; the generator re-seeded with the last seed."""
        with self._lock:
            self._settings = {**DEFAULTS, "seed": self._settings["seed"]}
            self._rng = random.Random(self._settings["seed"])

    def snapshot(self) -> dict[str, Any]:
        """The settings as served by ``GET /_sandbox/faults`` (camelCase), plus ``held``."""
        with self._lock:
            shown = {_camel(name): value for name, value in self._settings.items()}
            shown["hostile"] = shown["hostile"] or "off"
            shown["hostileBody"] = shown["hostileBody"] or "off"
            return {**shown, "held": self._held}

    def __getattr__(self, name: str) -> Any:
        """A setting of :data:`SETTINGS` by its Python name (``faults.latency``): what the
        server reads for each request."""
        if name not in SETTINGS:
            raise AttributeError(name)
        with self._lock:
            return self._settings[name]

    # -------------------------------------------------------------- hold

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
        while self.held < count and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS / 2)
        return self.held >= count

    async def wait_until_held_async(self, count: int = 1, timeout: float = 60.0) -> bool:
        """:meth:`wait_until_held` for a coroutine."""
        deadline = time.monotonic() + timeout
        while self.held < count and time.monotonic() < deadline:
            await asyncio.sleep(POLL_SECONDS / 2)
        return self.held >= count

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
            settings = self._settings
            for name, kind in COUNTED.items():
                if settings[name] > 0:
                    settings[name] -= 1
                    return kind
            if settings["error_rate"] > 0 and self._rng.random() < settings["error_rate"]:
                return FaultKind.RANDOM_ERROR
            return None
