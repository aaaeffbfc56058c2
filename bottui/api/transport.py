"""The one way to the wire: a request's URL, where it connects, the pool, what a failure means.

Every request bottui sends, a single change or one id of a bulk run, leaves
through :meth:`AiohttpTransport.exchange` (or, for a test's httpx transport,
its :meth:`~httpx.AsyncBaseTransport.handle_async_request`), called by
:class:`~bottui.api.client.BotProtectionClient` alone. The rules of the wire
are here once: the URL sent as built, the loopback pin of plain http, the TLS
trust, the timeouts, the body cap and what each failure means.

**Its URL.** Every id is exactly one percent-encoded path segment; a base
URL is checked before anything is sent (:func:`check_base_url`).

**Where a connection goes.** A token must never cross the network in clear.
A base URL's *name* proves nothing (``evil.localhost`` may resolve to any
address), so for a plain ``http://`` URL the host is resolved once, every
address it resolves to must be loopback, and connections then go to those
addresses only: aiohttp's connector asks :class:`AddressBook` (its resolver)
for the addresses instead of resolving again, so a DNS answer that changes
between the check and the connection changes nothing. Resolution goes
through a :class:`Resolver` (default: the event loop's ``getaddrinfo``),
which tests replace to map names without ``/etc/hosts``.

**Failures retrying cannot fix**, said in plain words. A certificate that is
not trusted, a certificate for another name, a server that does not speak
TLS and a name that does not resolve all fail before the request is sent,
and fail the same way on every attempt: they are reported at once (never
retried) with what to do, instead of the library's text (which for aiohttp
holds ``ssl:<ssl.SSLContext object at 0x…>``). :func:`final_reason` reads
the cause of any error: the chain of ``__cause__``/``__context__`` and
aiohttp's ``os_error``/``certificate_error``. :class:`FinalConnectError` is
how the transport hands such a reason on, since it drops aiohttp's exception
(and its chain) on purpose.

**The pool.** :class:`AiohttpTransport` is one ``aiohttp.TCPConnector``
keep-alive pool, and an ``httpx.AsyncBaseTransport``: httpx stays the API of
the service layer (tests hand the client httpx's ASGI transport), aiohttp is
the wire. It exists for speed: httpx 0.28's own transport rescans every
pooled connection on each state change, so its throughput falls as
concurrency grows (measured on loopback with 50 ms of latency: 282 req/s at
16, 114 at 64), while aiohttp's pool keeps up with a bulk run (see
``tests/bench/revoke_throughput.py``). The client calls :meth:`exchange`
directly, without building httpx's request and response objects: measured
at 0 ms latency those were 17% of a bulk run's CPU on top of aiohttp's own
31%. What the transport guarantees, and the ready-made ``httpx-aiohttp``
package (0.2) did not:

* the URL goes out exactly as built (``yarl.URL(url, encoded=True)``):
  ``%2F``, ``%2E%2E`` and every other escape stay untouched, so an id is
  one path segment on the server as it is for httpx;
* failures keep their meaning: a connection that could not be made is
  ``httpx.ConnectError`` / ``httpx.ConnectTimeout`` (nothing was sent: safe
  to retry), while a connection lost or a read that timed out after the
  request went out is ``httpx.RemoteProtocolError`` / ``httpx.ReadError`` /
  ``httpx.ReadTimeout`` (the service may have acted on it);
* the answer is read up to a cap (:func:`read_capped`), and left undecoded:
  no ``Accept-Encoding`` is sent, and httpx decodes ``Content-Encoding``
  itself where it is the reader;
* no aiohttp object reaches the caller: an aiohttp error is replaced by a new
  httpx error raised outside the ``except`` block, so no ``__context__``
  leads to aiohttp's request info (whose headers hold the token);
* a plain ``http://`` host is pinned before the request reaches the pool; a
  host that resolves elsewhere is refused
  (:class:`~bottui.api.errors.PlainHttpRefused`) before any connection.

aiohttp is imported when the first request is made (about 120 ms: a client
is also built for dry runs and plans that send nothing).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
import ssl
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol, cast
from urllib.parse import SplitResult, quote, urlsplit

import httpx

from bottui.api.errors import PlainHttpRefused, RefusedError
from bottui.api.requests import path_id
from bottui.plaintext import clean

if TYPE_CHECKING:
    import aiohttp
    import yarl
    from aiohttp.abc import AbstractResolver, ResolveResult

#: Idle seconds before a pooled connection is closed: below the 5 s of common
#: servers (uvicorn), so we seldom reuse a connection the server is closing.
KEEPALIVE_SECONDS: Final = 4.0
_CHUNK: Final = 1 << 16
# Hop-by-hop or computed headers aiohttp sets itself from the body and the pool.
_SKIP_HEADERS: Final = frozenset({b"content-length", b"transfer-encoding", b"connection"})
#: Per-attempt timeouts as httpx's request extensions hold them: connect, read, write, pool.
Timeouts = Mapping[str, float | None]


# -- where a request goes: its URL ----------------------------------------------------------------


API_PREFIX: Final = "/api/v1"


def is_loopback_host(host: str) -> bool:
    """True for ``localhost``, ``*.localhost`` and addresses in 127.0.0.0/8 or ``::1``.

    Only a first look at the name: which addresses a plain-http connection
    may use is decided when it is made, on what the name resolves to
    (:meth:`bottui.api.transport.AddressBook.pin_plain`).
    """
    host = host.strip("[]").lower()
    return host == "localhost" or host.endswith(".localhost") or is_loopback_address(host)


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
    path_id(field, value)
    # safe="" so "/" becomes %2F, and "%" itself is encoded: the server
    # gets the id exactly as given.
    return quote(value, safe="")


@functools.lru_cache(maxsize=64)  # a bulk run builds one path per id
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


# -- where a connection goes ----------------------------------------------------------------------


class Resolver(Protocol):
    """Turns a host name into IP address strings (raises ``OSError`` when it cannot)."""

    async def resolve(self, host: str, port: int) -> Sequence[str]:
        """The addresses of ``host``, in the order to try them."""
        ...


class SystemResolver:
    """The system's resolver, through the running loop's ``getaddrinfo``."""

    async def resolve(self, host: str, port: int) -> Sequence[str]:
        """The addresses of ``host``; ``socket.gaierror`` when it has none."""
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
        return list(dict.fromkeys(str(info[4][0]) for info in infos))


def literal_address(host: str) -> str | None:
    """``host`` as an IP address string if it is one (brackets allowed), else None."""
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


def is_loopback_address(address: str) -> bool:
    """True for an address in 127.0.0.0/8, ``::1`` or an IPv4-mapped loopback."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


