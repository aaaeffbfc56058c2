"""#10.1: plain http goes only to the loopback addresses its host resolved to.

A name proves nothing (``evil.localhost`` may resolve anywhere): the host of
a plain-http URL is resolved once at the first send, refused unless every
address is loopback, and connected to at those addresses only, on both
transports. The resolver is injected, so no ``/etc/hosts`` is touched.
"""

from __future__ import annotations

import contextlib
import re
import socket
from collections.abc import Iterator

import httpx
import pytest

from bottui.api.client import BotProtectionClient
from bottui.api.errors import EXIT_REFUSED, PlainHttpRefused, RefusedError
from bottui.api.transport import AiohttpTransport, check_base_url
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import demo_state
from tests.api.resolvers import MapResolver
from tests.api.test_client import ACC, PRJ, PROJ

ELSEWHERE = "192.0.2.2"  # TEST-NET-1; this machine's own address in CI, if anywhere


@pytest.fixture
def transport() -> str:
    """The one transport (httpx's own, switchable before #29, is gone)."""
    return "aiohttp"


@contextlib.contextmanager
def listener(host: str) -> Iterator[tuple[socket.socket | None, int]]:
    """A listening socket on ``host`` (None if this machine has no such address)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((host, 0))
    except OSError:
        sock.bind(("127.0.0.1", 0))  # only for a free port number
        yield None, sock.getsockname()[1]
        sock.close()
        return
    sock.listen(8)
    sock.setblocking(False)
    try:
        yield sock, sock.getsockname()[1]
    finally:
        sock.close()


def nothing_connected(sock: socket.socket | None) -> bool:
    if sock is None:
        return True
    try:
        conn, _ = sock.accept()
    except BlockingIOError:
        return True
    conn.close()
    return False


def test_the_default_transport_is_the_pinned_one(transport: str) -> None:
    client = BotProtectionClient("http://127.0.0.1:1", max_connections=4)
    assert isinstance(client.transport, AiohttpTransport)
    pooled = client.with_pool(8)  # a bulk run's pool: the same pins
    assert isinstance(pooled.transport, AiohttpTransport)
    assert pooled.transport is not client.transport
    assert pooled.transport.addresses is client.transport.addresses


async def test_a_name_resolving_elsewhere_is_refused_before_any_connection(
    transport: str,
) -> None:
    resolver = MapResolver({"evil.localhost": [ELSEWHERE]})
    with listener(ELSEWHERE) as (sock, port):
        client = BotProtectionClient(f"http://evil.localhost:{port}", resolver=resolver)
        async with client:
            with pytest.raises(RefusedError) as caught:
                await client.set_rate_limiter_active(ACC, PROJ, "rl-api", False, PRJ)
            with pytest.raises(RefusedError):  # again: refused from the first answer
                await client.set_rate_limiter_active(ACC, PROJ, "rl-api", False, PRJ)
        assert nothing_connected(sock)
    error = caught.value
    assert error.exit_code == EXIT_REFUSED
    assert "evil.localhost" in str(error) and ELSEWHERE in str(error)
    assert "use https://" in str(error)
    assert resolver.calls == ["evil.localhost"]


async def test_mixed_loopback_and_other_answers_are_refused(transport: str) -> None:
    resolver = MapResolver({"mixed.localhost": ["127.0.0.1", ELSEWHERE]})
    with SandboxServer(demo_state()) as sandbox:
        client = BotProtectionClient(f"http://mixed.localhost:{sandbox.port}", resolver=resolver)
        async with client:
            with pytest.raises(RefusedError, match=re.escape("127.0.0.1, 192.0.2.2")):
                await client.set_rate_limiter_active(ACC, PROJ, "rl-api", False, PRJ)
        assert sandbox.stats.requests == 0


async def test_localhost_goes_through_the_same_rule(transport: str) -> None:
    resolver = MapResolver({"localhost": [ELSEWHERE]})
    async with BotProtectionClient("http://localhost:18700", resolver=resolver) as client:
        with pytest.raises(PlainHttpRefused):
            await client.set_rate_limiter_active(ACC, PROJ, "rl-api", False, PRJ)


async def test_a_pinned_name_connects_to_the_address_it_resolved_to(transport: str) -> None:
    # The sandbox listens on 127.0.0.3 alone: only the pinned address reaches it
    # (the system would resolve the name to 127.0.0.1, if at all).
    resolver = MapResolver({"pinned.localhost": ["127.0.0.3"]})
    with SandboxServer(demo_state(), host="127.0.0.3") as sandbox:
        url = f"http://pinned.localhost:{sandbox.port}"
        async with BotProtectionClient(url, resolver=resolver) as client:
            first = await client.set_rate_limiter_active(ACC, PROJ, "rl-api", False, PRJ)
            second = await client.set_rate_limiter_active(ACC, PROJ, "rl-api", True, PRJ)
        assert (first.is_active, second.is_active) == (False, True)
        assert sandbox.stats.requests == 2
    assert resolver.calls == ["pinned.localhost"]  # resolved once per client


async def test_a_literal_loopback_address_needs_no_resolution(transport: str) -> None:
    resolver = MapResolver({})
    with SandboxServer(demo_state()) as sandbox:
        async with BotProtectionClient(sandbox.base_url, resolver=resolver) as client:
            await client.set_rate_limiter_active(ACC, PROJ, "rl-api", False, PRJ)
        assert sandbox.stats.requests == 1
    assert resolver.calls == []


async def test_resolution_waits_for_the_first_send() -> None:
    resolver = MapResolver({"later.localhost": ["127.0.0.1"]})
    client = BotProtectionClient("http://later.localhost:1", resolver=resolver)
    client.prepare_rate_limiter(ACC, PROJ, "rl-api", True)
    assert resolver.calls == []
    await client.aclose()


@pytest.mark.parametrize(
    "url", ["http://192.0.2.2:80", "http://api.example.com", "http://127.1", "http://2130706433"]
)
def test_the_sync_check_still_refuses_what_the_url_shows(url: str) -> None:
    with pytest.raises(RefusedError, match="plain http"):
        check_base_url(url)


def test_the_sync_check_leaves_names_to_the_send() -> None:
    assert check_base_url("http://evil.localhost:18700") == "http://evil.localhost:18700"


async def test_https_keeps_normal_resolution(transport: str) -> None:
    # Not pinned, not refused: certificate verification protects https.
    resolver = MapResolver({"api.localhost": [ELSEWHERE]})
    transport_ = AiohttpTransport(max_connections=2, resolver=resolver)
    book = transport_.addresses
    assert await book.addresses("api.localhost", 443) == (ELSEWHERE,)
    assert book.pinned("api.localhost", 443) is None
    await transport_.aclose()


def test_an_injected_transport_is_used_as_given() -> None:
    # Tests pass ASGITransport: no socket, nothing to pin.
    asgi = httpx.ASGITransport(app=lambda *a: None)
    client = BotProtectionClient("http://127.0.0.1:1", transport=asgi)
    assert client._transport is asgi
