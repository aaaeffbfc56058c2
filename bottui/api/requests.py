"""A request checked and built before it is sent: ids and numbers, the request, its curl.

Checks made before anything is sent.

Every rule of the spec that a client can check is checked here, so a bad
value costs the operator a clear message and nothing else. Each function
returns the value to send or raises :class:`~bottui.api.errors.ValidationError`
naming the field.

A request built and validated, before it is sent.

Building is separate from sending so that ``--dry-run`` can print exactly
what would go out, and the journal can record the body, without a token
ever being part of the object.

An equivalent ``curl`` command for a prepared request (``--dry-run``).

The token is never in it: the header reads ``"$BOTTUI_API_KEY"`` or
``"$BOTTUI_ACCESS_TOKEN"``, expanded by the shell that runs the command
(under ``token_encoding = "base64"``, ``$(printf %s "$BOTTUI_API_KEY" |
base64 | tr -d '
')``: the same value bottui sends).
``--globoff`` stops curl from reading ``[]{}`` in ids as ranges and
``--path-as-is`` from folding dot segments, so the server sees the very same
request bottui would send.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any, Final, Literal

import msgspec

from bottui.api.errors import ValidationError
from bottui.api.tokens import DEFAULT_ENCODING, TOKEN_ENV, TokenEncoding, shell_value
from bottui.plaintext import has_control

# -- checking ids and numbers ---------------------------------------------------------------------


SUBJECT_ID_MAX: Final = 256

PATH_ID_MAX: Final = 1024


# A JSON number literal (RFC 8259). A typed value that already is one is sent
# verbatim; anything else Decimal accepts is normalised to one.
JSON_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def first_forbidden_char(value: str) -> str | None:
    """The first control character (Cc) or lone surrogate (Cs) in ``value``, if any."""
    if value.isprintable():  # neither Cc nor Cs is printable: one C-speed pass
        return None
    for ch in value:
        if unicodedata.category(ch) in ("Cc", "Cs"):
            return ch
    return None


def _no_control(field: str, value: str) -> str:
    """``value``, refused when it holds a control character or a lone surrogate."""
    bad = first_forbidden_char(value)
    if bad is not None:
        raise ValidationError(field, f"contains a control character (U+{ord(bad):04X})")
    return value


def path_id(field: str, value: str) -> str:
    """An id that becomes exactly one path segment.

    Refuses the empty string, ``.`` and ``..`` (a URL resolver would fold
    them into their neighbours), control characters and absurd lengths.
    """
    if not isinstance(value, str) or value == "":
        raise ValidationError(field, "must not be empty")
    if value in (".", ".."):
        raise ValidationError(field, f"{value!r} cannot be a path segment")
    _no_control(field, value)
    if len(value) > PATH_ID_MAX:
        raise ValidationError(field, f"is longer than {PATH_ID_MAX} characters")
    return value


def subject_id(field: str, value: str) -> str:
    """A visitor id or user account id: 1 to 256 code points, no control characters."""
    if not isinstance(value, str) or value == "":
        raise ValidationError(field, "must not be empty")
    if len(value) > SUBJECT_ID_MAX:
        raise ValidationError(
            field, f"is {len(value)} characters long; at most {SUBJECT_ID_MAX} are allowed"
        )
    return _no_control(field, value)


def subject(visitor_id: str | None, user_account_id: str | None) -> dict[str, str]:
    """The revocation subject: only the ids given, at least one.

    ``None`` means "not given". The result never holds nulls, empty strings
    or ``customFields``.
    """
    out: dict[str, str] = {}
    if visitor_id is not None:
        out["visitorId"] = subject_id("visitor id", visitor_id)
    if user_account_id is not None:
        out["userAccountId"] = subject_id("user account id", user_account_id)
    if not out:
        raise ValidationError("subject", "give a visitor id, a user account id, or both")
    return out


def dimension_name(value: str) -> str:
    """The dimension name the PUT requires: not empty, no control characters."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError("name", "must not be empty")
    return _no_control("name", value)