class AddressBook:
    """The addresses a pool connects to; plain-http hosts pinned to loopback.

    Args:
        resolver: How names are resolved; default :class:`SystemResolver`.

    :meth:`pin_plain` is awaited before a plain-http request is handed to the
    connection pool; :meth:`addresses` is what the pool's connector calls.
    """

    def __init__(self, resolver: Resolver | None = None) -> None:
        self.resolver: Resolver = resolver or SystemResolver()
        self._pinned: dict[tuple[str, int], tuple[str, ...]] = {}
        # Refused answers too: a bulk run refused on its first id does not
        # resolve the name again for each of the others.
        self._refused: dict[tuple[str, int], tuple[str, ...]] = {}
        self._lock = asyncio.Lock()

    async def pin_plain(self, host: str, port: int) -> tuple[str, ...]:
        """Resolve ``host`` once for plain http and check it; the pinned addresses.

        Raises :class:`PlainHttpRefused` unless every address is loopback; a
        name that does not resolve is a :class:`FinalConnectError` (an
        ``httpx.ConnectError`` when the failure is temporary: worth another attempt).
        """
        key = _key(host, port)
        pinned = self._pinned.get(key)
        if pinned is not None:
            return pinned
        async with self._lock:
            pinned = self._pinned.get(key)
            if pinned is not None:
                return pinned
            refused = self._refused.get(key)
            if refused is not None:
                raise PlainHttpRefused(host, refused)
            literal = literal_address(host)
            failure: httpx.TransportError | None = None
            try:
                found = (literal,) if literal else tuple(await self._resolve(host, port))
            except OSError as exc:
                reason = final_reason(exc, host)  # None: a temporary DNS failure
                words = str(exc) or "could not resolve the host"
                failure = FinalConnectError(reason) if reason else httpx.ConnectError(words)
            if failure is not None:
                raise failure  # outside the except block, as every failure of the transport
            if not all(is_loopback_address(address) for address in found):
                self._refused[key] = found
                raise PlainHttpRefused(host, found)
            self._pinned[key] = found
            return found

    def pinned(self, host: str, port: int) -> tuple[str, ...] | None:
        """The pinned addresses of a plain-http host, None if it was never pinned."""
        return self._pinned.get(_key(host, port))

    async def addresses(self, host: str, port: int) -> tuple[str, ...]:
        """Where a connection to ``host:port`` goes: the pin, else a fresh resolution."""
        pinned = self.pinned(host, port)
        if pinned is not None:
            return pinned
        literal = literal_address(host)
        if literal:
            return (literal,)
        return tuple(await self._resolve(host, port))

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        """aiohttp's resolver call: :meth:`addresses`, of ``family`` unless ``AF_UNSPEC``.

        The book is the connector's resolver (aiohttp asks it where to connect).
        """
        results: list[ResolveResult] = []
        for address in await self.addresses(host, port):
            found = socket.AF_INET6 if ":" in address else socket.AF_INET
            if family not in (socket.AF_UNSPEC, found):
                continue
            results.append(
                {
                    "hostname": host,
                    "host": address,
                    "port": port,
                    "family": found,
                    "proto": socket.IPPROTO_TCP,
                    "flags": socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
                }
            )
        if not results:
            raise socket.gaierror(socket.EAI_NONAME, f"no address for {host}")
        return results

    async def close(self) -> None:
        """aiohttp's resolver call: nothing to release (the resolver holds no connection)."""

    async def _resolve(self, host: str, port: int) -> Sequence[str]:
        found = await self.resolver.resolve(host, port)
        if not found:
            raise socket.gaierror(socket.EAI_NONAME, f"no address for {host}")
        return found


