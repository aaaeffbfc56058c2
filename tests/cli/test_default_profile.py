"""Entries journaled with no profile are under ``default``, and that name can be used (#27).

Seen: entries journaled before any profile existed went to a profile named
``default`` that then could not be named (``--profile default`` -> "No
profile named 'default'").
"""

from __future__ import annotations

from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope


def test_the_profile_of_changes_made_without_one_can_be_named(env: SandboxServer) -> None:
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0  # no config at all
    docs = cli("journal", "--json").json()["entries"]
    assert [d["profile"] for d in docs] == ["default"]
    shown = cli("journal", "--profile", "default")
    assert shown.code == 0 and "rl-login" in shown.out
    done = cli("limiter", "enable", "rl-login", *scope(), "--profile", "default")
    assert done.code == 0, done.err
    undo = cli("undo", "--profile", "default", "--yes")
    assert undo.code == 0, undo.err
    # Once a profile takes the name, it is that profile.
    assert cli("profile", "add", "default", "--base-url", env.base_url, *scope()).code == 0
    assert cli("limiter", "disable", "rl-login", "--profile", "default").code == 0
    # Any other unknown name is still refused.
    refused = cli("limiter", "enable", "rl-login", *scope(), "--profile", "nope")
    assert refused.code == 2 and "No profile named" in refused.err
