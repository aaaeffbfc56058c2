"""Happy paths and body validation of the three operations, over loopback HTTP."""

from __future__ import annotations

import httpx
import pytest

from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import iso_utc
from tests.sandbox.helpers import (
    PERSONAL,
    PROD,
    PROJECT,
    assert_error,
    limiter_path,
    revoke_path,
    thresholds_path,
)

PROJECT_FIELDS = {
    "id",
    "customerId",
    "name",
    "url",
    "siteKey",
    "serverKey",
    "isProtected",
    "rules",
    "rateLimits",
    "phishingInfo",
    "responseExtraFields",
    "updatedAt",
    "createdAt",
}


def test_set_active_returns_the_whole_updated_project(
    sandbox: SandboxServer, client: httpx.Client
) -> None:
    clock = sandbox.state.clock
    before = sandbox.state.project_json(DEMO_ACCOUNT, PROD)
    assert before is not None
    sandbox.state.clock.advance(90)  # type: ignore[attr-defined]
    r = client.patch(limiter_path("rl-login"), json={"isActive": False}, headers=PROJECT)
    assert r.status_code == 200
    project = r.json()
    assert set(project) == PROJECT_FIELDS
    assert project["id"] == PROD and project["customerId"] == "cus_acme_01"
    assert set(project["rules"]) == {"order", "rules"}
    assert set(project["rateLimits"]) == {"order", "rateLimits"}
    assert set(project["phishingInfo"]) == {"originalUrl", "action", "allowedUrls"}
    limiters = {lim["id"]: lim for lim in project["rateLimits"]["rateLimits"]}
    assert project["rateLimits"]["order"] == list(limiters)
    assert limiters["rl-login"]["isActive"] is False
    assert limiters["rl-checkout"]["isActive"] is True  # others untouched
    assert project["updatedAt"] == iso_utc(clock.now()) != before["updatedAt"]
    assert project["createdAt"] == before["createdAt"]
    stored = sandbox.state.rate_limiter(DEMO_ACCOUNT, PROD, "rl-login")
    assert stored is not None and stored.is_active is False

    r = client.patch(limiter_path("rl-search"), json={"isActive": True}, headers=PROJECT)
    assert r.status_code == 200
    stored = sandbox.state.rate_limiter(DEMO_ACCOUNT, PROD, "rl-search")
    assert stored is not None and stored.is_active is True


def test_set_active_is_idempotent(client: httpx.Client) -> None:
    for _ in range(2):
        r = client.patch(limiter_path("rl-search"), json={"isActive": False}, headers=PROJECT)
        assert r.status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b"", "body"),
        (b"not json", "body"),
        (b"[]", "body"),
        (b"{}", "isActive"),
        (b'{"isActive": "false"}', "isActive"),
        (b'{"isActive": 0}', "isActive"),
        (b'{"isActive": null}', "isActive"),
    ],
)
def test_set_active_invalid_body(client: httpx.Client, body: bytes, field: str) -> None:
    headers = {**PROJECT, "content-type": "application/json"}
    r = client.patch(limiter_path("rl-login"), content=body, headers=headers)
    assert assert_error(r, 400, "invalid_request", "validation_error")["context"] == {
        "field": field
    }


def test_revoke_visitor_grant_then_nothing_stands(
    sandbox: SandboxServer, client: httpx.Client
) -> None:
    grant = sandbox.state.grant(DEMO_ACCOUNT, PROD, "visitorId", "vis_7Hq2kP9xLm")
    assert grant is not None
    r = client.post(
        revoke_path(), json={"subject": {"visitorId": "vis_7Hq2kP9xLm"}}, headers=PERSONAL
    )
    assert r.status_code == 200
    body = r.json()
    assert body["revoked"] is True
    assert body["reportId"].startswith("rep_") and len(body["reportId"]) > 4
    assert body["grantExpiresAt"] == iso_utc(grant.expires_at)
    assert body["grantExpiresAt"].endswith("Z")
    assert body["grantRemainingAttempts"] == grant.remaining_attempts == 3
    assert sandbox.state.grant(DEMO_ACCOUNT, PROD, "visitorId", "vis_7Hq2kP9xLm") is None

    again = client.post(
        revoke_path(), json={"subject": {"visitorId": "vis_7Hq2kP9xLm"}}, headers=PERSONAL
    )
    assert again.status_code == 200
    second = again.json()
    assert second["revoked"] is False
    assert "grantExpiresAt" not in second and "grantRemainingAttempts" not in second
    assert second["reportId"] != body["reportId"]


