"""Environment tokens are tied to what they are known to be for (#27 item 7).

``BOTTUI_API_KEY`` set for shop-prod was said to be shop-staging's token too
(Projects, ``token status``, ``doctor``); the change then failed 403. The
bare names now say "not tied to a project"; ``BOTTUI_API_KEY_<PROFILE>``
gives one token to one profile's project and to no other; an ambiguous
mapping is refused, never guessed.
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
import rich.console
import rich.pretty
import rich.traceback

import bottui
from bottui.api.tokens import ProjectToken
from bottui.store.keyring_tokens import TokenState, TokenStore
from bottui.store.token_sources import (
    CredentialFileRefused,
    EnvScope,
    EnvToken,
    EnvTokenAmbiguous,
    read_credentials,
    unmatched,
    variable,
)

URL = "https://api.example.com"
PROD = EnvScope("shop_prod", URL, "acme", "shop-prod")
STAGING = EnvScope("staging", URL, "acme", "shop-staging")


def test_the_bare_name_is_not_tied_to_a_project() -> None:
    tokens = TokenStore({"BOTTUI_API_KEY": "prj_prod"}, scopes=(PROD, STAGING))
    state = tokens.project_state(URL, "acme", "shop-staging")
    assert state is TokenState.ENVIRONMENT_ANY_PROJECT
    assert state.label == "from the environment: not tied to a project"
    untied = TokenState.ENVIRONMENT_ANY_ACCOUNT
    assert untied.label == "from the environment: not tied to an account"


def test_a_profile_variable_goes_to_its_project_and_no_other() -> None:
    environ = {"BOTTUI_API_KEY_SHOP_PROD": "prj_prod", "BOTTUI_ACCESS_TOKEN_SHOP_PROD": "pat_p"}
    tokens = TokenStore(environ, scopes=(PROD, STAGING))
    assert tokens.project(URL, "acme", "shop-prod") == ProjectToken("prj_prod")
    assert tokens.project_state(URL, "acme", "shop-prod") is TokenState.ENVIRONMENT
    # Base URLs compare normalised; another base URL, account or project gets nothing.
    assert tokens.project("https://API.example.com/", "acme", "shop-prod") == ProjectToken(
        "prj_prod"
    )
    assert tokens.project(URL, "acme", "shop-staging") is None
    assert tokens.project("https://other.example", "acme", "shop-prod") is None
    assert tokens.personal_state(URL, "acme") is TokenState.ENVIRONMENT
    assert tokens.personal(URL, "other") is None


def test_one_token_per_profile_on_a_bastion_and_the_tied_one_first() -> None:
    environ = {
        "BOTTUI_API_KEY_SHOP_PROD": "prj_prod",
        "BOTTUI_API_KEY_STAGING": "prj_staging",
        "BOTTUI_API_KEY": "prj_bare",
    }
    tokens = TokenStore(environ, scopes=(PROD, STAGING))
    assert tokens.project(URL, "acme", "shop-prod") == ProjectToken("prj_prod")
    assert tokens.project(URL, "acme", "shop-staging") == ProjectToken("prj_staging")
    # A project no profile names: the bare token, said to be untied.
    assert tokens.project(URL, "acme", "docs") == ProjectToken("prj_bare")
    assert tokens.project_state(URL, "acme", "docs") is TokenState.ENVIRONMENT_ANY_PROJECT


def test_only_profile_names_of_letters_digits_and_underscore_have_a_variable() -> None:
    assert variable("project", "shop_prod") == "BOTTUI_API_KEY_SHOP_PROD"
    assert variable("personal", "x9") == "BOTTUI_ACCESS_TOKEN_X9"
    assert variable("project", "shop-prod") is None
    assert variable("project", "prod.eu") is None
    # The dash is never guessed to be an underscore.
    dashed = EnvScope("shop-prod", URL, "acme", "shop-prod")
    environ = {"BOTTUI_API_KEY_SHOP_PROD": "prj_prod"}
    assert TokenStore(environ, scopes=(dashed,)).project(URL, "acme", "shop-prod") is None
    assert unmatched(environ, (dashed,)) == ["BOTTUI_API_KEY_SHOP_PROD"]


def test_two_profiles_of_one_variable_are_refused() -> None:
    lower = EnvScope("prod", URL, "acme", "shop-prod")
    upper = EnvScope("PROD", URL, "acme", "shop-staging")
    tokens = TokenStore({"BOTTUI_API_KEY_PROD": "prj_x"}, scopes=(lower, upper))
    for project in ("shop-prod", "shop-staging"):
        with pytest.raises(EnvTokenAmbiguous, match="names several profiles"):
            tokens.project(URL, "acme", project)
        with pytest.raises(EnvTokenAmbiguous):
            tokens.project_state(URL, "acme", project)
    assert EnvTokenAmbiguous.exit_code == 3


def test_two_variables_claiming_one_slot_are_refused_unless_they_agree() -> None:
    twin = EnvScope("prod2", URL, "acme", "shop-prod")
    environ = {"BOTTUI_API_KEY_SHOP_PROD": "prj_a", "BOTTUI_API_KEY_PROD2": "prj_b"}
    with pytest.raises(EnvTokenAmbiguous, match="claim this slot"):
        TokenStore(environ, scopes=(PROD, twin)).project(URL, "acme", "shop-prod")
    environ["BOTTUI_API_KEY_PROD2"] = "prj_a"
    found = TokenStore(environ, scopes=(PROD, twin)).project(URL, "acme", "shop-prod")
    assert found == ProjectToken("prj_a")


def test_a_profile_without_a_project_ties_its_api_key_to_nothing() -> None:
    bare = EnvScope("ops", URL, "acme", None)
    environ = {"BOTTUI_API_KEY_OPS": "prj_x", "BOTTUI_ACCESS_TOKEN_OPS": "pat_x"}
    tokens = TokenStore(environ, scopes=(bare,))
    assert tokens.project(URL, "acme", "shop-prod") is None
    assert tokens.personal_state(URL, "acme") is TokenState.ENVIRONMENT
    assert unmatched(environ, (bare,)) == ["BOTTUI_API_KEY_OPS"]


async def test_states_in_batches_say_the_same() -> None:
    from bottui.ops.token_slots import Slot, read_states

    environ = {"BOTTUI_API_KEY_SHOP_PROD": "prj_prod", "BOTTUI_API_KEY_PROD": "prj_y"}
    twins = (PROD, EnvScope("prod", URL, "acme", "x"), EnvScope("PROD", URL, "acme", "x"))
    tokens = TokenStore(environ, scopes=twins)
    slots = [Slot.for_project("acme", "shop-prod"), Slot.for_project("acme", "x")]
    readings = await read_states(tokens, URL, slots)
    assert readings[slots[0]] is TokenState.ENVIRONMENT
    # The ambiguous slot is refused alone; the other is still read.
    assert isinstance(readings[slots[1]], EnvTokenAmbiguous)


def _credential(directory: Path, name: str, value: str) -> None:
    (directory / name).write_text(value + "\n")


def test_systemd_credentials_per_profile(tmp_path: Path) -> None:
    _credential(tmp_path, "bottui-api-key", "prj_bare")
    _credential(tmp_path, "bottui-api-key-shop_prod", "prj_prod")
    _credential(tmp_path, "bottui-access-token-staging", "pat_staging")
    _credential(tmp_path, "bottui-api-key-no.such", "ignored")
    assert read_credentials(tmp_path) == {
        "BOTTUI_API_KEY": "prj_bare",
        "BOTTUI_API_KEY_SHOP_PROD": "prj_prod",
        "BOTTUI_ACCESS_TOKEN_STAGING": "pat_staging",
    }


def test_systemd_credentials_of_one_variable_are_refused(tmp_path: Path) -> None:
    _credential(tmp_path, "bottui-api-key-prod", "prj_a")
    _credential(tmp_path, "bottui-api-key-PROD", "prj_b")
    with pytest.raises(CredentialFileRefused) as refused:
        read_credentials(tmp_path)
    assert "prj_" not in refused.value.title + refused.value.details


async def test_doctor_warns_that_one_bare_token_cannot_be_every_projects() -> None:
    from bottui.ops.doctor import Verdict, check_tokens

    environ = {"BOTTUI_API_KEY": "prj_prod", "BOTTUI_ACCESS_TOKEN": "pat_x"}
    tokens = TokenStore(environ, scopes=(PROD, STAGING))
    pairs = [("acme", "shop-prod"), ("acme", "shop-staging")]
    check = await check_tokens(tokens, URL, pairs, environ, (PROD, STAGING))
    assert check.verdict is Verdict.WARNING
    assert "project API token available" not in check.detail
    assert "shop-staging: personal access token from the environment" in check.detail
    assert "not tied to a project (BOTTUI_API_KEY)" in check.detail
    # One token per profile: each tied, nothing to warn about.
    environ = {
        "BOTTUI_API_KEY_SHOP_PROD": "prj_prod",
        "BOTTUI_API_KEY_STAGING": "prj_staging",
        "BOTTUI_ACCESS_TOKEN": "pat_x",
    }
    tokens = TokenStore(environ, scopes=(PROD, STAGING))
    check = await check_tokens(tokens, URL, pairs, environ, (PROD, STAGING))
    assert check.verdict is Verdict.OK, check
    assert "project API token from environment (BOTTUI_API_KEY_<PROFILE>)" in check.detail


async def test_a_profile_added_in_the_tui_has_its_variable_at_once(tmp_path: Path) -> None:
    from bottui.ops.profiles import create_first_profile
    from bottui.ops.session import Session, Settings
    from bottui.store.config.config_model import Profile
    from bottui.store.files import Locations

    locations = Locations(tmp_path / "c", tmp_path / "d", tmp_path / "s")
    tokens = TokenStore({"BOTTUI_API_KEY_NIGHT": "prj_night"})
    session = Session(locations, Settings(profile_name=None, base_url=None), tokens)
    try:
        assert tokens.project(URL, "acme", "shop-prod") is None
        profile = Profile("night", URL, account="acme", project="shop-prod")
        await create_first_profile(session, profile)
        assert tokens.project(URL, "acme", "shop-prod") == ProjectToken("prj_night")
    finally:
        await session.aclose()


#: Never whole in the source (the report quotes it) nor a local (it prints them).
_CANARY = "".join(("CAN", "ARY_env_3f1a"))


def test_an_environment_token_is_masked_where_rich_prints_it_too() -> None:
    # Textual's crash report prints every frame's locals with Rich, which prefers
    # __rich_repr__ to __repr__: a msgspec Struct's own lists every field (a review
    # found the value there once EnvToken became a Struct).
    found = EnvToken(_CANARY, "BOTTUI_API_KEY", tied=False)
    assert _CANARY not in repr(found)
    assert _CANARY not in rich.pretty.pretty_repr(found)

    def crash(token: EnvToken) -> None:
        raise RuntimeError(f"boom with {token.variable}")

    try:
        crash(found)
    except RuntimeError:
        report = rich.traceback.Traceback(show_locals=True)
    console = rich.console.Console(record=True, width=120, file=io.StringIO())
    console.print(report)
    printed = console.export_text()
    assert "BOTTUI_API_KEY" in printed and "token" in printed  # the locals were printed
    assert _CANARY not in printed


def test_every_struct_with_its_own_repr_has_its_own_rich_repr() -> None:
    # The rule the test above keeps, for every record bottui declares.
    missing = [
        f"{path}:{node.name}"
        for path in sorted(Path(bottui.__file__).parent.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and any("Struct" in ast.unparse(base) for base in node.bases)
        and {"__repr__", "__str__"} & {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
        and "__rich_repr__" not in {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
    ]
    assert missing == []
