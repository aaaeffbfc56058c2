"""Base URLs and paths: every id is exactly one percent-encoded segment."""

from __future__ import annotations

import ipaddress
from typing import Final
from urllib.parse import SplitResult, quote, urlsplit

import httpx

from bottui.api import validation
from bottui.api.errors import RefusedError
from bottui.plaintext import clean

API_PREFIX: Final = "/api/v1"


def is_loopback_host(host: str) -> bool:
    """True for ``localhost``, ``*.localhost`` and addresses in 127.0.0.0/8 or ``::1``.

    Only a first look at the name: which addresses a plain-http connection
    may use is decided when it is made, on what the name resolves to
    (:meth:`bottui.api.resolve.AddressBook.pin_plain`).
    """
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str) -> str:
    """Validate a base URL and return it without a trailing slash.

    Plain ``http://`` is refused for every host but loopback: tokens would
    cross the network in clear (a name is checked again, on the addresses it
    resolves to, before the first connection). A port is 1..65535; bytes
    that are not UTF-8, spaces and control characters are refused.
    """
    raw = url.strip()
    _check_characters(raw)
    try:
        parts = urlsplit(raw)
    except ValueError as exc:  # e.g. "http://[::1"
        raise RefusedError("Invalid base URL", clean(str(exc))) from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise RefusedError("Invalid base URL", f"{raw!r} is not an http(s) URL with a host")
    if parts.query or parts.fragment:
        raise RefusedError("Invalid base URL", "a base URL has no query or fragment")
    if scheme == "http" and not is_loopback_host(parts.hostname):
        raise RefusedError(
            "Refused plain http",
            f"{parts.hostname} is not a loopback host; use https:// "
            "so tokens are not sent in clear",
        )
    netloc = parts.netloc
    if "@" in netloc:
        raise RefusedError("Invalid base URL", "credentials in the URL are not allowed")
    _check_port(parts)
    path = parts.path.rstrip("/")
    result = f"{scheme}://{netloc.lower()}{path}"
    try:
        httpx.URL(result)
    except httpx.InvalidURL as exc:
        raise RefusedError("Invalid base URL", clean(str(exc))) from None
    return result


def _check_characters(raw: str) -> None:
    # Undecodable argv bytes arrive as lone surrogates (surrogateescape);
    # control characters and spaces have no place in a URL either.
    if any("\ud800" <= char <= "\udfff" for char in raw):
        raise RefusedError("Invalid base URL", "the URL holds bytes that are not valid UTF-8")
    if any(char.isspace() or not char.isprintable() for char in raw):
        raise RefusedError("Invalid base URL", "the URL holds spaces or control characters")


def _check_port(parts: SplitResult) -> None:
    """A port, when given, is a number in 1..65535."""
    try:
        port = parts.port  # ValueError: not a number, or beyond 65535
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        shown = parts.netloc.rpartition(":")[2]
        raise RefusedError("Invalid base URL", f"port {shown!r} is not a number in 1..65535")


def segment(field: str, value: str) -> str:
    """Validate an id and percent-encode it as one path segment."""
    validation.path_id(field, value)
    # safe="" so "/" becomes %2F, and "%" itself is encoded: the server
    # gets the id exactly as given.
    return quote(value, safe="")


def project_path(account_id: str, project_id: str) -> str:
    """``/api/v1/{account}/projects/{project}``, each id one segment."""
    return (
        f"{API_PREFIX}/{segment('account id', account_id)}"
        f"/projects/{segment('project id', project_id)}"
    )


def rate_limiter_active_path(account_id: str, project_id: str, limiter_id: str) -> str:
    """Path of the rate limiter activation operation."""
    return (
        f"{project_path(account_id, project_id)}/rate_limiters/"
        f"{segment('rate limiter id', limiter_id)}/active"
    )


def grant_revocations_path(account_id: str, project_id: str) -> str:
    """Path of the challenge grant revocation operation."""
    return f"{project_path(account_id, project_id)}/challenges/grant-revocations"


def dimension_thresholds_path(account_id: str, project_id: str, dimension_id: str) -> str:
    """Path of the dimension threshold update operation."""
    return (
        f"{project_path(account_id, project_id)}/dimension-thresholds/"
        f"{segment('dimension id', dimension_id)}"
    )
