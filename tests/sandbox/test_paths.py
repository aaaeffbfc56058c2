"""Hostile ids travel as single path segments and arrive exactly as the client gave them."""

from __future__ import annotations

import http.client

import httpx
import pytest

from bottui.sandbox.demo_data import (
    DEMO_ACCESS_TOKEN,
    DEMO_ACCOUNT,
    HOSTILE_DIMENSION_IDS,
    HOSTILE_LIMITER_IDS,
    HOSTILE_PROJECT_ID,
    HOSTILE_PROJECT_TOKEN,
    HOSTILE_USER_ACCOUNT_ID,
    HOSTILE_VISITOR_ID,
)
from bottui.sandbox.endpoints import split_raw_path
from bottui.sandbox.server import SandboxServer
from tests.sandbox.helpers import (
    PERSONAL,
    SSL,
    assert_error,
    key,
    limiter_path,
    revoke_path,
    seg,
    thresholds_path,
)

HOSTILE_IDS = [
    "a/b",
    "?x",
    "#y",
    "%2F",
    "with space",
    "ünïcødé/✓ 名前",
    "..",
    ".",
    "%2E%2E",
    "[b]x[/b]",
    "a+b&c=d;e",
    "a%",
]


@pytest.fixture
def hostile_project(sandbox: SandboxServer, request: pytest.FixtureRequest) -> str:
    """A project, limiter and dimension all named by the hostile id, with a project token."""
    ident: str = request.param
    state = sandbox.state
    state.add_project(DEMO_ACCOUNT, ident, "hostile")
    state.add_rate_limiter(DEMO_ACCOUNT, ident, ident, active=False)
    state.add_dimension(DEMO_ACCOUNT, ident, ident)
    state.add_project_token("prj_hostile_test", DEMO_ACCOUNT, ident)
    state.issue_grant(DEMO_ACCOUNT, ident, "visitorId", ident)
    state.issue_grant(DEMO_ACCOUNT, ident, "userAccountId", ident)
    return ident


@pytest.mark.parametrize("hostile_project", HOSTILE_IDS, indirect=True)
def test_hostile_ids_arrive_exactly(
    sandbox: SandboxServer, client: httpx.Client, hostile_project: str
) -> None:
    ident = hostile_project
    state = sandbox.state
    r = client.patch(
        limiter_path(ident, ident), json={"isActive": True}, headers=key("prj_hostile_test")
    )
    assert r.status_code == 200, r.text
    assert r.json()["id"] == ident
    limiter = state.rate_limiter(DEMO_ACCOUNT, ident, ident)
    assert limiter is not None and limiter.is_active
    entry = state.recorder.last()
    assert entry.segments == (
        "api",
        "v1",
        DEMO_ACCOUNT,
        "projects",
        ident,
        "rate_limiters",
        ident,
        "active",
    )
    assert entry.raw_path == limiter_path(ident, ident)

    r = client.post(
        revoke_path(ident),
        json={"subject": {"visitorId": ident, "userAccountId": ident}},
        headers=PERSONAL,
    )
    assert r.status_code == 200 and r.json()["revoked"] is True
    assert state.grants(DEMO_ACCOUNT, ident) == []

    r = client.put(
        thresholds_path(ident, ident),
        json={"name": ident, "blockThreshold": 1, "challengeThreshold": 0},
        headers=PERSONAL,
    )
    assert r.status_code == 200
    dim = state.dimension(DEMO_ACCOUNT, ident, ident)
    assert dim is not None and dim.name == ident


def test_a_slash_is_not_a_percent_encoded_slash(client: httpx.Client) -> None:
    """``a/b`` sent unencoded is two segments: no such route."""
    r = client.post(
        "/api/v1/acme/projects/shop/prod/challenges/grant-revocations",
        json={"subject": {"visitorId": "v"}},
        headers=PERSONAL,
    )
    assert_error(r, 404, "not_found", "not_found_error")


