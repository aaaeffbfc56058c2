"""Connection failures that trying again cannot fix, said in plain words.

A certificate that is not trusted, a certificate for another name, a server
that does not speak TLS and a name that does not resolve all fail before the
request is sent, and fail the same way on every attempt: they are reported
at once (never retried) with what to do, instead of the library's text (which
for aiohttp holds ``ssl:<ssl.SSLContext object at 0x…>``).

:func:`final_reason` reads the cause of any transport's error: the chain of
``__cause__``/``__context__`` (httpx wraps httpcore wraps ``ssl``/``socket``)
and aiohttp's ``os_error``/``certificate_error``. :class:`FinalConnectError`
is how :class:`~bottui.api.transport.AiohttpTransport` hands such a reason to
the client, since it drops aiohttp's exception (and its chain) on purpose.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from typing import Final

import httpx

from bottui.api.resolve import AddressBook

# OpenSSL verify codes (X509_V_ERR_*).
_HOSTNAME_MISMATCH: Final = frozenset({62, 64})  # HOSTNAME_MISMATCH, IP_ADDRESS_MISMATCH
_EXPIRED: Final = 10  # CERT_HAS_EXPIRED
_NOT_YET_VALID: Final = 9  # CERT_NOT_YET_VALID
# What OpenSSL says when the first bytes back are not a TLS record: the
# server answered the ClientHello in plain text (usually an HTTP 400).
_NOT_TLS_REASONS: Final = frozenset(
    {"WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "HTTP_REQUEST", "PACKET_LENGTH_TOO_LONG"}
)
NOT_TLS: Final = "the server does not speak TLS: did you mean http://?"


class FinalConnectError(httpx.ConnectError):
    """A connection that failed for a reason retrying cannot change; the text says which."""


def host_not_found(host: str) -> str:
    """The words for a name that does not resolve."""
    return f"host not found: {host}"


def final_reason(exc: BaseException, host: str) -> str | None:
    """Plain words for a failure retrying cannot fix, or None for any other failure."""
    if isinstance(exc, FinalConnectError):
        return str(exc)
    for cause in _causes(exc):
        # aiohttp's wrappers subclass the ssl errors without their
        # attributes: only the original, which has them, decides.
        if isinstance(cause, ssl.SSLCertVerificationError) and hasattr(cause, "verify_code"):
            return _certificate(cause, host)
        if isinstance(cause, ssl.SSLError) and getattr(cause, "reason", None) in _NOT_TLS_REASONS:
            return NOT_TLS
        if isinstance(cause, socket.gaierror) and cause.errno != socket.EAI_AGAIN:
            return host_not_found(host)
    return None


async def pin_plain(book: AddressBook, request: httpx.Request, host: str, port: int) -> None:
    """Pin a plain-http host before any connection (see :meth:`AddressBook.pin_plain`).

    A name that does not resolve is a :class:`FinalConnectError`; a refusal
    leaves as :class:`~bottui.api.errors.PlainHttpRefused`.
    """
    failure: httpx.TransportError | None = None
    try:
        await book.pin_plain(host, port)
    except OSError as exc:
        reason = final_reason(exc, host)
        if reason is not None:
            failure = FinalConnectError(reason)
        else:  # a temporary DNS failure: worth another attempt
            failure = httpx.ConnectError(str(exc) or "could not resolve the host")
    if failure is not None:
        failure.request = request
        raise failure


def _certificate(error: ssl.SSLCertVerificationError, host: str) -> str:
    code = error.verify_code
    if code in _HOSTNAME_MISMATCH:
        return f"hostname mismatch: the server's certificate is not valid for {host}"
    if code == _EXPIRED:
        return f"the certificate of {host} has expired"
    if code == _NOT_YET_VALID:
        return f"the certificate of {host} is not valid yet (check this machine's clock)"
    return f"certificate not trusted for {host} (set SSL_CERT_FILE to add a CA)"


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and everything it was caused by, each once."""
    pending: list[BaseException] = [exc]
    seen: set[int] = set()
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        for attribute in ("certificate_error", "os_error"):
            inner = getattr(current, attribute, None)
            if isinstance(inner, BaseException):
                pending.append(inner)
        if current.__cause__ is not None:
            pending.append(current.__cause__)
        if current.__context__ is not None:
            pending.append(current.__context__)


__all__ = ["NOT_TLS", "FinalConnectError", "final_reason", "host_not_found", "pin_plain"]