def test_revoke_user_account_grant(sandbox: SandboxServer, client: httpx.Client) -> None:
    r = client.post(
        revoke_path(), json={"subject": {"userAccountId": "user-1042"}}, headers=PERSONAL
    )
    assert r.status_code == 200
    assert r.json()["revoked"] is True
    assert r.json()["grantRemainingAttempts"] == 5
    assert sandbox.state.grant(DEMO_ACCOUNT, PROD, "userAccountId", "user-1042") is None


def test_revoke_both_ids_withdraws_both_and_reports_the_visitor_grant(
    sandbox: SandboxServer, client: httpx.Client
) -> None:
    state = sandbox.state
    visitor = state.grant(DEMO_ACCOUNT, PROD, "visitorId", "vis_Bk41Zr0aQe")
    account = state.grant(DEMO_ACCOUNT, PROD, "userAccountId", "user-2077")
    assert visitor is not None and account is not None
    subject = {"visitorId": "vis_Bk41Zr0aQe", "userAccountId": "user-2077"}
    r = client.post(revoke_path(), json={"subject": subject}, headers=PERSONAL)
    body = r.json()
    assert body["revoked"] is True
    assert body["grantExpiresAt"] == iso_utc(visitor.expires_at)
    assert body["grantRemainingAttempts"] == visitor.remaining_attempts
    assert state.grant(DEMO_ACCOUNT, PROD, "visitorId", "vis_Bk41Zr0aQe") is None
    assert state.grant(DEMO_ACCOUNT, PROD, "userAccountId", "user-2077") is None


def test_revoke_both_ids_when_only_the_account_grant_stands(
    sandbox: SandboxServer, client: httpx.Client
) -> None:
    account = sandbox.state.grant(DEMO_ACCOUNT, PROD, "userAccountId", "user-2077")
    assert account is not None
    subject = {"visitorId": "vis-nobody", "userAccountId": "user-2077"}
    body = client.post(revoke_path(), json={"subject": subject}, headers=PERSONAL).json()
    assert body["revoked"] is True
    assert body["grantExpiresAt"] == iso_utc(account.expires_at)
    assert body["grantRemainingAttempts"] == account.remaining_attempts == 4


def test_revoke_ignores_custom_fields(sandbox: SandboxServer, client: httpx.Client) -> None:
    subject = {"visitorId": "vis_7Hq2kP9xLm", "customFields": {"path": "/checkout", "n": [1]}}
    r = client.post(revoke_path(), json={"subject": subject}, headers=PERSONAL)
    assert r.status_code == 200 and r.json()["revoked"] is True


def test_revoke_grants_are_per_project(sandbox: SandboxServer, client: httpx.Client) -> None:
    r = client.post(
        revoke_path("shop-staging"),
        json={"subject": {"visitorId": "vis_7Hq2kP9xLm"}},
        headers=PERSONAL,
    )
    assert r.json()["revoked"] is False
    assert sandbox.state.grant(DEMO_ACCOUNT, PROD, "visitorId", "vis_7Hq2kP9xLm") is not None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b"", "body"),
        (b"{", "body"),
        (b'"subject"', "body"),
        (b"{}", "subject"),
        (b'{"subject": null}', "subject"),
        (b'{"subject": "vis"}', "subject"),
        (b'{"subject": {}}', "subject"),
        (b'{"subject": {"customFields": {"a": 1}}}', "subject"),
        (b'{"subject": {"visitorId": ""}}', "subject.visitorId"),
        (b'{"subject": {"visitorId": 42}}', "subject.visitorId"),
        (b'{"subject": {"visitorId": null}}', "subject.visitorId"),
        (b'{"subject": {"userAccountId": ["u"]}}', "subject.userAccountId"),
        (b'{"subject": {"visitorId": "' + b"v" * 257 + b'"}}', "subject.visitorId"),
        (b'{"subject": {"userAccountId": "' + b"u" * 257 + b'"}}', "subject.userAccountId"),
        (b'{"subject": {"visitorId": "ok", "userAccountId": ""}}', "subject.userAccountId"),
    ],
)
def test_revoke_invalid_body_is_400(client: httpx.Client, body: bytes, field: str) -> None:
    headers = {**PERSONAL, "content-type": "application/json"}
    r = client.post(revoke_path(), content=body, headers=headers)
    assert assert_error(r, 400, "invalid_request", "validation_error")["context"] == {
        "field": field
    }