def test_encoded_unreserved_characters_decode(client: httpx.Client) -> None:
    r = client.patch(
        "/api/v1/%61cme/projects/shop%2Dprod/rate_limiters/rl%2dlogin/active",
        json={"isActive": False},
        headers=key("prj_demo_shop_prod_91ad"),
    )
    assert r.status_code == 200


def test_query_string_is_not_part_of_the_id(sandbox: SandboxServer, client: httpx.Client) -> None:
    r = client.post(
        revoke_path() + "?x=1&y=%2F", json={"subject": {"visitorId": "v"}}, headers=PERSONAL
    )
    assert r.status_code == 200
    entry = sandbox.state.recorder.last()
    assert entry.query_string == "x=1&y=%2F"
    assert entry.segments[4] == "shop-prod"


def test_segment_that_is_not_utf8_is_400(client: httpx.Client) -> None:
    r = client.post(
        "/api/v1/acme/projects/%FF%FE/challenges/grant-revocations",
        json={"subject": {"visitorId": "v"}},
        headers=PERSONAL,
    )
    assert assert_error(r, 400, "invalid_request", "validation_error")["context"] == {
        "field": "path"
    }


def test_raw_request_with_http_client(sandbox: SandboxServer) -> None:
    """The same, with the request line written by hand (no client-side URL handling)."""
    sandbox.state.add_project(DEMO_ACCOUNT, "../x?y#z", "raw")
    conn = http.client.HTTPConnection("127.0.0.1", sandbox.port, timeout=5)
    try:
        conn.request(
            "POST",
            "/api/v1/acme/projects/%2E%2E%2Fx%3Fy%23z/challenges/grant-revocations",
            body=b'{"subject": {"visitorId": "v"}}',
            headers={"X-Api-Key": DEMO_ACCESS_TOKEN, "Content-Type": "application/json"},
        )
        response = conn.getresponse()
        assert response.status == 200, response.read()
    finally:
        conn.close()
    assert sandbox.state.recorder.last().segments[4] == "../x?y#z"


def test_the_hostile_demo_project_is_reachable(hostile_sandbox: SandboxServer) -> None:
    state = hostile_sandbox.state
    with httpx.Client(verify=SSL, base_url=hostile_sandbox.base_url) as http:
        for limiter_id in HOSTILE_LIMITER_IDS:
            r = http.patch(
                limiter_path(limiter_id, HOSTILE_PROJECT_ID),
                json={"isActive": True},
                headers=key(HOSTILE_PROJECT_TOKEN),
            )
            assert r.status_code == 200, r.text
        for dimension_id in HOSTILE_DIMENSION_IDS:
            r = http.put(
                thresholds_path(dimension_id, HOSTILE_PROJECT_ID),
                json={"name": "n", "blockThreshold": 1, "challengeThreshold": 0},
                headers=PERSONAL,
            )
            assert r.status_code == 200
        subject = {"visitorId": HOSTILE_VISITOR_ID, "userAccountId": HOSTILE_USER_ACCOUNT_ID}
        r = http.post(revoke_path(HOSTILE_PROJECT_ID), json={"subject": subject}, headers=PERSONAL)
        assert r.json()["revoked"] is True
    assert all(lim.is_active for lim in state.rate_limiters(DEMO_ACCOUNT, HOSTILE_PROJECT_ID))
    assert state.grants(DEMO_ACCOUNT, HOSTILE_PROJECT_ID) == []


def test_split_raw_path() -> None:
    assert split_raw_path(b"/a%2Fb/%2E%2E/c%20d/") == ("a/b", "..", "c d", "")
    assert split_raw_path(b"/%E5%90%8D") == ("名",)
    assert split_raw_path(b"*") == ("*",)
    with pytest.raises(UnicodeDecodeError):
        split_raw_path(b"/%C3")
    assert seg("..") == "%2E%2E"
