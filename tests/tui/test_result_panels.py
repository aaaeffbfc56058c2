"""Result panels never contradict the table (#27 item 1).

A panel shows the latest known state of what it describes, or says plainly
that it is history ("At 03:00:00 UTC rl-login was set OFF · since changed to
ON"): after an undo from the Journal, after another bottui's change, after
a timed revert. Flows against the loopback sandbox.
"""

from __future__ import annotations

from textual.widgets import Static

from bottui.api.client import build_thresholds
from bottui.ops import mutations, planning
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.journal_dialogs import JournalTable
from bottui.tui.screens.thresholds_screen import ThresholdsScreen
from bottui.tui.widgets.limiter_table import LimiterTable
from bottui.tui.widgets.result_panels import AttemptPanel, ReturnedProjectPanel
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import open_then, plain, settle, settle_failed

PROJ = "shop-prod"


def limiter_panel(app: BottuiApp) -> tuple[str, str]:
    panel = app.screen.query_one(ReturnedProjectPanel)
    assert panel.display
    return str(panel.border_title), plain(panel.query_one("#returned-project-body", Static))


def state_of(app: BottuiApp, limiter_id: str) -> str:
    return app.screen.query_one(LimiterTable).get_row(limiter_id)[3].plain


async def test_after_an_undo_from_the_journal_the_limiter_panel_says_it_is_history(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        grid = flow_app.screen.query_one(LimiterTable)
        grid.move_cursor(row=grid.get_row_index("rl-login"), animate=False)
        await open_then(pilot, "t", "tab", "enter")  # rl-login ON -> OFF
        await settle(pilot)
        title, body = limiter_panel(flow_app)
        assert body.startswith("rl-login is now OFF") and title == "Returned project"
        assert state_of(flow_app, "rl-login") == "OFF"

        # Undo it from the Journal, then back to Rate limiters.
        await pilot.press("5")
        await settle(pilot)
        flow_app.screen.query_one(JournalTable).move_cursor(row=0, animate=False)
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(flow_app.screen, ConfirmDialog)
        flow_app.screen.query_one("#confirm").press()  # type: ignore[attr-defined]
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)

        assert state_of(flow_app, "rl-login") == "ON"
        title, body = limiter_panel(flow_app)
        assert "is now OFF" not in body  # the contradiction of #27
        first = body.splitlines()[0]
        assert first.startswith("At ") and "rl-login was set OFF · since changed to ON" in first
        assert "since changed" in title and "UTC" in title
        assert "rateLimits at " in body  # the answer's list is dated too


async def test_another_bottuis_change_makes_the_panel_history_too(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        grid = flow_app.screen.query_one(LimiterTable)
        grid.move_cursor(row=grid.get_row_index("rl-search"), animate=False)
        await open_then(pilot, "t", "tab", "enter")  # rl-search OFF -> ON; the answer lists all
        await settle(pilot)
        assert limiter_panel(flow_app)[1].startswith("rl-search is now ON")
        # Another limiter the answer listed is changed elsewhere (a second connection).
        await mutations.set_limiter(
            flow_app.session, DEMO_ACCOUNT, PROJ, "rl-checkout", False, confirmed=True
        )
        flow_app.services.inventory_changed()  # what the live watch does on a write
        await settle(pilot)
        assert state_of(flow_app, "rl-checkout") == "OFF"
        first = limiter_panel(flow_app)[1].splitlines()[0]
        assert "rl-search was set ON" in first and "changed since: rl-checkout OFF" in first


async def test_the_thresholds_panel_says_history_after_a_newer_value(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        screen = flow_app.screen
        assert isinstance(screen, ThresholdsScreen)
        session = flow_app.session
        plan = await planning.plan_thresholds(
            session, DEMO_ACCOUNT, PROJ, "bot-score", build_thresholds("Bot score", "0.82", "0.5")
        )
        screen._send(plan)  # what the editor's confirmation hands over
        await settle(pilot)
        panel = screen.query_one(AttemptPanel)
        head = plain(panel.query_one(".attempt-headline", Static))
        assert head == "Set: dimension bot-score" and "since changed" not in str(panel.border_title)

        # A newer value (a timed revert, the CLI, an undo): the table says 0.92.
        await mutations.set_thresholds(
            session,
            DEMO_ACCOUNT,
            PROJ,
            "bot-score",
            build_thresholds("Bot score", "0.92", "0.5"),
            confirmed=True,
        )
        flow_app.services.inventory_changed()
        await settle(pilot)
        head = plain(panel.query_one(".attempt-headline", Static))
        assert head.startswith("At ") and "since changed to block 0.92, challenge 0.5" in head
        assert "since changed" in str(panel.border_title)
        # The same value again: the panel is the latest state once more.
        await mutations.set_thresholds(
            session,
            DEMO_ACCOUNT,
            PROJ,
            "bot-score",
            build_thresholds("Bot score", "0.82", "0.5"),
            confirmed=True,
        )
        flow_app.services.inventory_changed()
        await settle(pilot)
        assert plain(panel.query_one(".attempt-headline", Static)) == "Set: dimension bot-score"


async def test_a_failed_tries_mark_goes_once_a_state_is_learnt_after_it(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    sandbox.faults.configure(fail_next=1, error_status=500)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        grid = flow_app.screen.query_one(LimiterTable)
        grid.move_cursor(row=grid.get_row_index("rl-api"), animate=False)
        await open_then(pilot, "t", "tab", "enter")  # fails
        await settle_failed(pilot)
        # The flag sits in the State cell (#27: at 80 columns the row's end is cut).
        assert state_of(flow_app, "rl-api") == "OFF · try FAILED (e)"
        # Another bottui switched it meanwhile, and it worked: the row says what is known.
        await mutations.set_limiter(
            flow_app.session, DEMO_ACCOUNT, PROJ, "rl-api", True, confirmed=True
        )
        flow_app.services.inventory_changed()
        await settle(pilot)
        assert state_of(flow_app, "rl-api") == "ON"  # no "try FAILED" any more
