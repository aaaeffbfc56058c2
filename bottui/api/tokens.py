"""Tokens: held so they never print, sent in a header, masked wherever a server echoes them.

The two kinds of access token, wrapped so that they never print.

A token lives in memory only inside one of these wrappers. ``repr`` and
``str`` are masked, and the value is kept out of ``__dict__`` (slots) so
that crash reports which dump locals and attributes see only the mask.
The one way to the clear value is :meth:`Secret.reveal`, called by the HTTP
client when it builds the ``X-Api-Key`` header and by the token store when it
hands the value to the keyring.

The ``X-Api-Key`` value of a token: as it is, or its Base64; refused when it cannot be sent.

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

Which members of a server's answer hold a secret, and masking them in any form of a body.

A project object carries its ``serverKey``. Wherever an answer is kept or
shown, that member's value is ``"***"``: in a decoded answer the journal
walks (:func:`bottui.store.redact.redact` uses :func:`is_secret_key`), and
in every *excerpt* of a body quoted in an error — an unexpected status, a
body that is not UTF-8 or not JSON — where :func:`mask_text` masks each
``"key": value`` member whose key is secret, whatever the status, the
encoding or where the body was cut. The same rule, one place.

Server text made fit to keep: tokens in use masked, lone surrogates repaired.

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
import json
import re
import threading
from typing import Any, ClassVar, Final, Literal, get_args
from urllib.parse import quote, quote_plus

from bottui.api.errors import CredentialsError
from bottui.plaintext import repair_surrogates

# -- holding a token ------------------------------------------------------------------------------


#: What a token, or a secret value in an answer, shows instead of itself.
MASK: Final = "***"


#: The environment variable that holds each kind of token (CONVENTIONS.md).
TOKEN_ENV: Final[dict[str, str]] = {
    "project": "BOTTUI_API_KEY",
    "personal": "BOTTUI_ACCESS_TOKEN",
}
#: What each kind of token is called.
TOKEN_WORDS: Final[dict[str, str]] = {
    "project": "project API token",
    "personal": "personal access token",
}


class Secret:
    """A string that never shows itself in ``repr``, ``str`` or ``format``."""

    __slots__ = ("_value",)
    kind: ClassVar[str] = "secret"

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError("a token is a string")
        value = value.strip()
        if not value:
            raise ValueError("a token cannot be empty")
        object.__setattr__(self, "_value", value)

    def reveal(self) -> str:
        """The clear value. Call only where it leaves for the keyring or the wire."""
        value: str = object.__getattribute__(self, "_value")
        return value

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("tokens are immutable")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({MASK})"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return MASK

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Secret)
            and type(other) is type(self)
            and other.reveal() == self.reveal()
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.reveal()))

    def __reduce__(self) -> tuple[object, ...]:
        # Pickling would write the clear value somewhere; refuse.
        raise TypeError("tokens cannot be pickled")


class ProjectToken(Secret):
    """A project API token: authorises the rate limiter operation of one project."""

    __slots__ = ()
    kind: ClassVar[str] = "project"


class StorePassword(Secret):
    """The team store's database password, from the keyring (never a URL or a file)."""

    __slots__ = ()
    kind: ClassVar[str] = "store"


class AccessToken(Secret):
    """A personal access token bound to one account: revocation and thresholds."""

    __slots__ = ()
    kind: ClassVar[str] = "personal"


# -- sending a token in a header ------------------------------------------------------------------


TokenEncoding = Literal["raw", "base64"]


#: The values of a profile's ``token_encoding``.
TOKEN_ENCODINGS: Final[tuple[str, ...]] = get_args(TokenEncoding)

DEFAULT_ENCODING: Final[TokenEncoding] = "raw"


class UnusableToken(CredentialsError):
    """A token that cannot be sent in a header: nothing was sent (exit 3)."""

    def __init__(self, kind: str, reason: str) -> None:
        words = TOKEN_WORDS.get(kind, TOKEN_WORDS["personal"])
        variable = TOKEN_ENV.get(kind, "")
        where = f" ({variable} or the keyring)" if variable else ""
        super().__init__(
            f"Unusable {words}",
            f"the {words}{where} {reason}: it cannot be sent in a header; nothing was "
            f"sent. Store it again as one line (`bottui token set {kind}`)",
        )


#: C0 and C1 controls and DEL: never in a header. A regex, not a loop per character: the
#: token is checked before each request (the loop was 2.5% of a profiled 20,000-id bulk run).
_C0_C1: Final = re.compile("[\x00-\x1f\x7f-\x9f]")


def _problem(raw: str, encoding: TokenEncoding) -> str | None:
    """Why ``raw`` cannot be sent with ``encoding``, or None when it can."""
    if "\r" in raw or "\n" in raw:
        return "holds a line break (CR or LF)"
    if _C0_C1.search(raw):
        return "holds a control character"
    if encoding == "raw" and not raw.isascii():
        return 'holds characters other than ASCII (token_encoding = "base64" sends any)'
    return None


def check_token(token: Secret, encoding: TokenEncoding = DEFAULT_ENCODING) -> None:
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


# -- secret members of an answer ------------------------------------------------------------------


#: Key names (compared case-insensitively, without ``_`` and ``-``) whose value is secret.
SECRET_KEYS: Final = frozenset({"serverkey"})


# A JSON member: a quoted key (escapes allowed), its colon, and its value: a
# string (perhaps cut short), or anything up to the next separator.
_MEMBER: Final = re.compile(
    r'"((?:[^"\\]|\\.){1,200})"(\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s][^,}\]]*)', re.DOTALL
)


def is_secret_key(key: str) -> bool:
    """True for ``serverKey``, ``server_key``, ``ServerKey`` and the like."""
    return key.replace("_", "").replace("-", "").lower() in SECRET_KEYS


def _key(quoted: str) -> str:
    """The key a JSON text names (its escapes decoded when they are valid)."""
    try:
        key = json.loads(f'"{quoted}"')
    except ValueError:
        return quoted
    return key if isinstance(key, str) else quoted


def _masked(match: re.Match[str]) -> str:
    if not is_secret_key(_key(match.group(1))) or match.group(3) == "null":
        return match.group(0)
    return f'"{match.group(1)}"{match.group(2)}"{MASK}"'


def mask_text(text: str) -> str:
    """``text`` (a body, or part of one) with every secret member's value as ``"***"``."""
    if not text:
        return text
    return _MEMBER.sub(_masked, text)


def mask_members(value: Any) -> Any:
    """A decoded JSON value with every secret member's value (not null) as ``"***"``."""
    if isinstance(value, dict):
        return {
            key: (
                MASK
                if isinstance(key, str) and is_secret_key(key) and item is not None
                else mask_members(item)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_members(item) for item in value]
    return value


# -- masking the tokens in use in server text -----------------------------------------------------


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
