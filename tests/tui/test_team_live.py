"""Live in the TUI (#13): a teammate's change arrives as a toast and the row follows;
the store stopped and started while listening; hostile strings shown literally."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from bottui.demo import prepare
from bottui.ops import mutations
from bottui.ops.journal_view import own_origin
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.ui_rules import ContextBar
from tests.fixtures.postgres import PostgresServer
from tests.fixtures.teammates import bob_change, migrated, push, wait_for
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle
from tests.tui.test_limiters import row_of

PROJ = "shop-prod"


class Toasts:
    """Every toast's text (the app's notify, spied)."""

    def __init__(self, app: BottuiApp, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts: list[str] = []
        shown = app.notify

        def notify(message: str, **options: Any) -> None:
            self.texts.append(message)
            shown(message, **options)

        monkeypatch.setattr(app, "notify", notify)

    def has(self, part: str) -> bool:
        return any(part in text for text in self.texts)


@pytest.fixture
async def team_app(tmp_path: Any, sandbox: SandboxServer, pg_admin_url: str) -> BottuiApp:
    """The TUI on the sandbox with a migrated team store configured."""
    session = prepare(tmp_path / "demo", sandbox.base_url)
    url = await migrated(pg_admin_url)
    session.update_settings(replace(session.settings, store_url=url))
    return BottuiApp(session, demo=True)


async def listening(app: BottuiApp) -> None:
    await wait_for(lambda: app.services.team_listening, what="the TUI listens")


def bar_text(app: BottuiApp) -> str:
    bar = app.screen.query_one(ContextBar)
    return "".join(flag.plain for flag in bar.flags())


async def test_a_teammates_change_arrives_as_a_toast_and_the_row_follows(
    team_app: BottuiApp, sandbox: SandboxServer, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    toasts = Toasts(team_app, monkeypatch)
    async with team_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await listening(team_app)
        assert "ON" in row_of(team_app, "rl-login")
        # Our own entry (same journal origin), shared by our push, is not toasted.
        await mutations.set_limiter(
            team_app.session, DEMO_ACCOUNT, PROJ, "rl-search", False, confirmed=True
        )
        mine = await own_origin(team_app.session)
        assert mine is not None
        await push(
            pg_admin_url,
            bob_change(
                sandbox.base_url, DEMO_ACCOUNT, PROJ, local_id=1, limiter="rl-search",
                operator="me-myself", origin=mine,
            ),
        )  # fmt: skip
        await push(pg_admin_url, bob_change(sandbox.base_url, DEMO_ACCOUNT, PROJ, local_id=7))
        expected = f"bob@bastion-2 disabled rl-login on {PROJ} · INC-4312"
        await wait_for(lambda: toasts.has(expected), what="the teammate's toast")
        await wait_for(lambda: "OFF" in row_of(team_app, "rl-login"), what="the row's known state")
        assert not toasts.has("me-myself")


async def test_hostile_operator_and_reason_are_shown_literally(
    team_app: BottuiApp, sandbox: SandboxServer, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    toasts = Toasts(team_app, monkeypatch)
    operator = "[b]mallory[/b]\x1b[2J"
    reason = "[red]INC[/red] '; DROP TABLE bottui.journal_entries; -- \x07"
    async with team_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await listening(team_app)
        events = bob_change(
            sandbox.base_url, DEMO_ACCOUNT, PROJ, local_id=3, operator=operator,
            host="h\x1b]0;pwn\x07", reason=reason,
        )  # fmt: skip
        await push(pg_admin_url, events)
        await wait_for(lambda: toasts.has("[b]mallory[/b]"), what="the hostile toast")
    (toast,) = [t for t in toasts.texts if "mallory" in t]
    assert toast == (
        "[b]mallory[/b]\ufffd[2J@h\ufffd]0;pwn\ufffd disabled rl-login on shop-prod"
        " · [red]INC[/red] '; DROP TABLE bottui.journal_entries; -- \ufffd"
    )


async def test_the_store_stopped_and_started_while_listening(
    team_app: BottuiApp,
    sandbox: SandboxServer,
    pg_admin_url: str,
    postgres_server: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not postgres_server.restartable:
        pytest.fail("this test stops the server: BOTTUI_TEST_POSTGRES_URL's server cannot be")
    toasts = Toasts(team_app, monkeypatch)
    async with team_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await listening(team_app)
        assert "TEAM STORE DOWN" not in bar_text(team_app)
        postgres_server.stop()
        try:
            await wait_for(lambda: team_app.services.live_down is not None, what="down")
            await pilot.pause()
            assert "TEAM STORE DOWN" in bar_text(team_app)
            assert toasts.has("Teammates' changes cannot be followed")
        finally:
            postgres_server.start()
        await wait_for(lambda: team_app.services.live_down is None, timeout=60, what="back")
        await pilot.pause()
        assert "TEAM STORE DOWN" not in bar_text(team_app)
        assert toasts.has("The team store is back")
        await push(pg_admin_url, bob_change(sandbox.base_url, DEMO_ACCOUNT, PROJ, local_id=9))
        await wait_for(lambda: toasts.has("bob@bastion-2 disabled rl-login"), what="after")
        assert not any("Traceback" in t for t in toasts.texts)
