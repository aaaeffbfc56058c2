"""Which keyring entry holds which token: the service name and the usernames.

A slot is named by the kind of token, the normalised base URL and the
account (and project): JSON, so no separator in an id can make two slots
share a name. Kept apart from :mod:`bottui.store.tokens` (which reads and
writes the keyring with timeouts) because naming needs no keyring at all.
"""

from __future__ import annotations

import json
from typing import Final
from urllib.parse import urlsplit, urlunsplit

#: The keyring service every bottui token is stored under.
SERVICE: Final = "bottui"

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def normalize_base_url(base_url: str) -> str:
    """Canonical form of a base URL, so ``https://X/`` and ``https://x`` share tokens.

    Lower-cases the scheme and host, drops the scheme's default port and any
    trailing ``/``. The path keeps its case. Never raises: a string that is
    not a URL comes back stripped of surrounding blanks and trailing slashes.
    """
    text = base_url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text.rstrip("/")
    if not parts.scheme or not parts.netloc:
        return text.rstrip("/")
    scheme = parts.scheme.lower()
    userinfo, at, hostport = parts.netloc.rpartition("@")
    hostport = hostport.lower()
    if port is not None and _DEFAULT_PORTS.get(scheme) == port:
        hostport = hostport[: hostport.rindex(":")]
    netloc = f"{userinfo}{at}{hostport}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, parts.fragment))


def personal_username(base_url: str, account: str) -> str:
    """The keyring username of the personal access token of ``account``."""
    return json.dumps(["personal", normalize_base_url(base_url), account])


def project_username(base_url: str, account: str, project: str) -> str:
    """The keyring username of the project API token of ``account``/``project``."""
    return json.dumps(["project", normalize_base_url(base_url), account, project])


def store_username(store_url: str) -> str:
    """The keyring username of a team store's password: ``["store", URL]``.

    The URL carries no password (such a URL is refused before it gets here).
    """
    return json.dumps(["store", normalize_base_url(store_url)])


__all__ = [
    "SERVICE",
    "normalize_base_url",
    "personal_username",
    "project_username",
    "store_username",
]
