"""One grammar for a typed time: ``bottui journal --since 2h`` as the Journal filter (#27)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bottui.api.errors import ValidationError
from bottui.ops import journal_view
from bottui.sandbox.server import SandboxServer
from bottui.tui.screens.journal_dialogs import resolve_time
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope

NOW = datetime(2026, 11, 21, 3, 0, tzinfo=UTC)


def test_a_duration_ago_and_iso_8601_both_read() -> None:
    assert journal_view.time_of("--since", "2h", NOW) == NOW - timedelta(hours=2)
    assert journal_view.time_of("--since", "1h30m", NOW) == NOW - timedelta(minutes=90)
    assert journal_view.time_of("--since", "2026-11-20T03:00", NOW) == NOW - timedelta(days=1)
    with pytest.raises(ValidationError, match="duration ago"):
        journal_view.time_of("--since", "yesterday", NOW)


def test_the_tui_filter_and_the_cli_take_the_same_words() -> None:
    for text in ("2h", "30m", "1d", "1h30m", "2026-11-20T03:00"):
        resolved = resolve_time("since", text, NOW)
        assert resolved is not None
        assert journal_view.time_of("--since", resolved, NOW) == journal_view.time_of(
            "--since", text, NOW
        )
    with pytest.raises(ValidationError):
        resolve_time("since", "yesterday", NOW)


def test_journal_since_2h_is_not_refused(env: SandboxServer) -> None:
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0
    done = cli("journal", "--since", "2h")
    assert done.code == 0, done.err
    assert "rl-login" in done.out
    assert "rl-login" not in cli("journal", "--until", "2h").out  # nothing that old
    refused = cli("journal", "--since", "yesterday")
    assert refused.code == 2 and "duration ago" in refused.err


def test_the_next_page_command_keeps_the_moment_a_duration_stood_for(env: SandboxServer) -> None:
    for _ in range(3):
        assert cli("limiter", "disable", "rl-login", *scope()).code == 0
    done = cli("journal", "--since", "2h", "--limit", "1")
    older = [line for line in done.err.splitlines() if line.startswith("older: ")]
    assert older and "--since 2h" not in older[0]
    since = older[0].split("--since ", 1)[1].split()[0]
    assert journal_view.time_of("--since", since, NOW).tzinfo is not None
