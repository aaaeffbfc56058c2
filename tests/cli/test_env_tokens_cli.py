"""What the CLI says of environment tokens, and a bastion's one token per profile (#27 item 7).

Seen: with ``BOTTUI_API_KEY`` set for shop-prod, ``token status --project
shop-staging`` and ``doctor`` said shop-staging's token was available; the
change then failed 403. Also: ``token set`` asked for the secret, then said
there was no keyring; ``token status`` without a keyring said nothing per
token, not even about the environment.
"""

from __future__ import annotations

import pytest
from keyring.backends import fail

from bottui.sandbox.demo_data import DEMO_PROJECT_TOKENS
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.keyrings import installed
from tests.fixtures.sandbox import ACC, scope


def _profiles(base_url: str) -> None:
    for name, project in (("shop_prod", "shop-prod"), ("staging", "shop-staging")):
        done = cli("profile", "add", name, "--base-url", base_url, *scope(project))
        assert done.code == 0, done.err


def _states(*argv: str) -> dict[tuple[str, str | None], str]:
    done = cli("token", "status", *argv, "--json")
    return {(t["kind"], t["project"]): t["state"] for t in done.json()["tokens"]}


def test_the_environment_token_is_not_claimed_for_another_project(
    sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _profiles(sandbox.base_url)
    monkeypatch.setenv("BOTTUI_API_KEY", DEMO_PROJECT_TOKENS["shop-prod"])
    states = _states("--profile", "shop_prod", "--project", "shop-staging")
    assert states[("project", "shop-staging")] == "from the environment: not tied to a project"
    # The sandbox checks a project's token as the service does: this one is shop-prod's.
    assert cli("limiter", "disable", "rl-login", "--profile", "staging").code == 1
    doctor = cli("doctor", "--json", "--profile", "shop_prod").json()
    tokens = {c["id"]: c for c in doctor["checks"]}["tokens"]
    assert "project API token available" not in tokens["detail"]
    assert "not tied to a project (BOTTUI_API_KEY)" in tokens["detail"]
    if "shop-staging" in tokens["detail"]:  # several projects known: only one can be its
        assert tokens["verdict"] == "warning"
        assert "BOTTUI_API_KEY_<PROFILE>" in tokens["fix"]


def test_one_token_per_profile_without_a_keyring(
    sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _profiles(sandbox.base_url)
    monkeypatch.setenv("BOTTUI_API_KEY_SHOP_PROD", DEMO_PROJECT_TOKENS["shop-prod"])
    monkeypatch.setenv("BOTTUI_API_KEY_STAGING", DEMO_PROJECT_TOKENS["shop-staging"])
    with installed(fail.Keyring()):  # type: ignore[no-untyped-call]
        for profile, project in (("shop_prod", "shop-prod"), ("staging", "shop-staging")):
            states = _states("--profile", profile)
            assert states[("project", project)] == "from environment"
            done = cli("limiter", "disable", "rl-login", "--profile", profile)
            assert done.code == 0, done.err
            assert DEMO_PROJECT_TOKENS[project] not in done.out + done.err


def test_token_set_says_there_is_no_keyring_before_asking() -> None:
    with installed(fail.Keyring()):  # type: ignore[no-untyped-call]
        done = cli(
            "token", "set", "personal", "--account", ACC, "--base-url", "https://api.example.com"
        )
    assert done.code == 3
    # Nothing was read from stdin: the prompt never came (the test's stdin is empty).
    assert "No token given" not in done.err


def test_token_status_without_a_keyring_still_lists_each_token(
    sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("BOTTUI_API_KEY", DEMO_PROJECT_TOKENS["shop-prod"])
    with installed(fail.Keyring()):  # type: ignore[no-untyped-call]
        done = cli("token", "status", *scope())
    assert done.code == 3
    assert "project  acme/shop-prod: from the environment: not tied to a project" in done.out
    assert "personal acme: unknown: the keyring is unavailable" in done.out
