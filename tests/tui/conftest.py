"""Fixtures for the TUI: demo sessions over loopback (flows) or in-process (snapshots).

Snapshots need identical output on every run, so ``snap_app`` uses a fixed
base URL served in-process through ``httpx.ASGITransport`` (no port number
on screen), a fixed clock for everything the stores record, and the demo's
seeded inventory. Flow tests use ``flow_app``: the real sandbox over loopback.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bottui.api.client import BotProtectionClient
from bottui.api.sending import RetryPolicy
from bottui.demo import prepare
from bottui.ops.session import Session
from bottui.sandbox.endpoints import create_app
from bottui.sandbox.faults import Faults
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import ManualClock, SandboxState, demo_state
from bottui.tui.app import BottuiApp

SNAP_BASE_URL = "http://127.0.0.1:8765"
FIXED_NOW = datetime(2026, 11, 21, 3, 0, 0, tzinfo=UTC)
SNAP_SIZE = (100, 30)


def fixed_clock() -> datetime:
    return FIXED_NOW


class AsgiBackend:
    """The sandbox in-process: state and faults, and a client factory over ASGI."""

    def __init__(self, hostile: bool = False) -> None:
        self.clock = ManualClock()
        self.state: SandboxState = demo_state(self.clock, hostile=hostile)
        self.faults = Faults()
        self.app = create_app(self.state, self.faults)

    def transport(self) -> httpx.AsyncBaseTransport:
        """The transport the clients use; subclasses wrap or replace it."""
        return httpx.ASGITransport(app=self.app)

    def client(self, base_url: str) -> BotProtectionClient:
        return BotProtectionClient(
            base_url, transport=self.transport(), policy=RetryPolicy(deadline=5)
        )


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool]) -> Callable[..., bool]:
    """The plugin's ``snap_compare``, once the app's start-up reads are shown.

    Screens read the stores in workers (#11, fault 2): the first frame is
    compared after they finish, as a person would see it a moment later.
    Only the start is settled; what ``run_before`` does is left as it is.
    """
    from tests.tui.helpers import settle

    def compare(app: Any, *args: Any, run_before: Any = None, **options: Any) -> bool:
        async def before(pilot: Any) -> None:
            await settle(pilot)
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result

        return snap_compare(app, *args, run_before=before, **options)

    return compare


@pytest.fixture
def asgi_backend() -> AsgiBackend:
    return AsgiBackend()


@pytest.fixture
def make_snap_app(tmp_path: Path) -> Callable[..., BottuiApp]:
    """Build a demo app for snapshots: fixed URL, fixed clock, ASGI sandbox."""

    def make(
        *, hostile: bool = False, backend: AsgiBackend | None = None, **app_options: Any
    ) -> BottuiApp:
        backend = backend or AsgiBackend(hostile=hostile)
        session = prepare(
            tmp_path / "demo",
            SNAP_BASE_URL,
            client_factory=backend.client,
            hostile=hostile,
            clock=fixed_clock,
        )
        app = BottuiApp(session, demo=True, **app_options)
        app.backend = backend  # type: ignore[attr-defined]
        return app

    return make


@pytest.fixture
def flow_session(tmp_path: Path, sandbox: SandboxServer) -> Session:
    """A demo session against the loopback sandbox."""
    return prepare(tmp_path / "demo", sandbox.base_url)


@pytest.fixture
def flow_app(flow_session: Session) -> BottuiApp:
    """The app against the loopback sandbox (``sandbox`` fixture)."""
    return BottuiApp(flow_session, demo=True)


@pytest.fixture
def grants_app(flow_session: Session) -> BottuiApp:
    """The app against the loopback sandbox, started on the Grants screen."""
    return BottuiApp(flow_session, demo=True, start_mode="grants")
