"""``u``: undo the highlighted journal row, for the current project only (#14 item 6).

Flows against the loopback sandbox: an older limiter change undone after a
newer threshold change, nothing of shop-prod offered from shop-staging, the
changed-since warning, revocations and failures refused with their reason,
and ``u`` on another screen undoing the current project's newest change.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from bottui.api.client import build_thresholds
from bottui.api.errors import ApiError
from bottui.ops import mutations
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.journal import JournalScreen
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import keys_closing, plain, sent, settle
from tests.tui.test_journal import rows, table, to_journal

PROJ = "shop-prod"
STAGING = "shop-staging"


def toast(app: BottuiApp) -> Any:
    return list(app._notifications)[-1]


async def on_row(app: BottuiApp, entry_id: int) -> None:
    grid = table(app)
    grid.move_cursor(row=grid.get_row_index(str(entry_id)), animate=False)


def body(app: BottuiApp) -> str:
    assert isinstance(app.screen, ConfirmDialog)
    return plain(app.screen.query_one("#confirm-body", Static))


async def test_an_older_limiter_change_after_a_newer_threshold_change(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        session = flow_app.session
        await mutations.set_limiter(session, DEMO_ACCOUNT, PROJ, "rl-login", False, confirmed=True)
        await mutations.set_thresholds(
            session,
            DEMO_ACCOUNT,
            PROJ,
            "bot-score",
            build_thresholds("Bot score", "0.9", "0.6"),
            confirmed=True,
        )
        await to_journal(pilot)
        await on_row(flow_app, 1)
        await pilot.press("u")
        await settle(pilot)
        text = body(flow_app)
        # Nothing changed rl-login since: no warning, before -> after of the row.
        assert text.startswith("Journal entry #1")
        assert "Rate limiter rl-login" in text and "Now: OFF\nAfter the undo: ON" in text
        assert "Changed since" not in text
        await keys_closing(pilot, "tab", "enter")
        assert sent(sandbox)[-1] == ("PATCH", "rl-login", {"isActive": True})
        with journal_of(flow_app.session) as journal:
            newest = journal.entries()[0]
        assert newest.undo_of == 1 and newest.outcome == "ok"
        assert toast(flow_app).title == "Undone"


async def test_from_another_projects_view_nothing_of_shop_prod_is_offered(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mutations.set_limiter(
            flow_app.session, DEMO_ACCOUNT, PROJ, "rl-login", False, confirmed=True
        )
        flow_app.services.choose_project(DEMO_ACCOUNT, STAGING)
        await to_journal(pilot)
        assert rows(flow_app) == []  # shop-staging has no entry
        await pilot.press("u")  # no row: the newest change of shop-staging, none
        await settle(pilot)
        assert isinstance(flow_app.screen, JournalScreen)
        message = toast(flow_app).message
        assert "nothing to undo" in message and f"{DEMO_ACCOUNT}/{STAGING}" in message
        await pilot.press("p")  # every project: the shop-prod row shows, but is not offered
        await settle(pilot)
        assert rows(flow_app)[0][3] == f"{PROJ}: rl-login -> OFF"
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(flow_app.screen, JournalScreen)
        message = toast(flow_app).message
        assert f"project {DEMO_ACCOUNT}/{PROJ}, not of {DEMO_ACCOUNT}/{STAGING}" in message
        # u on another screen: the current project's newest change only.
        await pilot.press("2", "u")
        await settle(pilot)
        assert not isinstance(flow_app.screen, ConfirmDialog)
        assert "nothing to undo" in toast(flow_app).message
        assert len(sent(sandbox)) == 1


async def test_u_elsewhere_undoes_the_current_projects_newest_change(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        session = flow_app.session
        await mutations.set_limiter(session, DEMO_ACCOUNT, PROJ, "rl-login", False, confirmed=True)
        await mutations.set_limiter(
            session, DEMO_ACCOUNT, "docs-site", "rl-crawl", False, confirmed=True
        )
        await pilot.press("2", "u")  # on the Limiters screen; shop-prod is current
        await settle(pilot)
        text = body(flow_app)
        assert "Rate limiter rl-login" in text and "rl-crawl" not in text
        await keys_closing(pilot, "tab", "enter")
        assert sent(sandbox)[-1] == ("PATCH", "rl-login", {"isActive": True})


async def test_changed_since_warns_and_a_change_meanwhile_stops_the_send(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        session = flow_app.session
        for active in (False, True):
            await mutations.set_limiter(
                session, DEMO_ACCOUNT, PROJ, "rl-login", active, confirmed=True
            )
        await to_journal(pilot)
        await on_row(flow_app, 1)
        await pilot.press("u")
        await settle(pilot)
        text = body(flow_app)
        assert text.startswith("Changed since journal entry #1")
        assert "#2 " in text and "by you: ON (ok)" in text
        # Another terminal changes it while the dialog is open: nothing is sent.
        await mutations.set_limiter(session, DEMO_ACCOUNT, PROJ, "rl-login", False, confirmed=True)
        count = len(sent(sandbox))
        await keys_closing(pilot, "tab", "enter")
        assert len(sent(sandbox)) == count
        assert "changed again" in toast(flow_app).message


async def test_revocations_and_failures_say_why(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        session = flow_app.session
        await mutations.revoke(
            session, DEMO_ACCOUNT, PROJ, visitor_id="vis_7Hq2kP9xLm", confirmed=True
        )
        await to_journal(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert "is a revocation" in toast(flow_app).message
        with pytest.raises(ApiError):  # a 404: journaled as an api-error
            await mutations.set_limiter(
                session, DEMO_ACCOUNT, PROJ, "rl-gone", True, confirmed=True
            )
        await pilot.press("r")
        await settle(pilot)
        await on_row(flow_app, 2)
        await pilot.press("u")
        await settle(pilot)
        assert "ended as api-error: it changed nothing" in toast(flow_app).message
        assert len(sent(sandbox)) == 2
