"""The ``X-Api-Key`` value of a token: as it is, or its Base64; refused when it cannot be sent.

The contract says the header carries the access token (``token_encoding =
"raw"``, the default). The real service documents the value as the
Base64-encoded token in places (``real-service-notes.md``): a profile's
``token_encoding = "base64"`` sends both kinds of token as standard padded
Base64 (RFC 4648 §4) of the token's UTF-8 bytes.

A token with a line break or another control character cannot be a header
value, and would let a pasted token add headers of its own: it is refused
before anything is sent or journaled, as an unusable credential
(:class:`UnusableToken`, exit 3). The check runs on the raw token, whatever
the encoding. Sent raw, a token must also be ASCII (an HTTP header value is
bytes; httpx and aiohttp would refuse it half-way).
"""

from __future__ import annotations

import base64
from typing import Final, Literal, get_args

from bottui.api.errors import CredentialsError
from bottui.api.tokens import TOKEN_ENV, Secret

TokenEncoding = Literal["raw", "base64"]
#: The values of a profile's ``token_encoding``.
TOKEN_ENCODINGS: Final[tuple[str, ...]] = get_args(TokenEncoding)
DEFAULT_ENCODING: Final[TokenEncoding] = "raw"


class UnusableToken(CredentialsError):
    """A token that cannot be sent in a header: nothing was sent (exit 3)."""

    def __init__(self, kind: str, reason: str) -> None:
        words = "project API token" if kind == "project" else "personal access token"
        variable = TOKEN_ENV.get(kind, "")
        where = f" ({variable} or the keyring)" if variable else ""
        super().__init__(
            f"Unusable {words}",
            f"the {words}{where} {reason}: it cannot be sent in a header; nothing was "
            f"sent. Store it again as one line (`bottui token set {kind}`)",
        )


def _problem(raw: str, encoding: TokenEncoding) -> str | None:
    """Why ``raw`` cannot be sent with ``encoding``, or None when it can."""
    if "\r" in raw or "\n" in raw:
        return "holds a line break (CR or LF)"
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in raw):
        return "holds a control character"
    if encoding == "raw" and not raw.isascii():
        return 'holds characters other than ASCII (token_encoding = "base64" sends any)'
    return None


def check(token: Secret, encoding: TokenEncoding = DEFAULT_ENCODING) -> None:
    """Raise :class:`UnusableToken` when ``token`` cannot be sent with ``encoding``."""
    problem = _problem(token.reveal(), encoding)
    if problem is not None:
        raise UnusableToken(token.kind, problem)


def header_value(token: Secret, encoding: TokenEncoding) -> str:
    """The ``X-Api-Key`` value of ``token`` (call only where it leaves for the wire)."""
    if encoding == "base64":
        return base64.b64encode(token.reveal().encode("utf-8")).decode("ascii")
    return token.reveal()


def shell_value(variable: str, encoding: TokenEncoding) -> str:
    """The header value as a dry run's curl writes it: the variable, never the token."""
    if encoding == "base64":
        # ``tr``: base64 wraps its output at 76 characters; a header is one line.
        return f"$(printf %s \"${variable}\" | base64 | tr -d '\\n')"
    return f"${variable}"


__all__ = [
    "DEFAULT_ENCODING",
    "TOKEN_ENCODINGS",
    "TokenEncoding",
    "UnusableToken",
    "check",
    "header_value",
    "shell_value",
]
