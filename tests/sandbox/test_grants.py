"""Grant life cycle: expiry by the clock, attempts, FAILED outcomes, the sandbox endpoints."""

from __future__ import annotations

import httpx
import pytest

from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import ManualClock, iso_utc
from tests.sandbox.helpers import PERSONAL, PROD, SSL, assert_error, revoke_path


def revoke(client: httpx.Client, **subject: str) -> dict[str, object]:
    r = client.post(revoke_path(), json={"subject": subject}, headers=PERSONAL)
    assert r.status_code == 200, r.text
    body: dict[str, object] = r.json()
    return body


def issue(sandbox: SandboxServer, visitor: str, lifetime: float = 60, attempts: int = 2) -> None:
    sandbox.state.issue_grant(
        DEMO_ACCOUNT, PROD, "visitorId", visitor, lifetime_seconds=lifetime, attempts=attempts
    )


def test_grant_stands_until_its_lifetime_runs_out(
    sandbox: SandboxServer, client: httpx.Client, sandbox_clock: ManualClock
) -> None:
    issue(sandbox, "v-expire-a", lifetime=60)
    issue(sandbox, "v-expire-b", lifetime=60)
    sandbox_clock.advance(59.5)
    assert revoke(client, visitorId="v-expire-a")["revoked"] is True
    sandbox_clock.advance(0.5)
    assert sandbox.state.grant(DEMO_ACCOUNT, PROD, "visitorId", "v-expire-b") is None
    assert revoke(client, visitorId="v-expire-b")["revoked"] is False


def test_demo_grants_expire_over_http_clock_control(
    sandbox: SandboxServer, client: httpx.Client, sandbox_clock: ManualClock
) -> None:
    start = sandbox_clock.now()
    r = client.post("/_sandbox/clock", json={"advanceSeconds": 3600})
    assert r.status_code == 200
    assert r.json() == {"now": iso_utc(start + 3600), "epochSeconds": start + 3600}
    # vis_7Hq2kP9xLm lived one hour exactly; user-1042 lives a day.
    assert revoke(client, visitorId="vis_7Hq2kP9xLm")["revoked"] is False
    assert revoke(client, userAccountId="user-1042")["revoked"] is True


@pytest.mark.parametrize(
    "body", [{}, {"advanceSeconds": -1}, {"advanceSeconds": "1"}, {"advanceSeconds": True}]
)
def test_clock_control_refuses_bad_values(client: httpx.Client, body: dict[str, object]) -> None:
    assert_error(
        client.post("/_sandbox/clock", json=body), 400, "invalid_request", "validation_error"
    )


def test_clock_control_needs_a_manual_clock() -> None:
    with SandboxServer() as server, httpx.Client(verify=SSL, base_url=server.base_url) as http:
        r = http.post("/_sandbox/clock", json={"advanceSeconds": 1})
        assert_error(r, 409, "conflict", "invalid_request_error")


def test_attempts_running_out_remove_the_grant(
    sandbox: SandboxServer, client: httpx.Client
) -> None:
    issue(sandbox, "v-attempts", attempts=2)
    used = sandbox.state.use_attempt(DEMO_ACCOUNT, PROD, "visitorId", "v-attempts")
    assert used is not None and used.remaining_attempts == 1
    body = revoke(client, visitorId="v-attempts")
    assert body["grantRemainingAttempts"] == 1

    issue(sandbox, "v-attempts", attempts=2)
    attempt = {"accountId": DEMO_ACCOUNT, "projectId": PROD, "visitorId": "v-attempts"}
    r = client.post("/_sandbox/grants/attempts", json=attempt)
    assert r.json() == {"grantRemainingAttempts": 1, "standing": True}
    r = client.post("/_sandbox/grants/attempts", json=attempt)
    assert r.json() == {"grantRemainingAttempts": 0, "standing": False}
    assert sandbox.state.grant(DEMO_ACCOUNT, PROD, "visitorId", "v-attempts") is None
    r = client.post("/_sandbox/grants/attempts", json=attempt)
    assert_error(r, 404, "not_found", "not_found_error")
    assert revoke(client, visitorId="v-attempts")["revoked"] is False


