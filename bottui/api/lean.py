"""The request path of bulk revocations: straight on aiohttp, every rule of the normal one kept.

A bulk run sends one kind of request, to one URL, hundreds of thousands of
times. Through :class:`~bottui.api.client.BotProtectionClient` each one
builds an ``httpx.Request``, crosses :class:`~bottui.api.transport.AiohttpTransport`
into aiohttp, and comes back as an ``httpx.Response``: measured at 0 ms
latency, those httpx objects were 17% of a run's CPU on top of aiohttp's own
31%. :class:`LeanRevocations` sends the same bytes over its own aiohttp pool
(as many connections as the run's concurrency) and keeps, one by one, the
rules of the normal path:

* the URL, headers and body are those the client would send
  (:meth:`~bottui.api.client.BotProtectionClient.prepare_revocation`'s
  path, the client's ``User-Agent``/``Accept``, the token in ``X-Api-Key``,
  remembered for scrubbing, built inline and never kept in a local);
* a plain ``http://`` host is pinned to its loopback addresses before any
  connection (the transport's :class:`~bottui.api.resolve.AddressBook`, the
  same :class:`~bottui.api.aiohttp_resolver.BookResolver`), refused otherwise;
  https uses the transport's TLS context;
* the retry loop, deadline, shared 429 pause and status classification are
  :mod:`bottui.api.sending`'s, shared with the client;
* each transport failure is classified as the transport and the client
  classify it: could not connect (nothing sent: retried, not unknown), a
  certificate/TLS/DNS failure (final, in plain words), timed out or
  connection lost (may have arrived: *unknown*);
* the body is capped at the client's ``max_body_bytes``, decoded and
  scrubbed by :mod:`bottui.api.answers`, parsed by :class:`~bottui.api.models.Revocation`;
* no aiohttp object or exception leaves: errors are ours, raised outside
  the ``except`` block (no ``__context__`` leads to the request's headers).

:func:`revocation_sender` picks it when the client's transport is the
aiohttp one, and the client itself (:class:`ClientRevocations`) otherwise
(``BOTTUI_HTTP_TRANSPORT=httpx``, a test's ASGI transport).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Final, Protocol

import httpx

from bottui.api import netfail, urls
from bottui.api.answers import Answer, decode
from bottui.api.errors import (
    ConnectionFailed,
    DeadlineExceeded,
    RefusedError,
    UnusableBodyError,
)
from bottui.api.failures import Failure
from bottui.api.models import Revocation
from bottui.api.pause import SharedPause
from bottui.api.scrub import remember
from bottui.api.sending import answered, send_with_retries
from bottui.api.token_header import check, header_value
from bottui.api.tokens import AccessToken
from bottui.api.transport import KEEPALIVE_SECONDS, AiohttpTransport, error_text
from bottui.plaintext import clean

if TYPE_CHECKING:
    import aiohttp

    from bottui.api.client import BotProtectionClient

_CHUNK: Final = 1 << 16


class RevocationSender(Protocol):
    """Sends the revocations of one bulk run (one account and project)."""

    async def revoke(
        self,
        visitor_id: str | None,
        user_account_id: str | None,
        token: AccessToken,
        pause: SharedPause | None,
    ) -> Revocation:
        """Revoke the grant of one (already validated) subject; raise as the client does."""
        ...

    async def aclose(self) -> None:
        """Release what the sender holds (its pool)."""
        ...


class ClientRevocations:
    """The normal path: :meth:`BotProtectionClient.send_revocation` over any transport."""

    def __init__(self, client: BotProtectionClient, account: str, project: str) -> None:
        self._client = client
        self._account = account
        self._project = project

    def __repr__(self) -> str:
        return f"ClientRevocations({self._client!r})"

    async def revoke(
        self,
        visitor_id: str | None,
        user_account_id: str | None,
        token: AccessToken,
        pause: SharedPause | None,
    ) -> Revocation:
        """Prepare and send through the client."""
        client = self._client
        request = client.prepare_revocation(
            self._account, self._project, visitor_id=visitor_id, user_account_id=user_account_id
        )
        return await client.send_revocation(request, token, pause=pause)

    async def aclose(self) -> None:
        """Nothing: the pool is the client's."""


def revocation_sender(
    client: BotProtectionClient, account: str, project: str, *, max_connections: int
) -> RevocationSender:
    """The lean path over the client's aiohttp transport, else the client itself."""
    transport = client.transport
    if isinstance(transport, AiohttpTransport):
        return LeanRevocations(client, transport, account, project, max_connections)
    return ClientRevocations(client, account, project)


