"""Request counters, the request log, and that no token value is ever recorded or logged."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from bottui.sandbox.demo_data import (
    DEMO_ACCESS_TOKEN,
    DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION,
    DEMO_ACCOUNT,
    DEMO_PROJECT_TOKENS,
)
from bottui.sandbox.server import SandboxServer
from tests.sandbox.helpers import PERSONAL, PROD, PROJECT, SSL, limiter_path, revoke_path


async def test_peak_in_flight_under_concurrency(sandbox: SandboxServer) -> None:
    # Held until all six are in: they overlap however slowly each one arrives.
    sandbox.faults.hold_requests()
    limits = httpx.Limits(max_connections=10)
    async with httpx.AsyncClient(
        verify=SSL, base_url=sandbox.base_url, limits=limits, timeout=120
    ) as http:
        sent = asyncio.gather(
            *(
                http.post(revoke_path(), json={"subject": {"visitorId": f"v{i}"}}, headers=PERSONAL)
                for i in range(6)
            )
        )
        try:
            assert await sandbox.faults.wait_until_held_async(6, timeout=120)
        finally:
            sandbox.faults.release()
        responses = await sent
        assert [r.status_code for r in responses] == [200] * 6
        stats = (await http.get("/_sandbox/stats")).json()
    assert stats == {"requests": 6, "inFlight": 0, "peakInFlight": 6}
    assert sandbox.stats.peak_in_flight == 6


def test_counters_and_reset(sandbox: SandboxServer, client: httpx.Client) -> None:
    for _ in range(3):
        client.post(revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL)
    client.get("/nowhere")  # unknown paths are API requests too
    for _ in range(2):  # control endpoints are not counted
        client.get("/_sandbox/stats")
    assert client.get("/_sandbox/stats").json() == {"requests": 4, "inFlight": 0, "peakInFlight": 1}
    assert len(sandbox.state.recorder.log) == 4
    assert client.post("/_sandbox/reset").json() == {
        "requests": 0,
        "inFlight": 0,
        "peakInFlight": 0,
    }
    assert sandbox.state.recorder.log == []
    with pytest.raises(LookupError):
        sandbox.state.recorder.last()


def test_request_log_entry(sandbox: SandboxServer, client: httpx.Client) -> None:
    body = b'{"isActive": false}'
    client.patch(
        limiter_path("rl-login") + "?trace=1",
        content=body,
        headers={**PROJECT, "content-type": "application/json", "user-agent": "t/1"},
    )
    entry = sandbox.state.recorder.last()
    assert entry.method == "PATCH"
    assert entry.raw_path == "/api/v1/acme/projects/shop-prod/rate_limiters/rl-login/active"
    assert entry.segments == (
        "api",
        "v1",
        "acme",
        "projects",
        "shop-prod",
        "rate_limiters",
        "rl-login",
        "active",
    )
    assert entry.query_string == "trace=1"
    assert entry.body == body and entry.json == {"isActive": False}
    assert entry.content_type == "application/json"
    assert ("user-agent", "t/1") in entry.headers
    assert entry.auth is not None
    assert (entry.auth.kind, entry.auth.account_id, entry.auth.project_id) == (
        "project",
        DEMO_ACCOUNT,
        PROD,
    )
    assert entry.status == 200 and entry.fault is None and not entry.dropped


def test_request_log_of_failures(sandbox: SandboxServer, client: httpx.Client) -> None:
    client.post(revoke_path(), content=b"\xff not json", headers=PERSONAL)
    entry = sandbox.state.recorder.last()
    assert entry.status == 400 and entry.json is None and entry.body == b"\xff not json"
    assert entry.auth is not None and entry.auth.kind == "personal"
    client.post(revoke_path(), json={})
    assert sandbox.state.recorder.last().auth is None
    assert sandbox.state.recorder.last().status == 401


def test_no_token_value_is_recorded_or_logged(
    sandbox: SandboxServer, client: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    tokens = [DEMO_ACCESS_TOKEN, DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION, *DEMO_PROJECT_TOKENS.values()]
    client.post(revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL)
    client.patch(limiter_path("rl-login"), json={"isActive": True}, headers=PROJECT)
    client.post(
        revoke_path(),
        json={"subject": {"visitorId": "v"}},
        headers={
            "X-Api-Key": DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION,
            "Authorization": f"Bearer {DEMO_ACCESS_TOKEN}",
            "Cookie": f"t={DEMO_ACCESS_TOKEN}",
        },
    )
    client.post(
        revoke_path(),
        json={"subject": {"visitorId": "v"}},
        headers={"X-Api-Key": "pat_unknown_secret"},
    )
    recorded = repr(sandbox.state.recorder.log) + repr(vars(sandbox.state))
    for token in [*tokens, "pat_unknown_secret"]:
        assert token not in recorded
        assert token not in caplog.text
    assert not [r for r in caplog.records if r.name == "uvicorn.access"]
    names = {name for entry in sandbox.state.recorder.log for name, _ in entry.headers}
    assert not names & {"x-api-key", "authorization", "cookie"}
