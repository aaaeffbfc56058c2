"""Server text made fit to keep: tokens in use masked, lone surrogates repaired.

A server may echo the ``X-Api-Key`` it received (``"invalid key <token>"``),
raw or encoded. Every text that comes from a server passes through
:func:`server_text` or :func:`server_json` where the api layer decodes it,
before anything shows, journals, learns or exports it; journals written
before this existed are scrubbed again when read (:mod:`bottui.ops.journal_view`).

The *tokens in use* are those this process sent (the client remembers each
one as it builds the header) or loaded for the current profile (the token
store remembers what it reads from the environment and the keyring). Each
is masked as ``***`` in every form a server is likely to echo it:
:func:`token_forms`. Tokens shorter than :data:`MIN_TOKEN` characters are
not remembered: masking them would shred ordinary text, and no real token
is that short.
"""

from __future__ import annotations

import base64
import html
import re
import threading
from typing import Any, Final
from urllib.parse import quote, quote_plus

from bottui.plaintext import repair_surrogates

MASK: Final = "***"
MIN_TOKEN: Final = 8
_PERCENT: Final = re.compile(r"%[0-9A-F]{2}")


def token_forms(token: str) -> frozenset[str]:
    """``token`` raw, HTML-escaped, percent-encoded (any hex case, ``+`` or ``%20``
    for a space) and in base64 (standard and URL-safe, with and without padding)."""
    raw = token.encode("utf-8", "surrogatepass")
    forms = {token, html.escape(token)}
    for encoded in (quote(raw, safe=""), quote(raw, safe="/"), quote_plus(raw, safe="")):
        forms.add(encoded)
        forms.add(_PERCENT.sub(lambda m: m.group(0).lower(), encoded))
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        text = encode(raw).decode("ascii")
        forms.add(text)
        forms.add(text.rstrip("="))
    return frozenset(form for form in forms if form)


class TokenScrubber:
    """Masks every form of the tokens it was given (thread-safe; never shows them)."""

    __slots__ = ("_forms", "_lock", "_pattern", "_tokens")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens: set[str] = set()
        self._forms: set[str] = set()
        self._pattern: re.Pattern[str] | None = None

    def __repr__(self) -> str:
        return f"TokenScrubber({len(self._tokens)} tokens)"

    def add(self, token: str) -> None:
        """Mask ``token`` (and its encodings) from now on."""
        token = token.strip()
        if len(token) < MIN_TOKEN or token in self._tokens:
            return
        with self._lock:
            self._tokens.add(token)
            self._forms |= token_forms(token)
            # Longest first: a padded base64 form wins over its unpadded prefix.
            ordered = sorted(self._forms, key=len, reverse=True)
            self._pattern = re.compile("|".join(map(re.escape, ordered)))

    def scrub(self, text: str) -> str:
        """``text`` with every form of every token replaced by ``***``."""
        pattern = self._pattern
        if pattern is None or not text:
            return text
        return pattern.sub(MASK, text)


#: The tokens in use in this process.
IN_USE: Final = TokenScrubber()


def remember(token: str) -> None:
    """Count ``token`` among the tokens in use (the clear value; kept only in memory)."""
    IN_USE.add(token)


def scrub(text: str) -> str:
    """``text`` with the tokens in use masked."""
    return IN_USE.scrub(text)


def server_text(text: str) -> str:
    """A server's text fit to keep: lone surrogates as U+FFFD, tokens in use masked."""
    return IN_USE.scrub(repair_surrogates(text))


def server_json(value: Any) -> Any:
    """:func:`server_text` applied to every string of a decoded JSON value, keys included."""
    if isinstance(value, str):
        return server_text(value)
    if isinstance(value, dict):
        return {
            (server_text(key) if isinstance(key, str) else key): server_json(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [server_json(item) for item in value]
    return value


__all__ = [
    "IN_USE",
    "MASK",
    "MIN_TOKEN",
    "TokenScrubber",
    "remember",
    "scrub",
    "server_json",
    "server_text",
    "token_forms",
]
