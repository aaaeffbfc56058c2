"""The same app in-process over ``httpx.ASGITransport`` (no sockets)."""

from __future__ import annotations

import asyncio

import pytest

from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.endpoints import ConnectionDropped
from tests.fixtures.sandbox import AsgiSandbox
from tests.sandbox.helpers import (
    PERSONAL,
    PROD,
    PROJECT,
    assert_error,
    key,
    limiter_path,
    revoke_path,
    thresholds_path,
)


async def test_three_operations(asgi_sandbox: AsgiSandbox) -> None:
    http, state = asgi_sandbox.client, asgi_sandbox.state
    r = await http.patch(limiter_path("rl-login"), json={"isActive": False}, headers=PROJECT)
    assert r.status_code == 200 and r.json()["id"] == PROD
    r = await http.post(
        revoke_path(), json={"subject": {"userAccountId": "user-1042"}}, headers=PERSONAL
    )
    assert r.json()["revoked"] is True
    r = await http.put(
        thresholds_path("velocity"),
        content=b'{"name": "v", "blockThreshold": 0.123456789, "challengeThreshold": 0.5}',
        headers=PERSONAL,
    )
    assert r.json() == {}
    dim = state.dimension(DEMO_ACCOUNT, PROD, "velocity")
    assert dim is not None and dim.block_threshold_raw == "0.123456789"
    assert state.recorder.stats().requests == 3


async def test_errors_and_clock(asgi_sandbox: AsgiSandbox) -> None:
    http = asgi_sandbox.client
    assert_error(
        await http.post(revoke_path(), json={}), 401, "unauthorized", "authentication_error"
    )
    assert_error(
        await http.post(revoke_path(), json={"subject": {}}, headers=PERSONAL),
        400,
        "invalid_request",
        "validation_error",
    )
    asgi_sandbox.clock.advance(7200)
    r = await http.post(
        revoke_path(), json={"subject": {"visitorId": "vis_7Hq2kP9xLm"}}, headers=PERSONAL
    )
    assert r.json()["revoked"] is False


async def test_hostile_raw_path(asgi_sandbox: AsgiSandbox) -> None:
    state = asgi_sandbox.state
    ident = "a/b?c#d %2F .."
    state.add_project(DEMO_ACCOUNT, ident)
    state.add_rate_limiter(DEMO_ACCOUNT, ident, ident)
    state.add_project_token("prj_asgi", DEMO_ACCOUNT, ident)
    r = await asgi_sandbox.client.patch(
        limiter_path(ident, ident), json={"isActive": False}, headers=key("prj_asgi")
    )
    assert r.status_code == 200, r.text
    assert state.recorder.last().segments[4] == ident


async def test_faults_and_peak(asgi_sandbox: AsgiSandbox) -> None:
    http, faults = asgi_sandbox.client, asgi_sandbox.faults
    faults.configure(rate_limit_next=1, retry_after="3")
    r = await http.post(revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL)
    assert r.status_code == 429 and r.headers["retry-after"] == "3"
    faults.configure(latency=0.05)
    await asyncio.gather(
        *(
            http.post(revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL)
            for _ in range(4)
        )
    )
    assert asgi_sandbox.state.recorder.stats().peak_in_flight == 4


async def test_drop_raises_in_process(asgi_sandbox: AsgiSandbox) -> None:
    """Without a socket to cut, ASGITransport hands the app's exception to the caller."""
    asgi_sandbox.faults.configure(drop_next=1)
    with pytest.raises(ConnectionDropped):
        await asgi_sandbox.client.post(
            revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL
        )