def threshold_literal(field: str, value: str | float | int | Decimal) -> str:
    """The JSON number literal to send for a threshold, exactly as given.

    A string that is already a JSON number is returned unchanged, so
    ``"0.123456789"`` is sent as ``0.123456789`` and ``"0.50"`` as ``0.50``.
    Floats use Python's shortest round-trip repr. NaN, infinities, values a
    double cannot hold and non-numbers are refused.
    """
    if isinstance(value, bool):
        raise ValidationError(field, "must be a number")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(field, "must be a finite number")
        return repr(value)
    if isinstance(value, int | Decimal):
        text = str(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        raise ValidationError(field, "must be a number")
    if not text:
        raise ValidationError(field, "must not be empty")
    try:
        number = Decimal(text)
    except (InvalidOperation, ValueError):
        raise ValidationError(field, f"{text!r} is not a number") from None
    if not number.is_finite():
        raise ValidationError(field, "must be a finite number")
    if not math.isfinite(float(number)):
        raise ValidationError(field, "is too large for a double")
    if JSON_NUMBER.fullmatch(text):
        return text
    # "+1", ".5", "1." and the like: the same value, written as JSON allows.
    normal = format(number, "f") if -20 < number.adjusted() < 20 else format(number, "e")
    if not JSON_NUMBER.fullmatch(normal):
        normal = repr(float(number))
    return normal


# -- the prepared request -------------------------------------------------------------------------


TokenKind = Literal["project", "personal"]


class PreparedRequest(msgspec.Struct, frozen=True):
    """Method, URL and body of one API call, the kind of token it needs and how it is sent."""

    operation: str
    method: str
    url: str
    body: bytes
    token_kind: TokenKind
    #: How the token travels in ``X-Api-Key`` (the profile's ``token_encoding``).
    token_encoding: TokenEncoding = DEFAULT_ENCODING

    def body_json(self) -> Any:
        """The body decoded, for the journal and for display."""
        return json.loads(self.body) if self.body else None

    @property
    def token_env(self) -> str:
        """Name of the environment variable for this request's kind of token."""
        return TOKEN_ENV[self.token_kind]

    @property
    def token_shell(self) -> str:
        """The ``X-Api-Key`` value as a shell writes it: the variable, Base64-encoded if so sent."""
        return shell_value(self.token_env, self.token_encoding)


# -- its curl (--dry-run) -------------------------------------------------------------------------


def shell_quote(value: str) -> str:
    """Quote ``value`` for bash, printable even when it holds invisible characters.

    Plain text uses ``shlex.quote``. Text with characters a terminal must
    not receive raw (bidi overrides, line separators, C0/C1 controls) uses
    bash's ``$'...'`` form with ``\\uXXXX`` escapes, so the printed command is
    plain text and still sends the very same bytes.
    """
    if not has_control(value):
        return shlex.quote(value)
    out = []
    for ch in value:
        if has_control(ch):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) >= 0x80 else f"\\x{ord(ch):02x}")
        elif ch in "\\'":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def to_curl(request: PreparedRequest) -> str:
    """A bash command line that sends ``request``."""
    parts = [
        "curl",
        "--silent",
        "--show-error",
        "--globoff",
        "--path-as-is",
        "-X",
        request.method,
        shell_quote(request.url),
        "-H",
        shlex.quote("Content-Type: application/json"),
        "-H",
        f'"X-Api-Key: {request.token_shell}"',
    ]
    if request.body:
        parts += ["--data-binary", shell_quote(request.body.decode())]
    return " ".join(parts)


def request_json(request: PreparedRequest) -> dict[str, str]:
    """``request`` as a dry run's JSON shows it: method, URL, body and :func:`to_curl`."""
    return {
        "method": request.method,
        "url": request.url,
        "body": request.body.decode(),
        "curl": to_curl(request),
    }


def request_lines(request: PreparedRequest) -> list[str]:
    """The lines a dry run shows for ``request``, without a trailing blank line.

    Method and URL, the token header (a shell variable, never the token),
    the content type, a blank line, the body, a blank line and the
    equivalent :func:`to_curl` command. The URL and body carry untrusted
    text: a caller that prints them passes each line through ``clean()``.
    """
    return [
        f"{request.method} {request.url}",
        f"X-Api-Key: {request.token_shell}",
        "Content-Type: application/json",
        "",
        request.body.decode(),
        "",
        to_curl(request),
    ]
