"""The invalid lines a run keeps to show: the first ``MAX_INVALID_KEPT``, every one counted
(#28: a mutation of the engine's bound survived without this boundary test)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.input import BulkSource
from bottui.ops.bulk.report import MAX_INVALID_KEPT
from bottui.ops.session import Session, Settings
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenStore
from tests.fixtures.sandbox import ACC, PROJ


@pytest.fixture
async def session(env: SandboxServer) -> AsyncIterator[Session]:
    s = Session(
        Locations.default(), Settings(profile_name=None, base_url=env.base_url), TokenStore()
    )
    yield s
    await s.aclose()


@pytest.mark.parametrize("bad", [MAX_INVALID_KEPT, MAX_INVALID_KEPT + 1])
async def test_the_first_invalid_lines_are_kept_and_all_are_counted(
    session: Session, env: SandboxServer, bad: int
) -> None:
    text = "vis_ok\n" + "".join("x" * 300 + "\n" for _ in range(bad))  # 300: too long
    summary = await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(text)).run()
    assert summary.invalid_count == bad
    assert len(summary.invalid) == min(bad, MAX_INVALID_KEPT)
    assert [i.line for i in summary.invalid][:2] == [2, 3]
    assert env.stats.requests == 1
