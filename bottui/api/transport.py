"""The HTTP transport under :class:`~bottui.api.client.BotProtectionClient`.

:class:`AiohttpTransport` is an ``httpx.AsyncBaseTransport`` over one
``aiohttp.TCPConnector`` keep-alive pool. It exists for speed: httpx 0.28's
own transport rescans every pooled connection on each state change, so its
throughput falls as concurrency grows (measured on loopback with 50 ms of
latency: 282 req/s at 16, 114 at 64), while aiohttp's pool keeps up with a
bulk run (see ``tests/bench/revoke_throughput.py``). The client keeps using
the httpx API; only the wire goes through aiohttp.

What this transport guarantees, and the ready-made ``httpx-aiohttp`` package
(0.2) did not:

* the URL goes out exactly as built (``yarl.URL(url, encoded=True)``):
  ``%2F``, ``%2E%2E`` and every other escape stay untouched, so an id is
  one path segment on the server as it is for httpx;
* failures keep their meaning: a connection that could not be made is
  ``httpx.ConnectError`` / ``httpx.ConnectTimeout`` (nothing was sent: safe
  to retry), while a connection lost or a read that timed out after the
  request went out is ``httpx.RemoteProtocolError`` / ``httpx.ReadError`` /
  ``httpx.ReadTimeout`` (the service may have acted on it);
* the answer is streamed (the client caps the body size as it reads), and
  left undecoded: httpx decodes ``Content-Encoding`` itself;
* no aiohttp object reaches the caller: an aiohttp error is replaced by a new
  httpx error raised outside the ``except`` block, so no ``__context__``
  leads to aiohttp's request info (whose headers hold the token).

* a plain ``http://`` host is resolved once and connected to only at the
  loopback addresses it resolved to (:mod:`bottui.api.resolve`); a host that
  resolves elsewhere is refused (:class:`~bottui.api.errors.PlainHttpRefused`)
  before any connection is made. A certificate, TLS or DNS failure is a
  :class:`~bottui.api.netfail.FinalConnectError` in plain words.

aiohttp is imported when the first request is made. ``BOTTUI_HTTP_TRANSPORT``
chooses the default transport: ``aiohttp`` (default) or ``httpx``.
"""

from __future__ import annotations

import importlib.util
import os
import ssl
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final, Literal

import httpx

from bottui.api import netfail
from bottui.api.resolve import AddressBook, Resolver

if TYPE_CHECKING:
    import aiohttp

TransportName = Literal["aiohttp", "httpx"]
TRANSPORT_ENV: Final = "BOTTUI_HTTP_TRANSPORT"
DEFAULT_TRANSPORT: Final[TransportName] = "aiohttp"
#: Idle seconds before a pooled connection is closed: below the 5 s of common
#: servers (uvicorn), so we seldom reuse a connection the server is closing.
KEEPALIVE_SECONDS: Final = 4.0
_CHUNK: Final = 1 << 16
# Hop-by-hop or computed headers aiohttp sets itself from the body and the pool.
_SKIP_HEADERS: Final = frozenset({b"content-length", b"transfer-encoding", b"connection"})


def transport_name(environ: dict[str, str] | None = None) -> TransportName:
    """The transport chosen by ``BOTTUI_HTTP_TRANSPORT`` (``aiohttp`` unless ``httpx``)."""
    env = os.environ if environ is None else environ
    value = env.get(TRANSPORT_ENV, "").strip().lower()
    return "httpx" if value == "httpx" else DEFAULT_TRANSPORT