def _key(host: str, port: int) -> tuple[str, int]:
    # Trailing dots go: aiohttp turns "name.." into "name." before resolving,
    # and the lookup must still find the pin.
    return host.lower().rstrip("."), port


# -- failures retrying cannot fix -----------------------------------------------------------------


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


# -- the pool -------------------------------------------------------------------------------------


class BodyTooLarge(Exception):
    """An answer larger than the cap (:func:`read_capped`); ``status`` is its status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class AiohttpTransport(httpx.AsyncBaseTransport):
    """Requests sent through one aiohttp keep-alive pool; see the module docstring.

    Args:
        max_connections: Connections the pool holds at most (requests beyond
            wait for one, within the request's ``pool`` timeout).
        keepalive: Seconds an idle connection is kept.
        resolver: How names are resolved (default: the system's).
        addresses: The address book to share (:meth:`sibling`), instead of a new one.

    The aiohttp session is made on the first request, inside the running
    event loop, and closed by :meth:`aclose`.
    """

    def __init__(
        self,
        *,
        max_connections: int = 64,
        keepalive: float = KEEPALIVE_SECONDS,
        resolver: Resolver | None = None,
        addresses: AddressBook | None = None,
    ):
        self.max_connections = max_connections
        self.keepalive = keepalive
        self.addresses = addresses if addresses is not None else AddressBook(resolver)
        self._session: aiohttp.ClientSession | None = None
        self._ssl: ssl.SSLContext | None = None
        self._timeouts: dict[tuple[float | None, ...], aiohttp.ClientTimeout] = {}

    def __repr__(self) -> str:
        return f"AiohttpTransport(max_connections={self.max_connections})"

    def sibling(self, max_connections: int) -> AiohttpTransport:
        """A pool of its own of ``max_connections`` (a bulk run's), sharing the pins and TLS."""
        twin = AiohttpTransport(
            max_connections=max_connections, keepalive=self.keepalive, addresses=self.addresses
        )
        twin._ssl = self._ssl
        return twin

    def _client_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            import aiohttp

            connector = aiohttp.TCPConnector(
                limit=self.max_connections,
                limit_per_host=0,
                keepalive_timeout=self.keepalive,
                resolver=cast("AbstractResolver", self.addresses),
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

    def _timeout(self, timeouts: Timeouts) -> aiohttp.ClientTimeout:
        """aiohttp's timeouts for httpx's (made once per distinct set: the usual one repeats)."""
        connect, pool, read = timeouts.get("connect"), timeouts.get("pool"), timeouts.get("read")
        timeout = self._timeouts.get((connect, pool, read))
        if timeout is None:
            import aiohttp

            timeout = aiohttp.ClientTimeout(
                total=None,
                # aiohttp's "connect" covers waiting for a pooled connection and
                # making one; "sock_connect" the making alone.
                connect=None if pool is None or connect is None else pool + connect,
                sock_connect=connect,
                sock_read=read,
            )
            if len(self._timeouts) < 64:
                self._timeouts[(connect, pool, read)] = timeout
        return timeout

    async def exchange(
        self,
        method: str,
        url: str,
        headers: Sequence[tuple[str, str]],
        body: bytes,
        timeouts: Timeouts,
        cap: int,
    ) -> tuple[int, str | None, bytes]:
        """Send one request; its status, ``Retry-After`` and body (at most ``cap`` bytes).

        Raises httpx's transport errors (see the module docstring),
        :class:`~bottui.api.errors.PlainHttpRefused` and :class:`BodyTooLarge`.
        """
        response = await self._send(method, url, headers, body, timeouts)
        try:
            status = response.status
            data = await read_capped(_chunks(response), cap, status)
            return status, response.headers.get("Retry-After"), data
        finally:
            response.release()  # back to the pool when fully read; closed otherwise

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """httpx's call: the response with its body still streaming."""
        try:
            response = await self._send(
                request.method,
                str(request.url),
                # Built inline, never bound to a local: crash reports print
                # the locals of every frame, and these hold the token.
                [
                    (name.decode("latin-1"), value.decode("latin-1"))
                    for name, value in request.headers.raw
                    if name.lower() not in _SKIP_HEADERS
                ],
                await request.aread(),
                request.extensions.get("timeout", {}),
            )
        except httpx.TransportError as exc:
            exc.request = request
            raise
        return httpx.Response(
            status_code=response.status,
            headers=list(response.raw_headers),
            stream=_ResponseStream(response),
            extensions={
                "http_version": b"HTTP/%d.%d" % tuple(response.version or (1, 1)),
                "reason_phrase": (response.reason or "").encode("latin-1", "replace"),
            },
        )

    async def _send(
        self,
        method: str,
        url: str,
        headers: Sequence[tuple[str, str]],
        body: bytes,
        timeouts: Timeouts,
    ) -> aiohttp.ClientResponse:
        """The request sent, its response's head read; aiohttp's errors mapped to httpx's."""
        import aiohttp

        session = self._client_session()
        target = _url(url)
        options: dict[str, Any] = {}
        if target.scheme == "https":
            options["ssl"] = self.ssl_context()
        else:
            # Before the session sees the request: a refusal here means no
            # connection was attempted. The connector then gets these
            # addresses from the book (its resolver).
            await self.addresses.pin_plain(target.raw_host or "", target.port or 80)
        failure: httpx.TransportError | None = None
        try:
            return await session.request(
                method,
                target,
                headers=headers,
                data=body or None,
                allow_redirects=False,
                timeout=self._timeout(timeouts),
                **options,
            )
        except (aiohttp.ClientError, OSError) as exc:  # TimeoutError is an OSError
            failure = _mapped(exc, target.host or "")
        raise failure  # outside the except blocks: no __context__ to aiohttp's request

    async def aclose(self) -> None:
        """Close the pool and its connections."""
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()


@functools.lru_cache(maxsize=256)
def _url(url: str) -> yarl.URL:
    """``url`` exactly as built, parsed once (a bulk run sends one URL many times)."""
    import yarl

    return yarl.URL(url, encoded=True)


async def read_capped(chunks: AsyncIterator[bytes], cap: int, status: int) -> bytes:
    """The whole body; :class:`BodyTooLarge` as soon as it passes ``cap`` bytes."""
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > cap:
            raise BodyTooLarge(status)
        parts.append(chunk)
    return b"".join(parts)


async def _chunks(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    """The body of an aiohttp response, chunk by chunk, errors mapped to httpx's."""
    import aiohttp

    content = response.content
    while True:
        failure: httpx.TransportError | None = None
        chunk = b""
        try:
            chunk = await content.read(_CHUNK)
        except (aiohttp.ClientError, OSError) as exc:  # TimeoutError is an OSError
            failure = _mapped(exc, "", reading=True)
        if failure is not None:
            raise failure  # outside the except block: no __context__ to aiohttp's objects
        if not chunk:
            return
        yield chunk


def _mapped(exc: BaseException, host: str, *, reading: bool = False) -> httpx.TransportError:
    """httpx's error for an aiohttp one (``reading``: the body, after the head came).

    The order matters: aiohttp's connect timeout is a ``ServerTimeoutError``
    too, and ``TimeoutError`` an ``OSError``.
    """
    import aiohttp

    if not reading and isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(error_text(exc, "connect timeout"))
    if isinstance(exc, aiohttp.ServerTimeoutError | TimeoutError):
        return httpx.ReadTimeout(error_text(exc, "read timeout"))
    if reading and isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ServerDisconnectedError):
        return httpx.RemoteProtocolError(error_text(exc, "answer cut short"))
    if not reading and isinstance(exc, aiohttp.ClientConnectorError):
        reason = final_reason(exc, host)
        if reason is not None:
            return FinalConnectError(reason)
        return httpx.ConnectError(error_text(exc, "could not connect"))
    if not reading and isinstance(exc, aiohttp.ServerDisconnectedError):
        return httpx.RemoteProtocolError(error_text(exc, "server disconnected"))
    if not reading and isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ClientResponseError):
        return httpx.RemoteProtocolError(error_text(exc, "invalid answer"))
    if not reading and isinstance(exc, aiohttp.InvalidURL):
        return httpx.UnsupportedProtocol(error_text(exc, "invalid URL"))
    return httpx.ReadError(error_text(exc, "connection lost"))


class _ResponseStream(httpx.AsyncByteStream):
    """The body of an aiohttp response for httpx (:func:`_chunks`)."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    def __aiter__(self) -> AsyncIterator[bytes]:
        return _chunks(self._response)

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