def subject_body(visitor_id: str | None, user_account_id: str | None) -> bytes:
    """The body :meth:`BotProtectionClient.prepare_revocation` builds for these ids."""
    subject: dict[str, str] = {}
    if visitor_id is not None:
        subject["visitorId"] = visitor_id
    if user_account_id is not None:
        subject["userAccountId"] = user_account_id
    return json.dumps({"subject": subject}, ensure_ascii=False).encode()


class LeanRevocations:
    """Bulk revocations on an aiohttp pool of their own; see the module docstring.

    Args:
        client: Gives the base URL, policy, timing, headers and body cap.
        transport: The client's aiohttp transport: its address book and TLS context.
        account: The account id (validated here, as the client does).
        project: The project id.
        max_connections: The pool's size (the run's concurrency).
    """

    def __init__(
        self,
        client: BotProtectionClient,
        transport: AiohttpTransport,
        account: str,
        project: str,
        max_connections: int,
    ) -> None:
        import yarl

        self._client = client
        self._transport = transport
        self.max_connections = max_connections
        url = client.base_url + urls.grant_revocations_path(account, project)
        self._url = yarl.URL(url, encoded=True)  # sent exactly as built, as the transport does
        parsed = httpx.URL(url)
        self._host = parsed.host  # as the client's messages name it
        self._plain = parsed.scheme == "http"
        self._port = self._url.port or (80 if self._plain else 443)
        self._fixed = dict(client.default_headers)
        self._session: aiohttp.ClientSession | None = None
        self._timeouts: dict[tuple[float, float], aiohttp.ClientTimeout] = {}

    def __repr__(self) -> str:
        return f"LeanRevocations({self._client!r}, max_connections={self.max_connections})"

    def _pool(self) -> aiohttp.ClientSession:
        if self._session is None:
            import aiohttp

            from bottui.api.aiohttp_resolver import BookResolver

            # The transport's session options, with a pool of the run's size.
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(
                    limit=self.max_connections,
                    limit_per_host=0,
                    keepalive_timeout=KEEPALIVE_SECONDS,
                    resolver=BookResolver(self._transport.addresses),
                ),
                auto_decompress=False,
                cookie_jar=aiohttp.DummyCookieJar(),
                skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
                timeout=aiohttp.ClientTimeout(total=None),
                raise_for_status=False,
                requote_redirect_url=False,
                trust_env=False,
            )
        return self._session

    async def revoke(
        self,
        visitor_id: str | None,
        user_account_id: str | None,
        token: AccessToken,
        pause: SharedPause | None,
    ) -> Revocation:
        """Revoke one subject's grant (ids validated by the caller's reader)."""
        if not isinstance(token, AccessToken):
            raise TypeError("this operation needs a personal access token")
        client = self._client
        check(token, client.token_encoding)  # nothing sent with an unusable token
        body = subject_body(visitor_id, user_account_id)
        remember(token.reveal())  # a token sent is a token in use: masked in answers
        answer = await send_with_retries(
            lambda remaining: self._attempt(body, token, remaining),
            client.policy,
            client.timing,
            pause,
        )
        return Revocation.from_json(
            decode(answer, allow_empty=False),
            retried_ambiguous=answer.retried_ambiguous,
            status=answer.status,
            attempts=answer.attempts,
        )

    def _timeout(self, remaining: float) -> aiohttp.ClientTimeout:
        policy = self._client.policy
        key = (min(policy.connect_timeout, remaining), min(policy.read_timeout, remaining))
        timeout = self._timeouts.get(key)
        if timeout is None:
            import aiohttp

            timeout = aiohttp.ClientTimeout(total=None, sock_connect=key[0], sock_read=key[1])
            if len(self._timeouts) < 64:  # the usual key is always the same
                self._timeouts[key] = timeout
        return timeout

    async def _attempt(self, body: bytes, token: AccessToken, remaining: float) -> Answer | Failure:
        """One attempt. Never raises for transport trouble: returns a Failure."""
        failure: Failure | None = None
        status = 0
        retry_after: str | None = None
        data = b""
        try:
            # The whole attempt, waiting for a pooled connection included, as the client's.
            async with asyncio.timeout(remaining):
                if self._plain:
                    failure = await self._pin()
                if failure is None:
                    status, retry_after, data = await self._exchange(body, token, remaining)
        except _Failed as exc:
            failure = exc.failure
        except TimeoutError:
            failure = Failure(
                DeadlineExceeded("Timed out", "the service did not answer in time"),
                ambiguous=True,
                retryable=True,
            )
        except Exception as exc:
            # A bug in aiohttp or here: never let it out with its traceback (its
            # frames hold the request headers). Name it and stop, as the client does.
            failure = Failure(
                ConnectionFailed("Unexpected failure in the HTTP transport", type(exc).__name__),
                ambiguous=True,
                retryable=False,
            )
        if failure is not None:
            return failure
        return answered(status, data, retry_after, self._client.timing)

    async def _pin(self) -> Failure | None:
        """Pin a plain-http host to loopback before any connection, as the transport does."""
        failure: Failure | None = None
        try:
            await self._transport.addresses.pin_plain(self._url.raw_host or "", self._port)
        except RefusedError as exc:
            failure = Failure(exc.with_traceback(None), ambiguous=False, retryable=False)
        except OSError as exc:
            reason = netfail.final_reason(exc, self._host)
            text = reason if reason is not None else (str(exc) or "could not resolve the host")
            failure = self._could_not_connect(text, final=reason is not None)
        return failure

    def _could_not_connect(self, text: str, *, final: bool) -> Failure:
        # The client's words: plain words alone for a final reason, else "host: text".
        details = clean(text) if final else f"{self._host}: {clean(text) or 'ConnectError'}"
        return Failure(
            ConnectionFailed("Could not connect", details), ambiguous=False, retryable=not final
        )

    def _lost(self, text: str) -> Failure:
        return Failure(
            ConnectionFailed("Connection lost", f"{self._host}: {clean(text)}"),
            ambiguous=True,
            retryable=True,
        )

    async def _exchange(
        self, body: bytes, token: AccessToken, remaining: float
    ) -> tuple[int, str | None, bytes]:
        """Send and read the answer: status, ``Retry-After``, body; failures as :class:`_Failed`."""
        import aiohttp

        failure: Failure | None = None
        response: aiohttp.ClientResponse | None = None
        try:
            response = await self._pool().request(
                "POST",
                self._url,
                # Built inline, never bound to a local: crash reports print
                # the locals of every frame, and these hold the token.
                headers={
                    **self._fixed,
                    "X-Api-Key": header_value(token, self._client.token_encoding),
                    "Content-Type": "application/json",
                },
                data=body,
                allow_redirects=False,
                timeout=self._timeout(remaining),
                ssl=True if self._plain else self._transport.ssl_context(),
            )
        except aiohttp.ConnectionTimeoutError as exc:
            failure = self._could_not_connect(error_text(exc, "connect timeout"), final=False)
        except aiohttp.ClientConnectorError as exc:
            reason = netfail.final_reason(exc, self._host)
            if reason is not None:
                failure = self._could_not_connect(reason, final=True)
            else:
                failure = self._could_not_connect(error_text(exc, "could not connect"), final=False)
        except (aiohttp.ServerTimeoutError, TimeoutError):
            failure = _timed_out()
        except aiohttp.ServerDisconnectedError as exc:
            failure = self._lost(error_text(exc, "server disconnected"))
        except (aiohttp.ClientPayloadError, aiohttp.ClientResponseError) as exc:
            failure = self._lost(error_text(exc, "invalid answer"))
        except (aiohttp.ClientError, OSError) as exc:
            failure = self._lost(error_text(exc, "connection lost"))
        if failure is not None:
            raise _Failed(failure)
        assert response is not None
        try:
            return response.status, response.headers.get("Retry-After"), await self._read(response)
        finally:
            response.release()  # back to the pool when fully read; closed otherwise

    async def _read(self, response: aiohttp.ClientResponse) -> bytes:
        """The body, capped at the client's ``max_body_bytes``."""
        import aiohttp

        cap = self._client.max_body_bytes
        chunks: list[bytes] = []
        size = 0
        failure: Failure | None = None
        content = response.content
        while True:
            try:
                chunk = await content.read(_CHUNK)
            except (aiohttp.ServerTimeoutError, TimeoutError):
                failure = _timed_out()
            except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError) as exc:
                failure = self._lost(error_text(exc, "answer cut short"))
            except (aiohttp.ClientError, OSError) as exc:
                failure = self._lost(error_text(exc, "connection lost"))
            if failure is not None:
                raise _Failed(failure)
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > cap:
                raise _Failed(
                    Failure(
                        UnusableBodyError(
                            f"the answer is larger than {cap} bytes", status=response.status
                        ),
                        ambiguous=False,
                        retryable=False,
                    )
                )
            chunks.append(chunk)

    async def aclose(self) -> None:
        """Close the pool and its connections."""
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()


class _Failed(Exception):
    """Carries a :class:`Failure` out of :meth:`LeanRevocations._exchange` (no aiohttp inside)."""

    def __init__(self, failure: Failure) -> None:
        super().__init__()
        self.failure = failure


def _timed_out() -> Failure:
    return Failure(
        DeadlineExceeded("Timed out", "the service did not answer in time"),
        ambiguous=True,
        retryable=True,
    )


__all__ = [
    "ClientRevocations",
    "LeanRevocations",
    "RevocationSender",
    "revocation_sender",
    "subject_body",
]