def test_revoke_ids_of_256_characters_are_accepted(client: httpx.Client) -> None:
    subject = {"visitorId": "é" * 256, "userAccountId": "u" * 256}
    r = client.post(revoke_path(), json={"subject": subject}, headers=PERSONAL)
    assert r.status_code == 200 and r.json()["revoked"] is False


def test_thresholds_update_stores_values_verbatim(
    sandbox: SandboxServer, client: httpx.Client
) -> None:
    body = b'{"name": "Bot score v2", "blockThreshold": 0.123456789, "challengeThreshold": 0.1}'
    r = client.put(
        thresholds_path("bot-score"),
        content=body,
        headers={**PERSONAL, "content-type": "application/json"},
    )
    assert r.status_code == 200
    assert r.json() == {}
    dim = sandbox.state.dimension(DEMO_ACCOUNT, PROD, "bot-score")
    assert dim is not None
    assert dim.name == "Bot score v2"
    assert dim.block_threshold == 0.123456789
    assert dim.block_threshold_raw == "0.123456789"
    assert dim.challenge_threshold == 0.1 and dim.challenge_threshold_raw == "0.1"
    assert sandbox.state.recorder.last().body == body


@pytest.mark.parametrize(
    ("block", "challenge"),
    [("1", "0"), ("1e-7", "-0.0"), ("80", "50"), ("0.30000000000000004", "1E2")],
)
def test_thresholds_accept_any_finite_number(
    sandbox: SandboxServer, client: httpx.Client, block: str, challenge: str
) -> None:
    body = f'{{"name": "n", "blockThreshold": {block}, "challengeThreshold": {challenge}}}'
    r = client.put(thresholds_path("velocity"), content=body.encode(), headers=PERSONAL)
    assert r.status_code == 200, r.text
    dim = sandbox.state.dimension(DEMO_ACCOUNT, PROD, "velocity")
    assert dim is not None
    assert (dim.block_threshold_raw, dim.challenge_threshold_raw) == (block, challenge)
    assert dim.block_threshold == float(block)
    assert isinstance(dim.block_threshold, float)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b"[1]", "body"),
        (b'{"blockThreshold": 1, "challengeThreshold": 0}', "name"),
        (b'{"name": "", "blockThreshold": 1, "challengeThreshold": 0}', "name"),
        (b'{"name": 3, "blockThreshold": 1, "challengeThreshold": 0}', "name"),
        (b'{"name": "n", "challengeThreshold": 0}', "blockThreshold"),
        (b'{"name": "n", "blockThreshold": true, "challengeThreshold": 0}', "blockThreshold"),
        (b'{"name": "n", "blockThreshold": "0.5", "challengeThreshold": 0}', "blockThreshold"),
        (b'{"name": "n", "blockThreshold": NaN, "challengeThreshold": 0}', "blockThreshold"),
        (b'{"name": "n", "blockThreshold": 1e999, "challengeThreshold": 0}', "blockThreshold"),
        (
            b'{"name": "n", "blockThreshold": 1, "challengeThreshold": -Infinity}',
            "challengeThreshold",
        ),
        (b'{"name": "n", "blockThreshold": 1, "challengeThreshold": null}', "challengeThreshold"),
        (b'{"name": "n", "blockThreshold": 1}', "challengeThreshold"),
    ],
)
def test_thresholds_invalid_body_is_400(
    sandbox: SandboxServer, client: httpx.Client, body: bytes, field: str
) -> None:
    r = client.put(thresholds_path("bot-score"), content=body, headers=PERSONAL)
    assert assert_error(r, 400, "invalid_request", "validation_error")["context"] == {
        "field": field
    }
    dim = sandbox.state.dimension(DEMO_ACCOUNT, PROD, "bot-score")
    assert dim is not None and (dim.block_threshold, dim.challenge_threshold) == (0.8, 0.5)


def test_oversized_body_is_413(client: httpx.Client) -> None:
    r = client.post(revoke_path(), content=b" " * ((1 << 20) + 1), headers=PERSONAL)
    assert_error(r, 413, "payload_too_large", "invalid_request_error")
