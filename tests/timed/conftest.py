"""A demo session on the loopback sandbox with a clock the test moves (no waiting)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bottui.demo import prepare
from bottui.ops.session import Session
from bottui.sandbox.server import SandboxServer

ACC = "acme"
PROJ = "shop-prod"


class MovingClock:
    """A clock that stands still until the test moves it."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def move(self, **by: float) -> datetime:
        self.now += timedelta(**by)
        return self.now


@pytest.fixture
def clock() -> MovingClock:
    return MovingClock()


@pytest.fixture
async def session(
    tmp_path: Path, sandbox: SandboxServer, clock: MovingClock
) -> AsyncIterator[Session]:
    made = prepare(tmp_path / "demo", sandbox.base_url, clock=clock)
    yield made
    await made.aclose()


def limiter_puts(sandbox: SandboxServer, limiter_id: str) -> list[object]:
    """The bodies of the limiter updates the sandbox received for ``limiter_id``."""
    return [
        r.json
        for r in sandbox.state.recorder.log
        if r.method in ("PUT", "PATCH", "POST") and limiter_id in r.segments
    ]
