"""The collision warning on the command line (#13): who changed it lately, before sending."""

from __future__ import annotations

import asyncio

import pytest

from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope
from tests.fixtures.teammates import BOB, bob_change, migrated, push

PROJ = "shop-prod"


def configure(base_url: str, *, protected: bool = False) -> None:
    path = Locations.default().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ['current = "prod"', "", '[profiles."prod"]', f'base_url = "{base_url}"']
    if protected:
        lines.append("protected = true")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def team_url(pg_admin_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    url = asyncio.run(migrated(pg_admin_url))
    monkeypatch.setenv("BOTTUI_STORE_URL", url)
    return url


def sent(sandbox: SandboxServer) -> int:
    return len(sandbox.state.recorder.log)


def test_a_teammates_recent_change_is_named_before_sending(
    env: SandboxServer, team_url: str
) -> None:
    configure(env.base_url)
    asyncio.run(push(team_url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=1)))
    r = cli("limiter", "enable", "rl-login", *scope())
    assert r.code == 0, r.err
    lines = r.err.splitlines()
    assert lines[0] == "warning: Changed by someone else in the last 15 minutes:"
    assert lines[1].startswith("warning:   bob@bastion-2 (role ")
    assert " disabled rl-login on shop-prod at " in lines[1] and " s ago, ok · INC-4312" in lines[1]
    # another limiter, project or base URL: nothing to say
    r = cli("limiter", "enable", "rl-search", *scope())
    assert r.code == 0 and "warning" not in r.err


def test_a_protected_profile_confirms_after_the_warning(env: SandboxServer, team_url: str) -> None:
    configure(env.base_url, protected=True)
    asyncio.run(push(team_url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=1)))
    r = cli("limiter", "enable", "rl-login", *scope(), "--yes")  # stdin is not a terminal
    assert r.code == 2 and sent(env) == 0
    assert "bob@bastion-2" in r.err and "confirm on a terminal after reading" in r.err
    # no recent change by someone else: --yes is enough, as before
    r = cli("limiter", "enable", "rl-search", *scope(), "--yes")
    assert r.code == 0 and sent(env) == 1


def newest_journal_entry() -> dict[str, object]:
    entry: dict[str, object] = cli("journal", "--json", "--limit", "1").json()["entries"][0]
    return entry


def test_ack_collision_lets_a_protected_script_proceed_and_is_journaled(
    env: SandboxServer, team_url: str
) -> None:
    configure(env.base_url, protected=True)
    asyncio.run(push(team_url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=1)))
    # Without it: still refused, and the refusal names the way out.
    r = cli("limiter", "enable", "rl-login", *scope(), "--yes", "--reason", "INC-9")
    assert r.code == 2 and sent(env) == 0
    assert "--ack-collision" in r.err
    # --ack-collision alone does not confirm a protected profile's change: --yes does.
    r = cli("limiter", "enable", "rl-login", *scope(), "--ack-collision")
    assert r.code == 2 and sent(env) == 0 and "protected" in r.err
    r = cli(
        "limiter", "enable", "rl-login", *scope(), "--yes", "--ack-collision", "--reason", "INC-9"
    )
    assert r.code == 0, r.err
    assert sent(env) == 1
    assert "bob@bastion-2" in r.err and "collision acknowledged (--ack-collision)" in r.err
    reason = newest_journal_entry()["reason"]
    assert isinstance(reason, str)
    assert reason.startswith("INC-9 · collision acknowledged (--ack-collision): bob@bastion-2 ")
    assert " disabled rl-login on shop-prod at " in reason and f"({BOB}:1)" in reason


def test_ack_collision_without_a_collision_journals_nothing_more(
    env: SandboxServer, team_url: str
) -> None:
    configure(env.base_url, protected=True)
    r = cli("limiter", "enable", "rl-search", *scope(), "--yes", "--ack-collision")
    assert r.code == 0 and sent(env) == 1 and "acknowledged" not in r.err
    assert newest_journal_entry()["reason"] is None


def test_ack_collision_on_undo(env: SandboxServer, team_url: str) -> None:
    configure(env.base_url, protected=True)
    assert cli("limiter", "enable", "rl-login", *scope(), "--yes").code == 0
    assert cli("limiter", "disable", "rl-login", *scope(), "--yes").code == 0
    asyncio.run(push(team_url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=2)))
    refused = cli("undo", "--yes", *scope())
    assert refused.code == 2 and "--ack-collision" in refused.err and sent(env) == 2
    r = cli("undo", "--yes", "--ack-collision", *scope())
    assert r.code == 0, r.err
    assert sent(env) == 3
    entry = newest_journal_entry()
    assert entry["undo_of"] is not None
    assert str(entry["reason"]).startswith("collision acknowledged (--ack-collision): bob@")


def test_a_yes_on_the_terminal_after_the_warning_is_journaled_too(
    env: SandboxServer, team_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bottui.cli import output

    configure(env.base_url, protected=True)
    asyncio.run(push(team_url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=1)))
    asked: list[str] = []
    monkeypatch.setattr(output, "confirm_on_terminal", lambda out, question: asked.append(question))
    r = cli("limiter", "enable", "rl-login", *scope(), "--yes")
    assert (
        r.code == 0 and sent(env) == 1 and asked == ["Someone else changed it lately. Send anyway?"]
    )
    reason = str(newest_journal_entry()["reason"])
    assert reason.startswith("collision acknowledged (confirmed on a terminal after the warning)")


def test_a_store_that_is_down_does_not_block_the_change(
    env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(env.base_url)
    monkeypatch.setenv("BOTTUI_STORE_URL", "postgresql://bottui@127.0.0.1:9/bottui")
    r = cli("limiter", "disable", "rl-login", *scope())
    assert r.code == 0 and sent(env) == 1
    # One line for the collision check, one for the push, one for the timed changes it
    # could compare the change with (the same store is down).
    check, push, timed = r.err.splitlines()
    assert check.startswith("warning: Could not check for teammates' recent changes: ")
    assert push.startswith("warning: team journal: 1 not yet shared")
    assert timed.startswith("warning: team store down: only this machine's timed changes")
    assert "Traceback" not in r.err
