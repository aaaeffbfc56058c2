"""Every fault mode, seen by a real httpx client over loopback."""

from __future__ import annotations

import random
import threading
import time
from email.utils import formatdate

import httpx
import pytest

from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.faults import FaultError, Faults
from bottui.sandbox.server import SandboxServer
from tests.sandbox.helpers import PERSONAL, PROD, SSL, assert_error, revoke_path

VISITOR = "vis_7Hq2kP9xLm"


def revoke(client: httpx.Client, visitor: str = VISITOR) -> httpx.Response:
    return client.post(revoke_path(), json={"subject": {"visitorId": visitor}}, headers=PERSONAL)


def standing(sandbox: SandboxServer, visitor: str = VISITOR) -> bool:
    return sandbox.state.grant(DEMO_ACCOUNT, PROD, "visitorId", visitor) is not None


def test_latency_delays_api_requests_only(sandbox: SandboxServer, client: httpx.Client) -> None:
    sandbox.faults.configure(latency=0.2)
    start = time.perf_counter()
    assert revoke(client).status_code == 200
    assert time.perf_counter() - start >= 0.2  # a lower bound: a busy machine only adds
    # An hour of latency: a control endpoint that waited it out would hit the hang guard.
    sandbox.faults.configure(latency=3600)
    with httpx.Client(verify=SSL, base_url=sandbox.base_url, timeout=120) as control:
        assert control.get("/_sandbox/stats").status_code == 200
        assert control.put("/_sandbox/faults", json={"latency": 0}).status_code == 200


def test_error_rate_is_seeded(sandbox: SandboxServer, client: httpx.Client) -> None:
    sandbox.faults.configure(error_rate=0.5, seed=7)
    statuses = [revoke(client, f"v{i}").status_code for i in range(20)]
    rng = random.Random(7)
    assert statuses == [503 if rng.random() < 0.5 else 200 for _ in range(20)]
    assert {200, 503} == set(statuses)
    sandbox.faults.configure(seed=7)  # same seed, same pattern
    assert [revoke(client, f"v{i}").status_code for i in range(20)] == statuses


def test_injected_5xx_is_an_error_object_and_changes_nothing(
    sandbox: SandboxServer, client: httpx.Client
) -> None:
    sandbox.faults.configure(error_rate=1.0, error_status=500)
    assert_error(revoke(client), 500, "unavailable", "server_error")
    assert standing(sandbox)
    assert sandbox.state.recorder.last().fault == "error_rate"


def test_fail_next(sandbox: SandboxServer, client: httpx.Client) -> None:
    sandbox.faults.configure(fail_next=2)
    assert_error(revoke(client), 503, "unavailable", "server_error")
    assert_error(revoke(client), 503, "unavailable", "server_error")
    assert standing(sandbox)
    assert revoke(client).json()["revoked"] is True
    assert [e.fault for e in sandbox.state.recorder.log] == ["fail", "fail", None]


@pytest.mark.parametrize("retry_after", ["2", formatdate(1_767_225_660, usegmt=True)])
def test_rate_limit_next_with_retry_after(
    sandbox: SandboxServer, client: httpx.Client, retry_after: str
) -> None:
    sandbox.faults.configure(rate_limit_next=1, retry_after=retry_after)
    r = revoke(client)
    body = assert_error(r, 429, "rate_limited", "rate_limit_error")
    assert r.headers["retry-after"] == retry_after
    assert body["context"] == {"retryAfter": retry_after}
    assert standing(sandbox)
    assert revoke(client).status_code == 200


def test_non_json_next(sandbox: SandboxServer, client: httpx.Client) -> None:
    sandbox.faults.configure(non_json_next=1)
    r = revoke(client)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    with pytest.raises(ValueError):
        r.json()
    assert standing(sandbox)


def test_drop_after_handling(sandbox: SandboxServer, client: httpx.Client) -> None:
    """The client gets a protocol error, yet the revocation took place."""
    sandbox.faults.configure(drop_next=1)
    with pytest.raises(httpx.RemoteProtocolError, match="peer closed connection"):
        revoke(client)
    assert not standing(sandbox)
    entry = sandbox.state.recorder.last()
    assert entry.dropped and entry.fault == "drop" and entry.status == 200
    # The next request goes through on a new connection.
    assert revoke(client).json()["revoked"] is False


def test_drop_before_handling(sandbox: SandboxServer, client: httpx.Client) -> None:
    sandbox.faults.configure(drop_next=1, drop_mode="before")
    with pytest.raises(httpx.RemoteProtocolError):
        revoke(client)
    assert standing(sandbox)


