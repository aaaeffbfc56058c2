"""The aiohttp transport under the client: URLs sent as built, failures keeping their meaning."""

from __future__ import annotations

import asyncio
import traceback

import httpx
import pytest

from bottui.api.client import BotProtectionClient
from bottui.api.tokens import AccessToken
from bottui.api.transport import AiohttpTransport
from bottui.sandbox import demo_data
from bottui.sandbox.server import SandboxServer
from tests.bulk.conftest import logged
from tests.sandbox.helpers import revoke_path

REVOCATIONS = revoke_path()


def test_the_transport_is_aiohttp_and_a_variable_no_longer_switches_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BOTTUI_HTTP_TRANSPORT", "httpx")  # gone with #29: one path
    client = BotProtectionClient("http://127.0.0.1:1")
    assert isinstance(client.transport, AiohttpTransport)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/acme/projects/%2E%2E/x",
        "/api/v1/%2e%2e/%2F/%252F/a%20b",
        "/api/v1/acme/projects/shop-prod/rate_limiters/%2E/active",
    ],
)
async def test_raw_path_is_sent_untouched(sandbox: SandboxServer, path: str) -> None:
    async with httpx.AsyncClient(transport=AiohttpTransport()) as http:
        answer = await http.post(sandbox.base_url + path, content=b"{}")
    assert answer.status_code in (401, 404, 405)
    assert logged(sandbox)[-1].raw_path == path


async def test_connection_refused_is_connect_error() -> None:
    with SandboxServer() as gone:
        url = gone.base_url
    async with httpx.AsyncClient(transport=AiohttpTransport()) as http:
        with pytest.raises(httpx.ConnectError) as info:
            await http.get(url + "/")
    assert not isinstance(info.value, httpx.TimeoutException)
    assert info.value.__context__ is None and info.value.__cause__ is None


async def test_waiting_for_the_pool_is_a_connect_timeout(sandbox: SandboxServer) -> None:
    sandbox.faults.hold_requests()
    async with httpx.AsyncClient(transport=AiohttpTransport(max_connections=1)) as http:
        held = asyncio.create_task(http.post(sandbox.base_url + REVOCATIONS, content=b"{}"))
        assert await sandbox.faults.wait_until_held_async(1)
        with pytest.raises(httpx.ConnectTimeout):  # nothing was sent: safe to retry
            await http.post(
                sandbox.base_url + REVOCATIONS,
                content=b"{}",
                timeout=httpx.Timeout(5, connect=0.05, pool=0.1),
            )
        sandbox.faults.release()
        assert (await held).status_code == 401


async def test_slow_answer_is_read_timeout(sandbox: SandboxServer) -> None:
    sandbox.faults.configure(latency=1.0)
    async with httpx.AsyncClient(transport=AiohttpTransport()) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.post(
                sandbox.base_url + REVOCATIONS, content=b"{}", timeout=httpx.Timeout(5, read=0.1)
            )


async def test_cut_answer_is_a_protocol_error(sandbox: SandboxServer) -> None:
    sandbox.faults.configure(drop_next=1)
    async with httpx.AsyncClient(transport=AiohttpTransport()) as http:
        with pytest.raises(httpx.RemoteProtocolError) as info:
            await http.post(sandbox.base_url + REVOCATIONS, content=b"{}")
    assert info.value.__context__ is None


async def test_body_streamed_headers_kept_keep_alive_reused(sandbox: SandboxServer) -> None:
    async with BotProtectionClient(sandbox.base_url, max_connections=2) as client:
        token = AccessToken(demo_data.DEMO_ACCESS_TOKEN)
        for n in range(20):
            await client.revoke_grant("acme", "shop-prod", token, visitor_id=f"v{n}")
    records = logged(sandbox)
    headers = dict(records[-1].headers)
    assert headers["content-type"] == "application/json"
    assert headers["user-agent"].startswith("bottui/")
    assert headers["accept"] == "application/json"
    assert "x-api-key" not in headers  # the sandbox never logs it
    assert records[-1].auth is not None and records[-1].auth.kind == "personal"


async def test_token_not_in_any_failure(sandbox: SandboxServer) -> None:
    canary = "CANARY_transport_7d1e"
    sandbox.faults.configure(drop_next=1)
    async with httpx.AsyncClient(transport=AiohttpTransport()) as http:
        with pytest.raises(httpx.HTTPError) as info:
            await http.post(
                sandbox.base_url + REVOCATIONS, content=b"{}", headers={"X-Api-Key": canary}
            )
    text = "".join(traceback.format_exception(info.value))
    text += repr(info.value.__dict__.get("_message"))
    assert canary not in text
