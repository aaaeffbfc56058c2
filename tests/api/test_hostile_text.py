"""The api layer against the sandbox's hostile modes: tokens masked, surrogates repaired."""

from __future__ import annotations

import pytest

from bottui.api.client import BotProtectionClient, build_thresholds
from bottui.api.errors import ApiError, UnusableBodyError
from bottui.api.tokens import (
    MASK,
    AccessToken,
    ProjectToken,
    TokenScrubber,
    server_json,
    token_forms,
)
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from tests.fixtures.hostile import (
    ECHO_ACCESS_TOKEN,
    ECHO_PROJECT_TOKEN,
    add_echo_tokens,
    every_form,
    strings,
)

PROJ = "shop-prod"
PAT = AccessToken(ECHO_ACCESS_TOKEN)
PRJ = ProjectToken(ECHO_PROJECT_TOKEN)
FORMS = every_form(ECHO_ACCESS_TOKEN, ECHO_PROJECT_TOKEN)


@pytest.fixture
def echo(sandbox: SandboxServer) -> SandboxServer:
    add_echo_tokens(sandbox)
    return sandbox


def _clean_of_tokens(texts: list[str]) -> None:
    assert texts
    for text in texts:
        assert not any(form in text for form in FORMS), text


async def test_echoed_token_is_masked_in_every_success_field(echo: SandboxServer) -> None:
    echo.faults.configure(hostile="token_echo")
    async with BotProtectionClient(echo.base_url) as client:
        change = await client.set_rate_limiter_active(DEMO_ACCOUNT, PROJ, "rl-login", False, PRJ)
        revocation = await client.revoke_grant(DEMO_ACCOUNT, PROJ, PAT, visitor_id="vis_7Hq2kP9xLm")
    texts = list(strings(change.project.to_json(show_secrets=True)))
    texts += [str(change.project.name), str(revocation.report_id), str(revocation.grant_expires_at)]
    texts += [limiter.id for limiter in change.project.rate_limiters]
    _clean_of_tokens(texts)
    assert MASK in str(change.project.name)


@pytest.mark.parametrize("operation", ["limiter", "revoke", "thresholds"])
async def test_echoed_token_is_masked_in_error_answers(echo: SandboxServer, operation: str) -> None:
    echo.faults.configure(hostile="token_echo", hostile_status=400)
    async with BotProtectionClient(echo.base_url) as client:
        with pytest.raises(ApiError) as caught:
            if operation == "limiter":
                await client.set_rate_limiter_active(DEMO_ACCOUNT, PROJ, "rl-login", False, PRJ)
            elif operation == "revoke":
                await client.revoke_grant(DEMO_ACCOUNT, PROJ, PAT, visitor_id="v1")
            else:
                thresholds = build_thresholds("n", "0.9", "0.5")
                await client.update_dimension_thresholds(
                    DEMO_ACCOUNT, PROJ, "bot-score", thresholds, PAT
                )
    error = caught.value
    _clean_of_tokens([str(error), error.details, *strings(error.to_json())])


async def test_echoed_token_is_masked_in_a_non_json_excerpt(echo: SandboxServer) -> None:
    echo.faults.configure(hostile="token_echo", non_json_next=1)
    async with BotProtectionClient(echo.base_url) as client:
        with pytest.raises(UnusableBodyError) as caught:
            await client.revoke_grant(DEMO_ACCOUNT, PROJ, PAT, visitor_id="v1")
    _clean_of_tokens([str(caught.value), *strings(caught.value.to_json())])


async def test_lone_surrogates_become_replacement_characters(echo: SandboxServer) -> None:
    echo.faults.configure(hostile="surrogates")
    async with BotProtectionClient(echo.base_url) as client:
        change = await client.set_rate_limiter_active(DEMO_ACCOUNT, PROJ, "rl-login", False, PRJ)
        revocation = await client.revoke_grant(DEMO_ACCOUNT, PROJ, PAT, visitor_id="vis_7Hq2kP9xLm")
        echo.faults.configure(hostile_status=422)
        with pytest.raises(ApiError) as caught:
            await client.revoke_grant(DEMO_ACCOUNT, PROJ, PAT, visitor_id="v1")
    texts = [*strings(change.project.to_json()), str(revocation.report_id)]
    texts += [*strings(caught.value.to_json()), str(caught.value)]
    for text in texts:
        text.encode("utf-8")  # no lone surrogate left
    assert any("\ufffd" in text for text in texts)


def test_every_encoding_is_masked() -> None:
    scrubber = TokenScrubber()
    token = "tok en+/?&>>>?_long"
    scrubber.add(token)
    for form in token_forms(token):
        assert scrubber.scrub(f"a {form} b") == f"a {MASK} b"
    assert "Short" not in repr(scrubber) and token not in repr(scrubber)
    scrubber.add("short")  # under MIN_TOKEN: not masked
    assert scrubber.scrub("short") == "short"


def test_server_json_walks_keys_and_values() -> None:
    assert server_json({"\ud800k": ["x\udfff", 1, None]}) == {"\ufffdk": ["x\ufffd", 1, None]}