def default_transport(
    max_connections: int, *, resolver: Resolver | None = None
) -> httpx.AsyncBaseTransport:
    """The transport a client uses when none is given (see :func:`transport_name`).

    Falls back to httpx's own transport when aiohttp is not installed. Both
    resolve names through ``resolver`` (default: the system's) and pin
    plain-http hosts to loopback.
    """
    # find_spec, not import: importing aiohttp costs ~120 ms, for the first
    # request to pay; a client is also built for dry runs and plans that send
    # nothing (the TUI's bulk dialog builds one on the event loop).
    if transport_name() == "aiohttp" and importlib.util.find_spec("aiohttp") is not None:
        return AiohttpTransport(max_connections=max_connections, resolver=resolver)
    from bottui.api.httpx_pinned import PinnedHttpxTransport

    return PinnedHttpxTransport(max_connections=max_connections, resolver=resolver)


class AiohttpTransport(httpx.AsyncBaseTransport):
    """httpx requests sent through one aiohttp keep-alive pool.

    Args:
        max_connections: Connections the pool holds at most (requests beyond
            wait for one, within the request's ``pool`` timeout).
        keepalive: Seconds an idle connection is kept.
        resolver: How names are resolved (default: the system's).

    The aiohttp session is made on the first request, inside the running
    event loop, and closed by :meth:`aclose`.
    """

    def __init__(
        self,
        *,
        max_connections: int = 64,
        keepalive: float = KEEPALIVE_SECONDS,
        resolver: Resolver | None = None,
    ):
        self.max_connections = max_connections
        self.keepalive = keepalive
        self.addresses = AddressBook(resolver)
        self._session: aiohttp.ClientSession | None = None
        self._ssl: ssl.SSLContext | None = None

    def __repr__(self) -> str:
        return f"AiohttpTransport(max_connections={self.max_connections})"

    def _client_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            import aiohttp

            from bottui.api.aiohttp_resolver import BookResolver

            connector = aiohttp.TCPConnector(
                limit=self.max_connections,
                limit_per_host=0,
                keepalive_timeout=self.keepalive,
                resolver=BookResolver(self.addresses),
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                auto_decompress=False,
                cookie_jar=aiohttp.DummyCookieJar(),
                skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
                timeout=aiohttp.ClientTimeout(total=None),
                raise_for_status=False,
                requote_redirect_url=False,
                trust_env=False,
            )
        return self._session

    def ssl_context(self) -> ssl.SSLContext:
        """httpx's own context (certifi, SSL_CERT_FILE/DIR): the same trust as httpx."""
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context()
        return self._ssl

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` and return the response with its body still streaming."""
        import aiohttp
        import yarl

        session = self._client_session()
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        connect = timeouts.get("connect")
        pool = timeouts.get("pool")
        timeout = aiohttp.ClientTimeout(
            total=None,
            # aiohttp's "connect" covers waiting for a pooled connection and
            # making one; "sock_connect" the making alone.
            connect=None if pool is None or connect is None else pool + connect,
            sock_connect=connect,
            sock_read=timeouts.get("read"),
        )
        body = await request.aread()
        url = yarl.URL(str(request.url), encoded=True)
        options: dict[str, Any] = {}
        if url.scheme == "https":
            options["ssl"] = self.ssl_context()
        else:
            # Before the session sees the request: a refusal here means no
            # connection was attempted. The connector then gets these
            # addresses from BookResolver.
            await netfail.pin_plain(self.addresses, request, url.raw_host or "", url.port or 80)
        failure: httpx.TransportError | None = None
        try:
            response = await session.request(
                request.method,
                url,
                # Built inline, never bound to a local: crash reports print
                # the locals of every frame, and these hold the token.
                headers=[
                    (name.decode("latin-1"), value.decode("latin-1"))
                    for name, value in request.headers.raw
                    if name.lower() not in _SKIP_HEADERS
                ],
                data=body or None,
                allow_redirects=False,
                timeout=timeout,
                **options,
            )
        except aiohttp.ConnectionTimeoutError as exc:
            failure = httpx.ConnectTimeout(error_text(exc, "connect timeout"))
        except aiohttp.ClientConnectorError as exc:
            reason = netfail.final_reason(exc, url.host or "")
            if reason is not None:
                failure = netfail.FinalConnectError(reason)
            else:
                failure = httpx.ConnectError(error_text(exc, "could not connect"))
        except (aiohttp.ServerTimeoutError, TimeoutError) as exc:
            failure = httpx.ReadTimeout(error_text(exc, "read timeout"))
        except aiohttp.ServerDisconnectedError as exc:
            failure = httpx.RemoteProtocolError(error_text(exc, "server disconnected"))
        except (aiohttp.ClientPayloadError, aiohttp.ClientResponseError) as exc:
            failure = httpx.RemoteProtocolError(error_text(exc, "invalid answer"))
        except aiohttp.InvalidURL as exc:
            failure = httpx.UnsupportedProtocol(error_text(exc, "invalid URL"))
        except (aiohttp.ClientError, OSError) as exc:
            failure = httpx.ReadError(error_text(exc, "connection lost"))
        if failure is not None:
            failure.request = request
            raise failure
        return httpx.Response(
            status_code=response.status,
            headers=list(response.raw_headers),
            stream=_ResponseStream(response),
            extensions={
                "http_version": b"HTTP/%d.%d" % tuple(response.version or (1, 1)),
                "reason_phrase": (response.reason or "").encode("latin-1", "replace"),
            },
        )

    async def aclose(self) -> None:
        """Close the pool and its connections."""
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()


class _ResponseStream(httpx.AsyncByteStream):
    """The body of an aiohttp response, chunk by chunk, errors mapped to httpx's."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        import aiohttp

        content = self._response.content
        while True:
            failure: httpx.TransportError | None = None
            chunk = b""
            try:
                chunk = await content.read(_CHUNK)
            except (aiohttp.ServerTimeoutError, TimeoutError) as exc:
                failure = httpx.ReadTimeout(error_text(exc, "read timeout"))
            except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError) as exc:
                failure = httpx.RemoteProtocolError(error_text(exc, "answer cut short"))
            except (aiohttp.ClientError, OSError) as exc:
                failure = httpx.ReadError(error_text(exc, "connection lost"))
            if failure is not None:
                raise failure
            if not chunk:
                return
            yield chunk

    async def aclose(self) -> None:
        # Back to the pool when fully read; closed otherwise.
        self._response.release()


def error_text(exc: BaseException, fallback: str) -> str:
    """An aiohttp error's words (never its request info, which holds the headers)."""
    import aiohttp

    if isinstance(exc, aiohttp.ClientResponseError):
        return f"{fallback}: {exc.message}" if exc.message else fallback
    if isinstance(exc, aiohttp.ClientConnectorError):
        # Its own str() shows the connection key: "ssl:<ssl.SSLContext object at 0x…>".
        return str(exc.os_error) or fallback
    if isinstance(exc, aiohttp.ClientPayloadError):
        # str() is "Response payload is not completed: <ContentLengthError: 400,
        # message='Not enough data…'>": a repr, with a status the server never sent.
        found = [arg for arg in exc.args if isinstance(arg, BaseException)]
        found += [c for c in (exc.__cause__, exc.__context__) if c is not None and c not in found]
        causes = [_message(cause) for cause in found]
        words = "; ".join(cause for cause in causes if cause)
        return f"{fallback}: {words}" if words else fallback
    if any(isinstance(arg, BaseException) for arg in exc.args):
        words = ": ".join(_message(arg) for arg in exc.args)
        return words or fallback
    text = str(exc)
    return text or fallback


def _message(value: object) -> str:
    """An exception's own words (its ``message`` when it has one), never its repr."""
    if isinstance(value, BaseException):
        message = getattr(value, "message", None)
        if isinstance(message, str) and message:
            return message.rstrip(".")
        return ": ".join(_message(arg) for arg in value.args) or type(value).__name__
    return str(value).rstrip(".")


__all__ = [
    "DEFAULT_TRANSPORT",
    "TRANSPORT_ENV",
    "AiohttpTransport",
    "TransportName",
    "default_transport",
    "error_text",
    "transport_name",
]
