"""A read-only profile refuses each of the three changes at the ops level, before sending.

The TUI and the CLI check too, but ``bottui.ops.mutations`` is the guard every
front end shares: a change called there under a read-only profile is refused
with nothing sent to the service (the sandbox over loopback receives no
request at all) and nothing journaled. The same calls on a writable profile
reach the sandbox, so the emptiness means the guard, not a broken setup.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from bottui.api.client import build_thresholds
from bottui.api.errors import RefusedError
from bottui.demo import prepare
from bottui.ops import mutations
from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from tests.fixtures.stores import journal_of

ACC, PROJ = DEMO_ACCOUNT, "shop-prod"

Change = Callable[[Session], Awaitable[Any]]

CHANGES: dict[str, Change] = {
    "limiter": lambda s: mutations.set_limiter(s, ACC, PROJ, "rl-api", True),
    "revoke": lambda s: mutations.revoke(s, ACC, PROJ, visitor_id="visitor-1042"),
    "thresholds": lambda s: mutations.set_thresholds(
        s, ACC, PROJ, "bot-score", build_thresholds("Bot score", "0.9", "0.6")
    ),
}


def _journal_size(session: Session) -> int:
    with journal_of(session) as journal:
        return len(list(journal.entries()))


@pytest.mark.parametrize("operation", sorted(CHANGES))
async def test_read_only_refuses_before_sending(
    operation: str, tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = prepare(tmp_path / "demo", sandbox.base_url)
    session.update_settings(replace(session.settings, read_only=True))
    try:
        with pytest.raises(RefusedError, match="Read-only"):
            await CHANGES[operation](session)
        assert sandbox.state.recorder.log == []
        assert _journal_size(session) == 0
    finally:
        await session.aclose()


@pytest.mark.parametrize("operation", sorted(CHANGES))
async def test_the_same_change_on_a_writable_profile_is_sent(
    operation: str, tmp_path: Path, sandbox: SandboxServer
) -> None:
    session = prepare(tmp_path / "demo", sandbox.base_url)
    try:
        await CHANGES[operation](session)
        assert len(sandbox.state.recorder.log) >= 1
        assert _journal_size(session) == 1
    finally:
        await session.aclose()
