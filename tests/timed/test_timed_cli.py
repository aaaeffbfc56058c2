"""The CLI of timed changes on the loopback sandbox: ``--for``, ``timed``, ``run-due --now``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bottui.sandbox.server import SandboxServer
from bottui.store.token_sources import CredentialFileRefused, read_credentials
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope
from tests.timed.conftest import limiter_puts


def _at(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).isoformat()


def test_for_then_run_due_reverts(env: SandboxServer) -> None:
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0  # the inventory learns ON
    done = cli("limiter", "disable", "rl-login", "--for", "30m", *scope())
    assert done.code == 0, done.err
    assert "timed: reverts to ON in 30m (timed change 1" in done.err
    assert "No executor is known" in done.err
    listed = cli("timed", "--json", *scope())
    [row] = listed.json()["timed"]
    assert (row["id"], row["state"], row["revertTo"]) == ("1", "scheduled", "ON")
    early = cli("run-due", "--now", _at(timedelta(minutes=29)), *scope())
    assert (early.code, early.out.strip()) == (0, "nothing due")
    due = cli("run-due", "--now", _at(timedelta(minutes=31)), "--json", *scope())
    assert due.code == 0, due.err
    [report] = due.json()["reports"]
    assert report["action"] == "reverted"
    assert limiter_puts(env, "rl-login") == [
        {"isActive": True},
        {"isActive": False},
        {"isActive": True},
    ]
    assert "no timed changes" in cli("timed", *scope()).out
    assert "reverted by timer on" in cli("timed", "--all", *scope()).out


def test_for_refused_before_sending_when_the_value_is_unknown(env: SandboxServer) -> None:
    refused = cli("limiter", "disable", "rl-login", "--for", "30m", *scope())
    assert refused.code == 2
    assert "not known" in refused.err
    assert limiter_puts(env, "rl-login") == []


@pytest.mark.parametrize("subject", [["--visitor-id", "v-1"], ["--from-file", "ids.txt"]])
def test_revoke_for_is_refused_with_the_reason(
    env: SandboxServer, subject: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bulk run too: --for was once ignored there, and the grants revoked for good.
    (tmp_path / "ids.txt").write_text("v-1\nv-2\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    refused = cli("revoke", *subject, "--for", "1h", *scope())
    assert refused.code == 2
    assert "cannot be timed" in refused.err
    assert env.state.recorder.log == []


@pytest.mark.parametrize("text", ["8d", "1.5h", "soon"])
def test_bad_durations_are_usage_errors(env: SandboxServer, text: str) -> None:
    result = cli("limiter", "disable", "rl-login", "--for", text, *scope())
    assert result.code == 2
    assert "duration" in result.err or "longer than" in result.err


def test_late_past_the_limit_exit_2_unless_late_ok(env: SandboxServer) -> None:
    cli("limiter", "enable", "rl-login", *scope())
    cli("limiter", "disable", "rl-login", "--for", "10m", *scope())
    skipped = cli("run-due", "--now", _at(timedelta(hours=2)), *scope())
    assert skipped.code == 2
    assert "late-skipped (late by 1h" in skipped.out and "limit (1h)" in skipped.out
    sent = cli("run-due", "--now", _at(timedelta(hours=2)), "--late-ok", *scope())
    assert sent.code == 0 and "reverted (late by 1h" in sent.out


def test_extend_cancel_and_revert_now(env: SandboxServer) -> None:
    cli("limiter", "enable", "rl-login", *scope())
    cli("limiter", "disable", "rl-login", "--for", "10m", *scope())
    dry = cli("run-due", "--now", _at(timedelta(hours=1)), "--dry-run", *scope())
    assert "would revert timed change 1" in dry.out and len(limiter_puts(env, "rl-login")) == 2
    assert "nothing was changed" in cli("timed", "cancel", "1", "--dry-run", *scope()).out
    extended = cli("timed", "extend", "1", "1h", *scope())
    assert extended.code == 0 and "now reverts in 1h" in extended.out
    assert cli("run-due", "--now", _at(timedelta(minutes=15)), *scope()).out.strip() == (
        "nothing due"
    )
    assert cli("timed", "revert", "1", *scope()).code == 0
    assert limiter_puts(env, "rl-login")[-1] == {"isActive": True}
    again = cli("timed", "cancel", "1", *scope())
    assert again.code == 2 and "reverted" in again.err
    missing = cli("timed", "extend", "99", "1h", *scope())
    assert missing.code == 2 and "no timed change '99'" in missing.err


def test_credentials_from_systemd(tmp_path: Path) -> None:
    (tmp_path / "bottui-api-key").write_text("pk-secret\n", encoding="utf-8")
    assert read_credentials(tmp_path) == {"BOTTUI_API_KEY": "pk-secret"}
    (tmp_path / "bottui-access-token").symlink_to(tmp_path / "bottui-api-key")
    with pytest.raises(CredentialFileRefused, match="bottui-access-token"):
        read_credentials(tmp_path)


def test_help_has_examples_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    from bottui.cli.parser import build_parser

    for command in ("timed", "run-due"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        text = capsys.readouterr().out
        assert "examples:" in text and "exit codes:" in text
        assert "default" in text


def test_an_undo_supersedes_the_revert_and_every_view_says_so(env: SandboxServer) -> None:
    """#27 item 6: after an undo, no view calls the revert live while the run skips it."""
    cli("limiter", "enable", "rl-login", *scope())
    assert cli("limiter", "disable", "rl-login", "--for", "30m", *scope()).code == 0
    dry_undo = cli("undo", "--dry-run", *scope())  # a dry run says it too
    assert "This supersedes timed change 1" in dry_undo.err
    undone = cli("undo", "--yes", *scope())
    assert undone.code == 0, undone.err
    assert "This supersedes timed change 1 (rate limiter rl-login -> ON in " in undone.err
    assert "its revert will not be sent" in undone.err
    listed = cli("timed", *scope())
    assert "scheduled" not in listed.out
    assert "superseded by #3: will not revert" in listed.out
    [row] = cli("timed", "--json", *scope()).json()["timed"]
    assert (row["state"], row["supersededBy"], row["foreseen"]) == ("superseded", "#3", True)
    later = _at(timedelta(minutes=31))
    dry = cli("run-due", "--now", later, "--dry-run", *scope())
    assert "would revert" not in dry.out
    assert "would skip timed change 1" in dry.out and "superseded" in dry.out
    revert_dry = cli("timed", "revert", "1", "--dry-run", *scope())
    assert "would not revert timed change 1: it is superseded by #3" in revert_dry.out
    # What the real run does is what the views said: skipped as superseded, nothing sent.
    sent_before = len(limiter_puts(env, "rl-login"))
    ran = cli("run-due", "--now", later, *scope())
    assert "superseded by #3" in ran.out
    assert len(limiter_puts(env, "rl-login")) == sent_before
    assert "no timed changes" in cli("timed", *scope()).out
    assert "superseded" in cli("timed", "--all", *scope()).out


def test_a_late_superseded_revert_is_recorded_superseded_not_late_skipped(
    env: SandboxServer,
) -> None:
    cli("limiter", "enable", "rl-login", *scope())
    cli("limiter", "disable", "rl-login", "--for", "10m", *scope())
    cli("limiter", "enable", "rl-login", *scope())  # by hand, before it was due
    ran = cli("run-due", "--now", _at(timedelta(hours=2)), *scope())
    assert "late-skipped" not in ran.out and "superseded by #3" in ran.out
    assert ran.code == 0
