"""Authentication, permission, existence and routing errors, in the order a service checks them."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from bottui.sandbox.demo_data import (
    DEMO_ACCESS_TOKEN,
    DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION,
    DEMO_ACCESS_TOKEN_NO_THRESHOLDS,
    DEMO_ACCOUNT,
    DEMO_PROJECT_TOKENS,
    OTHER_ACCESS_TOKEN,
    OTHER_ACCOUNT,
    OTHER_PROJECT,
    OTHER_PROJECT_TOKEN,
)
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import SCOPE_DIMENSION_THRESHOLDS, SCOPE_PROJECT_ACTION
from tests.sandbox.helpers import (
    PERSONAL,
    PROD,
    PROD_TOKEN,
    PROJECT,
    assert_error,
    key,
    limiter_path,
    revoke_path,
    thresholds_path,
)

REVOKE_BODY = {"subject": {"visitorId": "vis_7Hq2kP9xLm"}}
THRESHOLDS_BODY = {"name": "Bot score", "blockThreshold": 0.9, "challengeThreshold": 0.4}

# (method, path, body, a token that is right for it)
OPERATIONS: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "limiter": ("PATCH", limiter_path("rl-login"), {"isActive": False}, PROD_TOKEN),
    "revoke": ("POST", revoke_path(), REVOKE_BODY, DEMO_ACCESS_TOKEN),
    "thresholds": ("PUT", thresholds_path("bot-score"), THRESHOLDS_BODY, DEMO_ACCESS_TOKEN),
}


def call(client: httpx.Client, op: str, headers: dict[str, str]) -> httpx.Response:
    method, path, body, _ = OPERATIONS[op]
    return client.request(method, path, json=body, headers=headers)


def assert_untouched(sandbox: SandboxServer) -> None:
    state = sandbox.state
    limiter = state.rate_limiter(DEMO_ACCOUNT, PROD, "rl-login")
    assert limiter is not None and limiter.is_active
    assert state.grant(DEMO_ACCOUNT, PROD, "visitorId", "vis_7Hq2kP9xLm") is not None
    dim = state.dimension(DEMO_ACCOUNT, PROD, "bot-score")
    assert dim is not None and dim.block_threshold == 0.8


@pytest.mark.parametrize("op", OPERATIONS)
def test_the_right_token_succeeds(client: httpx.Client, op: str) -> None:
    assert call(client, op, key(OPERATIONS[op][3])).status_code == 200


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-Api-Key": ""},
        {"X-Api-Key": "pat_not_a_token"},
        {"x-api-key": DEMO_ACCESS_TOKEN.upper()},
    ],
    ids=["missing", "empty", "unknown", "wrong-case"],
)
def test_missing_or_unknown_token_is_401(
    sandbox: SandboxServer, client: httpx.Client, op: str, headers: dict[str, str]
) -> None:
    assert_error(call(client, op, headers), 401, "unauthorized", "authentication_error")
    assert_untouched(sandbox)


@pytest.mark.parametrize("op", OPERATIONS)
def test_authorization_bearer_alone_is_not_accepted(
    sandbox: SandboxServer, client: httpx.Client, op: str
) -> None:
    headers = {"Authorization": f"Bearer {OPERATIONS[op][3]}"}
    body = assert_error(call(client, op, headers), 401, "unauthorized", "authentication_error")
    assert "X-Api-Key" in body["message"]
    assert_untouched(sandbox)


@pytest.mark.parametrize("op", ["revoke", "thresholds"])
def test_project_token_on_personal_operations_is_403(
    sandbox: SandboxServer, client: httpx.Client, op: str
) -> None:
    body = assert_error(call(client, op, PROJECT), 403, "forbidden", "permission_error")
    assert body["context"] == {"tokenKind": "project", "requiredTokenKind": "personal"}
    assert_untouched(sandbox)


def test_personal_token_on_the_limiter_is_403(sandbox: SandboxServer, client: httpx.Client) -> None:
    body = assert_error(call(client, "limiter", PERSONAL), 403, "forbidden", "permission_error")
    assert body["context"] == {"tokenKind": "personal", "requiredTokenKind": "project"}
    assert_untouched(sandbox)


@pytest.mark.parametrize("op", ["revoke", "thresholds"])
def test_personal_token_of_another_account_is_403(
    sandbox: SandboxServer, client: httpx.Client, op: str
) -> None:
    assert_error(call(client, op, key(OTHER_ACCESS_TOKEN)), 403, "forbidden", "permission_error")
    assert_untouched(sandbox)


@pytest.mark.parametrize(
    "token", [DEMO_PROJECT_TOKENS["shop-staging"], OTHER_PROJECT_TOKEN], ids=["project", "account"]
)
def test_project_token_of_another_project_is_403(
    sandbox: SandboxServer, client: httpx.Client, token: str
) -> None:
    assert_error(call(client, "limiter", key(token)), 403, "forbidden", "permission_error")
    assert_untouched(sandbox)


def test_project_token_used_on_its_project_under_another_account_is_403(
    client: httpx.Client,
) -> None:
    path = limiter_path("rl-login", OTHER_PROJECT, DEMO_ACCOUNT)
    r = client.patch(path, json={"isActive": False}, headers=key(OTHER_PROJECT_TOKEN))
    assert_error(r, 403, "forbidden", "permission_error")


@pytest.mark.parametrize(
    ("op", "token", "scope"),
    [
        ("revoke", DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION, SCOPE_PROJECT_ACTION),
        ("thresholds", DEMO_ACCESS_TOKEN_NO_THRESHOLDS, SCOPE_DIMENSION_THRESHOLDS),
    ],
)
def test_missing_scope_is_403_naming_the_scope(
    sandbox: SandboxServer, client: httpx.Client, op: str, token: str, scope: str
) -> None:
    body = assert_error(call(client, op, key(token)), 403, "forbidden", "permission_error")
    assert body["context"] == {"missingScope": scope}
    assert_untouched(sandbox)


@pytest.mark.parametrize(
    ("op", "token"),
    [
        ("revoke", DEMO_ACCESS_TOKEN_NO_THRESHOLDS),
        ("thresholds", DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION),
    ],
)
def test_the_one_scope_needed_is_enough(client: httpx.Client, op: str, token: str) -> None:
    assert call(client, op, key(token)).status_code == 200


def test_other_account_tokens_work_on_their_own_account(client: httpx.Client) -> None:
    r = client.patch(
        limiter_path("rl-login", OTHER_PROJECT, OTHER_ACCOUNT),
        json={"isActive": False},
        headers=key(OTHER_PROJECT_TOKEN),
    )
    assert r.status_code == 200 and r.json()["customerId"] == "cus_globex_01"
    r = client.put(
        thresholds_path("bot-score", OTHER_PROJECT, OTHER_ACCOUNT),
        json=THRESHOLDS_BODY,
        headers=key(OTHER_ACCESS_TOKEN),
    )
    assert r.status_code == 200


def test_revoked_tokens_stop_working(sandbox: SandboxServer, client: httpx.Client) -> None:
    sandbox.state.remove_token(DEMO_ACCESS_TOKEN)
    assert_error(call(client, "revoke", PERSONAL), 401, "unauthorized", "authentication_error")


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "resource"),
    [
        ("POST", revoke_path("no-such"), REVOKE_BODY, PERSONAL, "project"),
        ("PUT", thresholds_path("bot-score", "no-such"), THRESHOLDS_BODY, PERSONAL, "project"),
        ("PUT", thresholds_path("no-such"), THRESHOLDS_BODY, PERSONAL, "dimension"),
        ("PATCH", limiter_path("no-such"), {"isActive": True}, PROJECT, "rate_limiter"),
        # The body is checked after existence: an invalid body on a missing thing is 404.
        ("POST", revoke_path("no-such"), {"subject": {}}, PERSONAL, "project"),
        ("PUT", thresholds_path("no-such"), {"name": ""}, PERSONAL, "dimension"),
        ("PATCH", limiter_path("no-such"), {"isActive": "x"}, PROJECT, "rate_limiter"),
    ],
)
def test_unknown_project_limiter_dimension_is_404(
    client: httpx.Client,
    method: str,
    path: str,
    body: dict[str, Any],
    headers: dict[str, str],
    resource: str,
) -> None:
    r = client.request(method, path, json=body, headers=headers)
    assert assert_error(r, 404, "not_found", "not_found_error")["context"] == {
        "resource": resource,
        "id": "no-such",
    }


def test_unknown_project_of_another_account_is_403_not_404(client: httpx.Client) -> None:
    r = client.post(revoke_path("no-such", OTHER_ACCOUNT), json=REVOKE_BODY, headers=PERSONAL)
    assert_error(r, 403, "forbidden", "permission_error")
    r = client.post(revoke_path("no-such", "no-account"), json=REVOKE_BODY, headers=PERSONAL)
    assert_error(r, 403, "forbidden", "permission_error")


def test_authentication_comes_before_body_validation(client: httpx.Client) -> None:
    r = client.post(revoke_path(), content=b"garbage")
    assert_error(r, 401, "unauthorized", "authentication_error")
    r = client.post(revoke_path(), content=b"garbage", headers=PROJECT)
    assert_error(r, 403, "forbidden", "permission_error")


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/api/v1",
        "/api/v2/acme/projects/shop-prod/challenges/grant-revocations",
        "/api/v1/acme/projects/shop-prod/challenges/grant-revocations/",
        "/api/v1/acme/projects/shop-prod/challenges",
        "/api/v1/acme/projects/shop-prod/rate_limiters/rl-login",
        "/api/v1/acme/projects/shop-prod/rate_limiters/rl-login/active/x",
        "/api/v1/acme/shop-prod/dimension-thresholds/bot-score",
    ],
)
def test_unknown_paths_are_404_error_objects(client: httpx.Client, path: str) -> None:
    r = client.post(path, json={}, headers=PERSONAL)
    assert assert_error(r, 404, "not_found", "not_found_error")["context"] == {
        "resource": "endpoint"
    }


@pytest.mark.parametrize(
    ("op", "method"),
    [
        ("limiter", "PUT"),
        ("limiter", "GET"),
        ("revoke", "GET"),
        ("revoke", "DELETE"),
        ("thresholds", "PATCH"),
        ("thresholds", "POST"),
    ],
)
def test_wrong_method_is_405_with_allow(client: httpx.Client, op: str, method: str) -> None:
    _, path, body, token = OPERATIONS[op]
    r = client.request(method, path, headers=key(token))
    body = assert_error(r, 405, "method_not_allowed", "invalid_request_error")
    assert r.headers["allow"] == OPERATIONS[op][0]
    assert body["context"] == {"allowed": [OPERATIONS[op][0]]}
