"""Does a base URL answer like the API? One request that cannot change anything.

``bottui doctor`` sends one ``POST`` to the grant revocation path of a made-up
account and project, with **no token** and the body ``{}`` (no ``subject``:
invalid by the spec's rule 1). A service that is the API refuses it with its
error object (``message``, ``code``, ``type``): a 401 for the missing
credential, or a 400 for the body. Nothing can be changed by it: no
credential, no subject, no real ids. The request goes through
:class:`~bottui.api.client.BotProtectionClient`, so the base URL is checked,
names are resolved and TLS is verified exactly as for a real change.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Final

import httpx

from bottui.api.client import BotProtectionClient
from bottui.api.errors import ApiError, BottuiError, ErrorObject
from bottui.api.requests import PreparedRequest
from bottui.api.sending import Answer, RetryPolicy
from bottui.api.transport import check_base_url, grant_revocations_path

#: The ids of the probe's path: made up, so no real account's logs show the probe.
PROBE_ACCOUNT: Final = "bottui-doctor"
PROBE_PROJECT: Final = "bottui-doctor"


@dataclass(frozen=True)
class ProbeAnswer:
    """What the probe got: an HTTP status (and the error object if any), or a failure.

    Exactly one of ``status`` and ``failure`` is set.
    """

    url: str
    status: int | None = None
    #: The body's error object; ``None`` when the body held none.
    error: ErrorObject | None = None
    #: The head of a body that was not an error object, masked and cleaned.
    excerpt: str = ""
    #: Why no status came: a network error (its text says TLS, DNS, refused, timed out).
    failure: BottuiError | None = None

    @property
    def complete_error_object(self) -> bool:
        """The body held all three required fields of the spec's error object."""
        err = self.error
        return err is not None and bool(err.message) and bool(err.code) and bool(err.type)


def probe_request(base_url: str) -> PreparedRequest:
    """The probe: ``POST .../challenges/grant-revocations`` with ``{}``, to be sent tokenless."""
    return PreparedRequest(
        operation="probe",
        method="POST",
        url=check_base_url(base_url) + grant_revocations_path(PROBE_ACCOUNT, PROBE_PROJECT),
        body=b"{}",
        token_kind="personal",
    )


async def probe_api(
    base_url: str, *, timeout: float, transport: httpx.AsyncBaseTransport | None = None
) -> ProbeAnswer:
    """Send the probe once (no retry) within ``timeout`` seconds.

    Raises:
        RefusedError: the base URL itself is refused (not a URL, plain http
            off loopback); nothing was sent.
    """
    policy = RetryPolicy(
        max_attempts=1,
        deadline=timeout,
        connect_timeout=min(5.0, timeout),
        read_timeout=timeout,
    )
    request = probe_request(base_url)
    async with BotProtectionClient(base_url, transport=transport, policy=policy) as client:
        outcome = await client.send_without_token(request)
    if isinstance(outcome, Answer):
        return ProbeAnswer(request.url, status=outcome.status)
    error = outcome.error
    if isinstance(error, ApiError):
        return ProbeAnswer(
            request.url, status=error.status, error=error.error, excerpt=error.body_excerpt
        )
    return ProbeAnswer(request.url, failure=error)


async def accepts_connections(base_url: str, *, timeout: float) -> bool:
    """Whether the base URL's host accepts a TCP connection within ``timeout`` s.

    Asked after the probe timed out, to tell a slow server (busy, it
    connects) from one that cannot be reached at all. Nothing is sent.
    """
    url = httpx.URL(base_url)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        async with asyncio.timeout(timeout):
            _reader, writer = await asyncio.open_connection(url.host, port)
    except (OSError, TimeoutError, ValueError):
        return False
    writer.close()
    with contextlib.suppress(OSError, TimeoutError):
        async with asyncio.timeout(timeout):
            await writer.wait_closed()
    return True


__all__ = [
    "PROBE_ACCOUNT",
    "PROBE_PROJECT",
    "ProbeAnswer",
    "accepts_connections",
    "probe_api",
    "probe_request",
]
