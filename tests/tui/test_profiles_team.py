"""A profile switch re-points the team store too (#14 item 2), on a real PostgreSQL.

From a profile with a team store to one without, the push thread, the shared
journal's reader and the live feed stop, and the header drops "team: live";
switching back follows the store again.
"""

from __future__ import annotations

from pathlib import Path

from bottui.demo import prepare
from bottui.sandbox.server import SandboxServer
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.store_target import check_store_url
from bottui.tui.app import BottuiApp
from bottui.tui.ui_rules import ContextBar
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle
from tests.tui.test_team_header import until


async def test_a_switch_stops_and_starts_the_team_store(
    tmp_path: Path, sandbox: SandboxServer, pg_admin_url: str
) -> None:
    store = TeamStore(check_store_url(pg_admin_url, {}), timeout=120)
    await store.migrate()
    await store.close()
    session = prepare(tmp_path / "demo", sandbox.base_url, store_url=pg_admin_url)
    with session.locations.config_file.open("a", encoding="utf-8") as config:
        config.write(f'\n[profiles.solo]\nbase_url = "{sandbox.base_url}"\n')
    app = BottuiApp(session, demo=True)
    services = app.services

    def live() -> bool:
        return app.screen.query_one(ContextBar).live

    async with app.run_test(size=SNAP_SIZE) as pilot:
        await until(pilot, live)
        app.switch_to_profile("solo")
        await settle(pilot)
        assert app.session.settings.store_url is None
        assert not live() and not services.team_listening
        assert services._sharing is None and services._team_reader is None
        app.switch_to_profile("demo")
        await settle(pilot)
        await until(pilot, live)
        assert services._sharing is not None
        services.stop_sharing()