def test_drop_seen_when_streaming(sandbox: SandboxServer, client: httpx.Client) -> None:
    """Headers arrive (status and Content-Length); reading the body fails."""
    sandbox.faults.configure(drop_next=1)
    request = client.build_request(
        "POST", revoke_path(), json={"subject": {"visitorId": "v"}}, headers=PERSONAL
    )
    response = client.send(request, stream=True)
    try:
        assert response.status_code == 200
        assert int(response.headers["content-length"]) > 0
        with pytest.raises(httpx.RemoteProtocolError):
            response.read()
    finally:
        response.close()


def test_drop_is_not_logged_as_a_crash(
    sandbox: SandboxServer, client: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    sandbox.faults.configure(drop_next=1)
    with pytest.raises(httpx.RemoteProtocolError):
        revoke(client)
    assert not [r for r in caplog.records if r.name.startswith("uvicorn")]


def test_hold_until_released(sandbox: SandboxServer, client: httpx.Client) -> None:
    sandbox.faults.hold_requests()
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(revoke(client).status_code))
    worker.start()
    assert sandbox.faults.wait_until_held(1, timeout=120)
    assert sandbox.stats.in_flight == 1
    assert result == [] and standing(sandbox)  # held: neither answered nor applied
    sandbox.faults.release()
    worker.join(120)  # a hang guard
    assert result == [200] and not standing(sandbox)
    assert sandbox.faults.held == 0


def test_hold_over_http_and_stop_releases(
    sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with httpx.Client(verify=SSL, base_url=sandbox.base_url) as control:
        assert control.put("/_sandbox/faults", json={"hold": True}).json()["hold"] is True
    errors: list[BaseException] = []

    def call() -> None:
        try:
            with httpx.Client(verify=SSL, base_url=sandbox.base_url, timeout=120) as http:
                revoke(http)
        except BaseException as exc:  # the server may close while answering
            errors.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    assert sandbox.faults.wait_until_held(1, timeout=120)
    serving = sandbox._thread
    assert serving is not None
    # Held for an hour, a grace of an hour: a stop that waited for the held request
    # would leave its thread alive (the hang guard: stop joins it for 60 s at most).
    monkeypatch.setattr("bottui.sandbox.server.STOP_GRACE", 3600.0)
    monkeypatch.setattr("bottui.sandbox.server.START_TIMEOUT", 60.0)
    sandbox.stop()
    assert not serving.is_alive()
    worker.join(120)  # a hang guard; the held request was released or cut off
    assert not worker.is_alive()


def test_faults_over_http(sandbox: SandboxServer, client: httpx.Client) -> None:
    r = client.put(
        "/_sandbox/faults",
        json={"failNext": 1, "errorStatus": 502, "retryAfter": "5", "latency": 0},
    )
    assert r.status_code == 200
    snapshot = r.json()
    assert snapshot["failNext"] == 1 and snapshot["errorStatus"] == 502
    assert client.get("/_sandbox/faults").json() == snapshot
    assert_error(revoke(client), 502, "unavailable", "server_error")
    # Control endpoints take no faults and are not counted.
    assert client.get("/_sandbox/faults").json()["failNext"] == 0
    r = client.put("/_sandbox/faults", json={"reset": True})
    assert r.json()["errorStatus"] == 503


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"errorRate": 2}, "errorRate"),
        ({"errorRate": "x"}, "errorRate"),
        ({"latency": -1}, "latency"),
        ({"errorStatus": 404}, "errorStatus"),
        ({"failNext": -1}, "failNext"),
        ({"dropNext": 1.5}, "dropNext"),
        ({"dropMode": "sideways"}, "dropMode"),
        ({"retryAfter": "1\r\nx: y"}, "retryAfter"),
        ({"hold": 1}, "hold"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_fault_settings_are_validated(
    client: httpx.Client, body: dict[str, object], field: str
) -> None:
    r = client.put("/_sandbox/faults", json=body)
    assert assert_error(r, 400, "invalid_request", "validation_error")["context"] == {
        "field": field
    }


def test_fault_precedence_and_python_api() -> None:
    faults = Faults()
    faults.configure(drop_next=1, fail_next=1, rate_limit_next=1, non_json_next=1)
    assert [faults.take() for _ in range(5)] == ["drop", "fail", "rate_limit", "non_json", None]
    with pytest.raises(FaultError):
        faults.configure(error_rate=-0.1)
    faults.configure(latency=0.5, hold=True)
    assert faults.latency == 0.5 and faults.hold
    faults.reset()
    assert faults.latency == 0 and not faults.hold
    assert faults.wait_until_held(1, timeout=0.01) is False
