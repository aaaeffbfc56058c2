"""Hostile answers: every string the sandbox sends, laced with one kind of payload.

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

import base64
import itertools
from collections.abc import Callable
from typing import Any, Final, Literal, get_args
from urllib.parse import quote

from bottui.sandbox.errors import ApiError

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


def hostile_error(status: int) -> ApiError:
    """The error object answered while ``hostileStatus`` is set."""
    return ApiError(
        status,
        "hostile",
        "hostile_error",
        "The sandbox answers every request with this error.",
        {"field": "hostileStatus"},
    )


__all__ = [
    "BIDI",
    "BODY_KINDS",
    "C1",
    "ESCAPES",
    "FORMULA_PREFIXES",
    "HOSTILE_KINDS",
    "HUGE_DIGITS",
    "ODD_NUMBERS",
    "SURROGATES",
    "BodyKind",
    "Hostile",
    "HostileKind",
    "hostile_error",
    "odd_answer",
    "token_forms",
]