def test_failed_outcome_removes_the_grant_and_is_recorded(
    sandbox: SandboxServer, client: httpx.Client
) -> None:
    outcome = {"accountId": DEMO_ACCOUNT, "projectId": PROD, "userAccountId": "user-1042"}
    r = client.post("/_sandbox/outcomes", json={**outcome, "kind": "PASSED"})
    assert r.json() == {"recorded": True, "kind": "PASSED", "grantRemoved": False}
    assert sandbox.state.grant(DEMO_ACCOUNT, PROD, "userAccountId", "user-1042") is not None
    r = client.post("/_sandbox/outcomes", json={**outcome, "kind": "FAILED"})
    assert r.json() == {"recorded": True, "kind": "FAILED", "grantRemoved": True}
    assert sandbox.state.grant(DEMO_ACCOUNT, PROD, "userAccountId", "user-1042") is None
    assert revoke(client, userAccountId="user-1042")["revoked"] is False
    recorded = sandbox.state.outcomes()
    assert [(o.outcome, o.removed_grant, o.subject_id) for o in recorded] == [
        ("PASSED", False, "user-1042"),
        ("FAILED", True, "user-1042"),
    ]
    # A FAILED report on nothing standing is still recorded.
    report = sandbox.state.report_outcome(DEMO_ACCOUNT, PROD, "visitorId", "nobody", "FAILED")
    assert report.removed_grant is False


def test_issue_grants_over_http_then_revoke(sandbox: SandboxServer, client: httpx.Client) -> None:
    body = {
        "accountId": DEMO_ACCOUNT,
        "projectId": PROD,
        "visitorId": "v-new",
        "userAccountId": "u-new",
        "lifetimeSeconds": 120,
        "attempts": 7,
    }
    r = client.post("/_sandbox/grants", json=body)
    assert r.status_code == 201
    grants = r.json()["grants"]
    assert [g.get("visitorId") or g.get("userAccountId") for g in grants] == ["v-new", "u-new"]
    assert grants[0]["grantRemainingAttempts"] == 7
    listed = client.get("/_sandbox/grants").json()["grants"]
    assert {
        "accountId": DEMO_ACCOUNT,
        "projectId": PROD,
        "visitorId": "v-new",
        "grantExpiresAt": grants[0]["grantExpiresAt"],
        "grantRemainingAttempts": 7,
    } in listed
    out = revoke(client, visitorId="v-new", userAccountId="u-new")
    assert out["revoked"] is True and out["grantRemainingAttempts"] == 7
    assert out["grantExpiresAt"] == iso_utc(sandbox.state.clock.now() + 120)


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/_sandbox/grants", {"accountId": DEMO_ACCOUNT, "projectId": PROD}, 400),
        (
            "/_sandbox/grants",
            {"accountId": DEMO_ACCOUNT, "projectId": "nope", "visitorId": "v"},
            404,
        ),
        (
            "/_sandbox/grants",
            {"accountId": DEMO_ACCOUNT, "projectId": PROD, "visitorId": "v", "attempts": 0},
            400,
        ),
        (
            "/_sandbox/grants",
            {"accountId": DEMO_ACCOUNT, "projectId": PROD, "visitorId": "v", "lifetimeSeconds": -5},
            400,
        ),
        (
            "/_sandbox/grants/attempts",
            {"accountId": DEMO_ACCOUNT, "projectId": PROD, "visitorId": "v", "userAccountId": "u"},
            400,
        ),
        (
            "/_sandbox/outcomes",
            {"accountId": DEMO_ACCOUNT, "projectId": PROD, "visitorId": "v"},
            400,
        ),
    ],
)
def test_sandbox_grant_endpoints_validate(
    client: httpx.Client, path: str, body: dict[str, object], status: int
) -> None:
    r = client.post(path, json=body)
    assert r.status_code == status
    assert set(r.json()) >= {"message", "code", "type"}


def test_state_refuses_degenerate_grants(sandbox: SandboxServer) -> None:
    with pytest.raises(ValueError):
        sandbox.state.issue_grant(DEMO_ACCOUNT, PROD, "visitorId", "v", lifetime_seconds=0)
    with pytest.raises(KeyError):
        sandbox.state.issue_grant(DEMO_ACCOUNT, "nope", "visitorId", "v")


def test_grants_listing_filters(sandbox: SandboxServer) -> None:
    prod = sandbox.state.grants(DEMO_ACCOUNT, PROD)
    assert {g.kind for g in prod} == {"visitorId", "userAccountId"}
    assert all(g.project_id == PROD for g in prod)
    assert len(sandbox.state.grants()) > len(prod)
