"""The hostile modes: every string of every answer carries the payload."""

from __future__ import annotations

import json

import httpx
import pytest

from bottui.sandbox.faults import (
    BIDI,
    BODY_KINDS,
    C1,
    ESCAPES,
    HOSTILE_KINDS,
    HUGE_DIGITS,
    FaultError,
    Faults,
    token_forms,
)
from bottui.sandbox.server import SandboxServer
from tests.fixtures.hostile import ECHO_ACCESS_TOKEN, ECHO_PROJECT_TOKEN, add_echo_tokens, strings
from tests.sandbox.helpers import key, limiter_path, revoke_path, thresholds_path

LIMITER = "rl-login"


def _limiter(client: httpx.Client) -> httpx.Response:
    return client.patch(
        limiter_path(LIMITER), json={"isActive": False}, headers=key(ECHO_PROJECT_TOKEN)
    )


def _revoke(client: httpx.Client) -> httpx.Response:
    return client.post(
        revoke_path(),
        json={"subject": {"visitorId": "vis_7Hq2kP9xLm"}},
        headers=key(ECHO_ACCESS_TOKEN),
    )


def _thresholds(client: httpx.Client) -> httpx.Response:
    body = {"name": "n", "blockThreshold": 0.9, "challengeThreshold": 0.5}
    return client.put(thresholds_path("bot-score"), json=body, headers=key(ECHO_ACCESS_TOKEN))


@pytest.fixture
def echo(sandbox: SandboxServer) -> SandboxServer:
    add_echo_tokens(sandbox)
    return sandbox


def _carries(kind: str, text: str, token: str) -> bool:
    if kind == "surrogates":
        return "\ud800" in text and "\udfff" in text
    if kind == "c1":
        return C1 in text
    if kind == "bidi":
        return all(ch in text for ch in BIDI)
    if kind == "token_echo":
        return all(form in text for form in token_forms(token))
    return ESCAPES in text and text[0] in "=+-@"


@pytest.mark.parametrize("kind", HOSTILE_KINDS)
def test_every_string_of_a_success_answer(
    echo: SandboxServer, client: httpx.Client, kind: str
) -> None:
    echo.faults.configure(hostile=kind)
    project = _limiter(client)
    revocation = _revoke(client)
    for response, token in ((project, ECHO_PROJECT_TOKEN), (revocation, ECHO_ACCESS_TOKEN)):
        assert response.status_code == 200
        response.read().decode("utf-8")  # valid UTF-8 whatever the payload
        texts = list(strings(response.json()))
        assert texts and all(_carries(kind, text, token) for text in texts), texts
    project_json = project.json()
    assert project_json["rateLimits"]["rateLimits"]  # limiter entries are there, hostile
    assert {"name", "url", "customerId", "siteKey"} <= set(project_json)
    assert {"reportId", "grantExpiresAt"} <= set(revocation.json())
    # The change itself was applied.
    assert echo.state.rate_limiter("acme", "shop-prod", LIMITER).is_active is False  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", HOSTILE_KINDS)
def test_every_string_of_an_error_answer(
    echo: SandboxServer, client: httpx.Client, kind: str
) -> None:
    echo.faults.configure(hostile=kind, hostile_status=400)
    for response, token in (
        (_limiter(client), ECHO_PROJECT_TOKEN),
        (_revoke(client), ECHO_ACCESS_TOKEN),
        (_thresholds(client), ECHO_ACCESS_TOKEN),
    ):
        assert response.status_code == 400
        body = response.json()
        assert {"message", "code", "type", "context"} <= set(body)
        assert all(_carries(kind, text, token) for text in strings(body))
    # Nothing was applied.
    assert echo.state.rate_limiter("acme", "shop-prod", LIMITER).is_active is True  # type: ignore[union-attr]


def test_surrogates_travel_as_escapes(echo: SandboxServer, client: httpx.Client) -> None:
    echo.faults.configure(hostile="surrogates")
    raw = _revoke(client).read()
    assert raw.isascii() and b"\\ud800" in raw
    assert "\ud800" in json.loads(raw)["reportId"]


def test_natural_errors_and_non_json_are_hostile_too(
    echo: SandboxServer, client: httpx.Client
) -> None:
    echo.faults.configure(hostile="token_echo", fail_next=1, non_json_next=1)
    failed = _revoke(client)
    assert failed.status_code == 503
    assert ECHO_ACCESS_TOKEN in failed.json()["message"]
    page = _revoke(client)
    assert page.headers["content-type"].startswith("text/html")
    assert ECHO_ACCESS_TOKEN in page.text


def test_over_http_and_off(echo: SandboxServer, client: httpx.Client) -> None:
    snapshot = client.put("/_sandbox/faults", json={"hostile": "c1", "hostileStatus": 404}).json()
    assert snapshot["hostile"] == "c1" and snapshot["hostileStatus"] == 404
    assert _revoke(client).status_code == 404
    client.put("/_sandbox/faults", json={"hostile": "off", "hostileStatus": 0})
    plain = _revoke(client)
    assert plain.status_code == 200 and C1 not in plain.text
    assert client.put("/_sandbox/faults", json={"hostile": "nope"}).status_code == 400
    assert client.put("/_sandbox/faults", json={"hostileStatus": 200}).status_code == 400


def test_python_api_validates_and_resets() -> None:
    faults = Faults()
    faults.configure(hostile="bidi", hostile_status=500)
    assert faults.hostile == "bidi" and faults.hostile_status == 500
    with pytest.raises(FaultError):
        faults.configure(hostile="ansi")
    with pytest.raises(FaultError):
        faults.configure(hostile_status=302)
    faults.reset()
    assert faults.hostile is None and faults.hostile_status == 0


def test_token_forms_are_distinct() -> None:
    forms = token_forms(ECHO_ACCESS_TOKEN)
    assert len(forms) == 6


def test_hostile_bodies_reshape_applied_answers(echo: SandboxServer, client: httpx.Client) -> None:
    snapshot = client.put("/_sandbox/faults", json={"hostileBody": "status999"}).json()
    assert snapshot["hostileBody"] == "status999"
    odd = _limiter(client)
    assert odd.status_code == 999 and odd.json()["serverKey"]
    echo.faults.configure(hostile_body="not_utf8")
    raw = _limiter(client).read()
    assert b"\xff\xfe" in raw and b'"serverKey"' in raw
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    echo.faults.configure(hostile_body="nan")
    text = _revoke(client).text
    assert all(word in text for word in ("NaN", "-Infinity", "1e999")) and "reportId" in text
    echo.faults.configure(hostile_body="huge_int")
    assert "7" * HUGE_DIGITS in _revoke(client).text
    echo.faults.configure(hostile_body="opposite")
    listed = _limiter(client).json()["rateLimits"]["rateLimits"]
    assert next(r for r in listed if r["id"] == LIMITER)["isActive"] is True  # asked False
    echo.faults.configure(hostile_body="off", hostile_status=400)
    assert _limiter(client).status_code == 400  # only applied answers are reshaped
    assert client.put("/_sandbox/faults", json={"hostileBody": "nope"}).status_code == 400
    assert set(BODY_KINDS) == {"status999", "not_utf8", "nan", "huge_int", "opposite"}
