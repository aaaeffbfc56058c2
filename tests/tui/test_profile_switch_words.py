"""A profile switch drops the old profile's filter and marks and says so, with its reverts (#27)."""

from __future__ import annotations

from bottui.ops.session import Session
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.widgets.entry_table import FilterBar
from bottui.tui.widgets.limiter_table import LimiterTable
from tests.fixtures import moving_clock
from tests.fixtures.moving_clock import MovingClock
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle
from tests.tui.test_timed import timed_limiter

clock = moving_clock.clock
session = moving_clock.session


async def test_a_switch_clears_the_filter_unmarks_and_names_the_reverts_left(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    with session.locations.config_file.open("a", encoding="utf-8") as config:
        config.write('\n[profiles.other]\nbase_url = "http://127.0.0.1:9"\n')
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None
        demo_profile = session.settings.profile_name
        await timed_limiter(pilot, "rl-login", "30m")
        await runner.tick(execute=False)
        screen = app.screen
        table = screen.query_one(LimiterTable)
        table.set_marks(["rl-api", "rl-search"], True)
        await pilot.press("slash", *"rl", "enter")
        await settle(pilot)
        assert screen.query_one(FilterBar).display
        app.clear_notifications()

        app.switch_to_profile("other")
        await settle(pilot)
        assert session.settings.profile_name == "other"
        assert not screen.query_one(FilterBar).display and table.row_filter.text == ""
        assert not table.marked
        said = next(n for n in app._notifications if n.title == "Profile")
        assert said.severity == "warning"
        assert "Now on profile other" in said.message
        assert "The Rate limiters filter 'rl' was cleared." in said.message
        assert "2 marked rate limiters unmarked." in said.message
        assert f"1 timed revert of profile {demo_profile}" in said.message
        assert f"bottui run-due --profile {demo_profile}" in said.message
