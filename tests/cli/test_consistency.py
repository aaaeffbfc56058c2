"""The CLI says the same thing the same way (#16, item 6): each case was seen by a user."""

from __future__ import annotations

import shlex

import pytest

from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli, write_config
from tests.fixtures.sandbox import scope

CONFIG = """\
[profiles.prod]
base_url = "https://api.example.com"

[profiles.staging]
base_url = "https://staging.example.com"
"""


def set_thresholds(block: str) -> None:
    done = cli(
        "thresholds", "set", "bot-score", *scope(), "--name", "Bot score",
        "--block", block, "--challenge", "0.5",
    )  # fmt: skip
    assert done.code == 0, done.err


# -- the empty journal ------------------------------------------------------------


def test_an_empty_journal_says_it_is_empty() -> None:
    done = cli("journal")
    assert done.code == 0
    assert done.out == "the journal is empty\n"


def test_a_filter_that_matches_nothing_says_so(env: SandboxServer) -> None:
    set_thresholds("0.9")
    done = cli("journal", "--operation", "limiter")
    assert done.code == 0
    assert done.out == "no journal entries match\n"


# -- values the journal refuses ---------------------------------------------------


def test_an_unknown_outcome_is_refused_with_the_valid_ones() -> None:
    done = cli("journal", "--outcome", "bogus")
    assert done.code == 2, done
    assert done.out == ""
    assert "'bogus' is not an outcome" in done.err
    for word in ("succeeded", "failed", "unknown", "unfinished", "api-error", "not-sent"):
        assert word in done.err


def test_a_misspelt_outcome_names_the_closest() -> None:
    done = cli("journal", "--outcome", "faild")
    assert done.code == 2 and "did you mean 'failed'?" in done.err


@pytest.mark.parametrize("outcome", ["succeeded", "failed", "unfinished", "ok", "not-sent"])
def test_every_valid_outcome_is_accepted(outcome: str) -> None:
    assert cli("journal", "--outcome", outcome).code == 0


@pytest.mark.parametrize("limit", ["-1", "0", "x"])
def test_a_limit_that_is_not_positive_is_refused(limit: str) -> None:
    done = cli("journal", f"--limit={limit}")
    assert done.code == 2 and "not a positive integer" in done.err


# -- an unknown profile ----------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["journal"],
        ["limiter", "enable", "rl-1", "--account", "a", "--project", "p"],
        ["inventory", "list"],
        ["token", "status"],
        ["undo"],
        ["store", "status"],
        ["profile", "use", "prdo"],
        ["profile", "remove", "prdo"],
    ],
)
def test_every_command_refuses_an_unknown_profile_the_same_way(argv: list[str]) -> None:
    write_config(CONFIG)
    done = cli("--profile", "prdo", *argv)
    assert done.code == 2, done
    assert "No profile named 'prdo'" in done.err
    assert "did you mean 'prod'? known profiles: prod, staging" in done.err


def test_no_profiles_at_all_says_how_to_add_one() -> None:
    done = cli("--profile", "prod", "journal")
    assert done.code == 2
    assert "there are no profiles yet: bottui profile add NAME --base-url URL" in done.err


def test_a_removed_profile_still_reads_its_journal(env: SandboxServer) -> None:
    set_thresholds("0.9")  # journaled under the "default" scope: no profile in the config
    done = cli("--profile", "default", "journal")
    assert done.code == 0, done.err
    assert "thresholds" in done.out


# -- numbers in journal --json ---------------------------------------------------


def test_previous_thresholds_are_numbers_like_the_request_body(env: SandboxServer) -> None:
    set_thresholds("0.9")
    set_thresholds("0.8")
    newest = cli("journal", "--json").json()["entries"][0]
    assert newest["request_body"]["blockThreshold"] == 0.8
    assert newest["previous"] == {
        "name": "Bot score",
        "blockThreshold": 0.9,
        "challengeThreshold": 0.5,
    }
    jsonl = cli("journal", "--jsonl").out.splitlines()[0]
    assert '"blockThreshold":0.9,' in jsonl


def test_old_rows_and_odd_values_read_the_same() -> None:
    # The journal keeps the literal text (undo sends it back): every row, old or
    # new, local or shared, is shown through previous_json.
    from bottui.store.journal.journal_records import previous_json

    kept = {"name": "n", "blockThreshold": "1e-3", "challengeThreshold": "-0"}
    assert previous_json(kept) == {"name": "n", "blockThreshold": 0.001, "challengeThreshold": 0}
    assert previous_json({"isActive": True}) == {"isActive": True}
    assert previous_json(None) is None
    odd = {"name": "n", "blockThreshold": "NaN", "challengeThreshold": "0x1"}
    assert previous_json(odd) == odd  # not JSON numbers: left as they were


def test_the_team_journal_shows_numbers_too(
    env: SandboxServer, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    assert cli("store", "migrate").code == 0
    set_thresholds("0.9")
    set_thresholds("0.7")
    done = cli("journal", "--json")
    assert done.code == 0, done.err
    newest = done.json()["entries"][0]
    assert newest["shared"] is True
    assert newest["previous"]["blockThreshold"] == 0.9


# -- hints that name the real thing ------------------------------------------------


def test_adding_an_existing_profile_names_replace() -> None:
    write_config(CONFIG)
    done = cli("profile", "add", "prod", "--base-url", "https://x.example")
    assert done.code == 2
    assert "give --replace to replace it" in done.err
    assert "bottui profile remove prod" in done.err


def test_the_missing_token_hint_prints_the_real_ids(
    sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_BASE_URL", sandbox.base_url)
    account, project = "acme corp", "shop'$(touch x)"  # ids refuse control characters
    done = cli("limiter", "enable", "rl-1", "--account", account, "--project", project)
    assert done.code == 3, done
    expected = shlex.join(
        ["bottui", "token", "set", "project", "--base-url", sandbox.base_url,
         "--account", account, "--project", project]
    )  # fmt: skip
    assert expected in done.err
    assert "..." not in done.err
    done = cli("revoke", "--visitor-id", "v", "--account", account, "--project", "p")
    assert done.code == 3
    assert "bottui token set personal --base-url" in done.err
    assert "--account 'acme corp'" in done.err
