"""A demo session on the loopback sandbox with a clock the test moves (no waiting)."""

from __future__ import annotations

from bottui.sandbox.server import SandboxServer
from tests.fixtures import moving_clock
from tests.fixtures.moving_clock import MovingClock

__all__ = ["ACC", "PROJ", "MovingClock", "active", "clock", "limiter_puts", "session"]

clock = moving_clock.clock
session = moving_clock.session

ACC = "acme"
PROJ = "shop-prod"


def limiter_puts(sandbox: SandboxServer, limiter_id: str) -> list[object]:
    """The bodies of the limiter updates the sandbox received for ``limiter_id``."""
    return [
        r.json
        for r in sandbox.state.recorder.log
        if r.method in ("PUT", "PATCH", "POST") and limiter_id in r.segments
    ]


def active(sandbox: SandboxServer, limiter_id: str = "rl-login") -> bool:
    """Whether the sandbox's ``limiter_id`` of the demo project is on now."""
    found = sandbox.state.rate_limiter(ACC, PROJ, limiter_id)
    assert found is not None
    return bool(found.is_active)
