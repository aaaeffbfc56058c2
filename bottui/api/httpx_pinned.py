"""httpx's own transport (``BOTTUI_HTTP_TRANSPORT=httpx``), connecting where the address book says.

:class:`PinnedHttpxTransport` is ``httpx.AsyncHTTPTransport`` whose httpcore
pool connects through :class:`BookBackend`: the network backend resolves
each host through :class:`~bottui.api.resolve.AddressBook` and connects to
the addresses it gets, in order. A plain-http host is pinned (resolved once,
every address loopback) before the request reaches the pool, so its
connections go to the checked addresses only; any other host is resolved
afresh. TLS still verifies the URL's host name: httpcore passes it as the
server name whatever address the socket went to.
"""

from __future__ import annotations

from collections.abc import Iterable

import httpcore
import httpx

from bottui.api import netfail
from bottui.api.resolve import AddressBook, Resolver


class BookBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that connects to an :class:`AddressBook`'s addresses."""

    def __init__(self, book: AddressBook) -> None:
        self._book = book
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Connect to the first of ``host``'s addresses that answers."""
        try:
            addresses = await self._book.addresses(host, port)
        except OSError as exc:
            # httpx maps httpcore's errors to its own, keeping the cause.
            raise httpcore.ConnectError(str(exc)) from exc
        last: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None  # addresses() never returns an empty tuple
        raise last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Not used: bottui speaks TCP only."""
        raise httpcore.ConnectError("unix sockets are not used")

    async def sleep(self, seconds: float) -> None:
        """Sleep as the inner backend does."""
        await self._inner.sleep(seconds)


class PinnedHttpxTransport(httpx.AsyncHTTPTransport):
    """``httpx.AsyncHTTPTransport`` (no proxy, no retry) over a :class:`BookBackend` pool.

    Args:
        max_connections: Connections the pool holds at most.
        resolver: How names are resolved (default: the system's).
    """

    def __init__(self, *, max_connections: int = 64, resolver: Resolver | None = None) -> None:
        context = httpx.create_ssl_context()  # certifi, SSL_CERT_FILE/DIR, as httpx's
        super().__init__(verify=context, retries=0)
        self.addresses = AddressBook(resolver)
        # The same pool httpx builds for these arguments, plus the backend:
        # AsyncHTTPTransport has no parameter for it.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            keepalive_expiry=httpx.Limits(max_connections=None).keepalive_expiry,
            retries=0,
            network_backend=BookBackend(self.addresses),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Pin a plain-http host (or refuse it) before the pool connects anywhere."""
        if request.url.scheme == "http":
            host = request.url.raw_host.decode("ascii")
            await netfail.pin_plain(self.addresses, request, host, request.url.port or 80)
        return await super().handle_async_request(request)


__all__ = ["BookBackend", "PinnedHttpxTransport"]
