"""Paths, tokens and assertions shared by the sandbox tests."""

from __future__ import annotations

import ssl
from typing import Any
from urllib.parse import quote

import httpx

from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_ACCOUNT, DEMO_PROJECT_TOKENS

#: One TLS context for every test client: building one per client costs ~30 ms.
SSL = ssl.create_default_context()

PROD = "shop-prod"
PROD_TOKEN = DEMO_PROJECT_TOKENS[PROD]


def seg(value: str) -> str:
    """One path segment, percent-encoded; dots too, so ``..`` survives URL resolution."""
    return quote(value, safe="").replace(".", "%2E")


def limiter_path(limiter: str, project: str = PROD, account: str = DEMO_ACCOUNT) -> str:
    return f"/api/v1/{seg(account)}/projects/{seg(project)}/rate_limiters/{seg(limiter)}/active"


def revoke_path(project: str = PROD, account: str = DEMO_ACCOUNT) -> str:
    return f"/api/v1/{seg(account)}/projects/{seg(project)}/challenges/grant-revocations"


def thresholds_path(dimension: str, project: str = PROD, account: str = DEMO_ACCOUNT) -> str:
    return f"/api/v1/{seg(account)}/projects/{seg(project)}/dimension-thresholds/{seg(dimension)}"


def key(token: str) -> dict[str, str]:
    return {"X-Api-Key": token}


PERSONAL = key(DEMO_ACCESS_TOKEN)
PROJECT = key(PROD_TOKEN)


def assert_error(response: httpx.Response, status: int, code: str, type_: str) -> dict[str, Any]:
    """The response is an error object with this status, code and type; return the body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert isinstance(body, dict)
    assert set(body) <= {"message", "code", "type", "context"}
    assert isinstance(body["message"], str) and body["message"]
    assert body["code"] == code
    assert body["type"] == type_
    return body
