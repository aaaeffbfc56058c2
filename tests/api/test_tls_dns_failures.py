"""#10.12: certificate, TLS and DNS failures are said plainly and not retried.

Real TLS servers on loopback with certificates made here; the sandbox's
plain-http port for https-against-http; an injected resolver for names that
do not resolve. Both transports.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bottui.api.client import BotProtectionClient, build_thresholds
from bottui.api.errors import EXIT_NETWORK, ConnectionFailed
from bottui.api.sending import RetryPolicy
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import demo_state
from tests.api.resolvers import MapResolver
from tests.api.test_client import ACC, PAT, PROJ, FakeTime
from tests.api.tls_server import self_signed, tls_server
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope

LOOPBACK = MapResolver({"localhost": ["127.0.0.1"]})
THRESHOLDS = build_thresholds("score", "0.9", "0.5")


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def transport(monkeypatch: pytest.MonkeyPatch) -> str:
    """The one transport (httpx's own, switchable before #29, is gone); no CA overrides."""
    name = "aiohttp"
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return name


async def failure(url: str, resolver: MapResolver, fake_time: FakeTime) -> ConnectionFailed:
    """The error of one threshold update sent to ``url``; no retry may happen."""
    client = BotProtectionClient(
        url, resolver=resolver, policy=RetryPolicy(), timing=fake_time.timing()
    )
    async with client:
        with pytest.raises(ConnectionFailed) as caught:
            await client.update_dimension_thresholds(ACC, PROJ, "dim", THRESHOLDS, PAT)
    error = caught.value
    assert error.attempts == 1 and fake_time.sleeps == []
    assert error.exit_code == EXIT_NETWORK
    assert "SSLContext" not in str(error) and "gave up" not in str(error)
    return error


async def test_a_certificate_nobody_vouches_for(
    transport: str, tmp_path: Path, fake_time: FakeTime
) -> None:
    cert, key = self_signed(tmp_path, "localhost")
    async with tls_server(cert, key) as port:
        error = await failure(f"https://localhost:{port}", LOOPBACK, fake_time)
    assert error.details == "certificate not trusted for localhost (set SSL_CERT_FILE to add a CA)"


async def test_the_same_certificate_once_trusted_works(
    transport: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = self_signed(tmp_path, "localhost")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    async with tls_server(cert, key) as port:
        url = f"https://localhost:{port}"
        async with BotProtectionClient(url, resolver=LOOPBACK) as client:
            done = await client.update_dimension_thresholds(ACC, PROJ, "dim", THRESHOLDS, PAT)
    assert done.status == 200


async def test_a_certificate_for_another_name(
    transport: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_time: FakeTime
) -> None:
    cert, key = self_signed(tmp_path, "wrong.example")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trusted, but not for localhost
    async with tls_server(cert, key) as port:
        error = await failure(f"https://localhost:{port}", LOOPBACK, fake_time)
    assert error.details.startswith("hostname mismatch")
    assert "localhost" in error.details


async def test_https_against_a_plain_http_port(transport: str, fake_time: FakeTime) -> None:
    with SandboxServer(demo_state()) as sandbox:
        url = f"https://127.0.0.1:{sandbox.port}"
        error = await failure(url, MapResolver({}), fake_time)
    assert error.details == "the server does not speak TLS: did you mean http://?"


@pytest.mark.parametrize("scheme", ["https", "http"])
async def test_a_name_that_does_not_resolve(
    transport: str, scheme: str, fake_time: FakeTime
) -> None:
    host = "api.invalid" if scheme == "https" else "nowhere.localhost"
    resolver = MapResolver({})
    error = await failure(f"{scheme}://{host}", resolver, fake_time)
    assert error.details == f"host not found: {host}"
    assert resolver.calls == [host]


def test_the_cli_says_it_in_one_line(
    transport: str, sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", PAT.reveal())
    url = f"https://127.0.0.1:{sandbox.port}"
    r = cli("thresholds", "set", "dim", *scope(), "--name", "s", "--block", "0.9",
            "--challenge", "0.5", "--base-url", url)  # fmt: skip
    assert r.code == EXIT_NETWORK
    assert "the server does not speak TLS: did you mean http://?" in r.err
    assert "SSLContext" not in r.err and "attempts" not in r.err
