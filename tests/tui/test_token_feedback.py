"""Tokens and confirmations in an incident (#14 item 12): ``k`` says what it
checked, the keyring's remedies are readable, a missing token is refused before
the confirmation, and a confirmation says when a switch is in flight."""

from __future__ import annotations

from typing import Any

import pytest
from keyring.backends import fail
from textual.containers import VerticalScroll
from textual.widgets import Button, Static

from bottui.ops.session import Session
from bottui.sandbox.server import SandboxServer
from bottui.store.keyring_tokens import TokenStore
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.project_dialogs import TokenDialog
from tests.fixtures.keyrings import InMemoryKeyring, installed
from tests.tui.helpers import plain, settle
from tests.tui.test_grants import fill, to_grants


@pytest.fixture
def projects_app(flow_session: Session) -> BottuiApp:
    return BottuiApp(flow_session, demo=True, start_mode="projects")


def toasts(app: BottuiApp) -> list[Any]:
    return list(app._notifications)


async def test_k_says_what_it_checked(projects_app: BottuiApp) -> None:
    projects_app.session.tokens = TokenStore(
        environ={"BOTTUI_API_KEY": "prj_from_env_0001"}, backend=InMemoryKeyring()
    )
    async with projects_app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        projects_app.clear_notifications()
        await pilot.press("k")
        await settle(pilot)
        told = [n for n in toasts(projects_app) if n.title == "Tokens checked"]
        # 3 projects of one account: 3 project slots (all from the environment), 1 personal.
        assert told and told[-1].message == (
            "Checked 4 tokens again: 1 missing, 3 from the environment: not tied to a project."
        )
        assert told[-1].severity == "information"


async def test_k_warns_when_the_keyring_fails(projects_app: BottuiApp) -> None:
    projects_app.session.tokens = TokenStore(environ={})
    with installed(fail.Keyring()):  # type: ignore[no-untyped-call]
        async with projects_app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("k")
            await settle(pilot)
            told = [n for n in toasts(projects_app) if n.title == "Tokens checked"]
            assert told and "4 unreadable: keyring unavailable" in told[-1].message
            assert told[-1].severity == "warning"


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
async def test_keyring_remedies_fit_or_say_they_scroll(
    projects_app: BottuiApp, size: tuple[int, int]
) -> None:
    projects_app.session.tokens = TokenStore(environ={})
    with installed(fail.Keyring()):  # type: ignore[no-untyped-call]
        async with projects_app.run_test(size=size) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            dialog = projects_app.screen
            assert isinstance(dialog, TokenDialog)
            box = dialog.query_one("#token-problem", VerticalScroll)
            # More rows when the terminal has them (it was 5 at any size: cut at 100x30).
            assert box.outer_size.height == (11 if size == (100, 30) else 5)
            # What does not fit says so, and the buttons stay on screen.
            assert (box.max_scroll_y > 0) == ("more below" in str(box.border_subtitle))
            store = dialog.query_one("#token-store", Button)
            assert store.region.bottom <= size[1]


async def test_missing_token_is_refused_before_the_confirmation(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    grants_app.session.tokens = TokenStore(environ={}, backend=InMemoryKeyring())  # no token
    async with grants_app.run_test(size=(100, 30)) as pilot:
        await to_grants(pilot)
        await fill(pilot, visitor="vis_7Hq2kP9xLm")
        await pilot.click("#revoke")
        await settle(pilot)
        # Before: the confirmation opened, and the refusal came only after it.
        assert not isinstance(grants_app.screen, ConfirmDialog)
        toast = next(n for n in toasts(grants_app) if n.severity == "error")
        assert toast.title == "No personal access token"
        assert "Fix: press 1, then p (personal access token)." in toast.message
        logged = grants_app.services.errors.latest
        assert logged is not None and "No usable personal access token" in logged.hint
        assert sandbox.stats.requests == 0


async def test_confirmation_during_a_switch_in_flight_says_so(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        sandbox.faults.hold_requests()
        await pilot.press("f")  # rl-api is OFF: disable it again, held by the sandbox
        await pilot.pause()
        await pilot.press("tab", "enter")
        assert await sandbox.faults.wait_until_held_async(1)
        await pilot.press("o")
        for _ in range(50):
            await pilot.pause(0.02)
            if isinstance(flow_app.screen, ConfirmDialog):
                break
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        # Before: "Last known: OFF since ..." as if nothing were under way.
        assert "A switch to OFF is in flight, not answered yet" in body
        assert "Last known" not in body
        await pilot.press("enter")  # Cancel
        sandbox.faults.release()
        await settle(pilot)
