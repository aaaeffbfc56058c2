"""The Journal screen keeps the local history when a team store is configured (#27 item 3).

Seen: with a store set mid-incident, the Journal said "1 shown" though the
night's entries were all in the local journal. A real PostgreSQL (the
fixture's) and the loopback sandbox.
"""

from __future__ import annotations

from msgspec.structs import replace

from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.store.journal.journal_records import Operation, limiter_target
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.store_target import check_store_url
from bottui.tui.app import BottuiApp
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle
from tests.tui.test_journal import PROJ, rows, to_journal
from tests.tui.test_team_header import filters_line, reread_until, shared_count, toggle, until

BEFORE = 3


async def test_entries_older_than_the_store_still_show_marked_not_shared(
    flow_session: Session, pg_admin_url: str
) -> None:
    with journal_of(flow_session) as journal:  # the night, before any store
        for n in range(BEFORE):
            entry = journal.start(
                profile="demo",
                base_url=flow_session.base_url,
                operation=Operation.SET_LIMITER_ACTIVE,
                account=DEMO_ACCOUNT,
                project=PROJ,
                target=limiter_target("rl-login"),
                request_body={"isActive": n % 2 == 1},
                previous={"isActive": n % 2 == 0},
                reason=f"INC-{n}",
            )
            journal.finish(entry, outcome="ok", status=200)
    store = TeamStore(check_store_url(pg_admin_url, {}), timeout=120)
    await store.migrate()
    await store.close()
    flow_session.update_settings(replace(flow_session.settings, store_url=pg_admin_url))
    app = BottuiApp(flow_session, demo=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await toggle(pilot, app, "rl-search")
        await until(pilot, lambda: shared_count(pg_admin_url) == 1)
        await to_journal(pilot)
        await reread_until(pilot, app, lambda: len(rows(app)) == BEFORE + 1)
        outcomes = [row[4] for row in rows(app)]
        assert "not shared" not in outcomes[0]
        assert all(cell.endswith("· not shared") for cell in outcomes[1:]), outcomes
        assert f"{BEFORE} not shared: bottui store sync --backfill" in filters_line(app)
        app.services.stop_sharing()
