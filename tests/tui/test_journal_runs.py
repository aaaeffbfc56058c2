"""A bulk run shows as one journal row and expands to its ids, paged (#14 item 12)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_records import Operation, StartRecord, limiter_target
from bottui.tui.app import BottuiApp
from bottui.tui.screens.journal_dialogs import COLUMNS, RUN_PAGE, RunDialog
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle, until
from tests.tui.test_journal import rows, steady, table, to_journal

Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]
PROJ = "shop-prod"
#: Ids of the run: more than a page of the dialog, and more than the screen's first read.
RUN_IDS = 450
__all__ = ["steady"]  # the fixture, used by the snapshots


def write_run(app: BottuiApp, size: int = RUN_IDS) -> None:
    """A single limiter change, then a bulk revocation of ``size`` ids (every 10th failed)."""
    with journal_of(app.session) as journal:
        single = journal.start(
            profile="demo",
            base_url=app.session.base_url,
            operation=Operation.SET_LIMITER_ACTIVE,
            account=DEMO_ACCOUNT,
            project=PROJ,
            target=limiter_target("rl-login"),
            request_body={"isActive": False},
            previous={"isActive": True},
        )
        journal.finish(single, outcome="ok", status=200)
        run = journal.run(
            profile="demo",
            account=DEMO_ACCOUNT,
            project=PROJ,
            input_sha256="ab" * 32,
            operation=Operation.REVOKE_GRANT,
        )
        for n in range(size):
            entry = journal.start(
                profile="demo",
                base_url=app.session.base_url,
                operation=Operation.REVOKE_GRANT,
                account=DEMO_ACCOUNT,
                project=PROJ,
                target={"visitorId": f"vis_{n:04d}"},
                request_body={"visitorId": f"vis_{n:04d}"},
                run_id=run,
                item_key=f"vis_{n:04d}",
            )
            failed = n % 10 == 9
            journal.finish(
                entry,
                outcome="api-error" if failed else "withdrawn",
                status=500 if failed else 200,
            )


async def test_a_bulk_run_is_one_row_and_expands_to_its_ids(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        write_run(flow_app)
        await to_journal(pilot)
        run_row = rows(flow_app)[0]  # the run; the single change is older, not read yet
        # The screen read a page or two, not the whole run: its count says more may follow.
        assert run_row[2] == "bulk revoke"
        count = int(run_row[3].removeprefix("▸ ").split("+")[0])
        assert count < RUN_IDS and run_row[3] == f"▸ {count}+ ids, run #1"
        assert run_row[4] == f"{count - count // 10} withdrawn, {count // 10} api-error"
        await pilot.press("enter")
        await settle(pilot)
        dialog = flow_app.screen
        assert isinstance(dialog, RunDialog)
        ids = dialog.query_one("#run-ids", DataTable)
        assert ids.row_count == RUN_PAGE
        summary = plain(dialog.query_one("#run-summary", Static))
        assert summary == "90 withdrawn, 10 api-error · the first 100 read; more below (m)"
        await pilot.press("m")
        await settle(pilot)
        assert ids.row_count == 2 * RUN_PAGE
        for _ in range(3):
            await pilot.press("m")
            await settle(pilot)
        assert ids.row_count == RUN_IDS
        assert plain(dialog.query_one("#run-summary", Static)) == (
            "405 withdrawn, 45 api-error · all 450"
        )
        await pilot.press("escape")
        for _ in range(3):  # the screen reads the rest: the row counts them all
            await pilot.press("m")
            await settle(pilot)
        run_row, single = rows(flow_app)  # the whole run: one row; then the single change
        assert run_row[3:5] == ["▸ 450 ids, run #1", "405 withdrawn, 45 api-error"]
        assert single[3] == "rl-login -> OFF"
        await pilot.press("right")  # → expands too
        await settle(pilot)
        assert isinstance(flow_app.screen, RunDialog)


def test_snapshot_grouped_journal(snap_compare: Snap, make_snap_app: MakeApp, steady: None) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        write_run(pilot.app, 30)  # type: ignore[arg-type]
        await to_journal(pilot)
        assert len(rows(pilot.app)) == 2

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_run_dialog(snap_compare: Snap, make_snap_app: MakeApp, steady: None) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        write_run(pilot.app, 30)  # type: ignore[arg-type]
        await to_journal(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, RunDialog)

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


async def test_the_outcome_column_fits_beside_a_long_target(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        with journal_of(flow_app.session) as journal:
            subject = {"visitorId": "vis_" + "x" * 30, "userAccountId": "usr_" + "y" * 20}
            entry = journal.start(
                profile="demo",
                base_url=flow_app.session.base_url,
                operation=Operation.REVOKE_GRANT,
                account=DEMO_ACCOUNT,
                project=PROJ,
                target=subject,
                request_body=subject,
                operator="oncall@bastion-2",
            )
            journal.finish(entry, outcome="nothing-standing", status=200)
        await to_journal(pilot)
        await pilot.press("p")  # every project: targets carry their project too
        await settle(pilot)
        grid = flow_app.screen.query_one("#journal-table", DataTable)
        widths = [column.get_render_width(grid) for column in grid.ordered_columns]
        outcome = [key for key, _ in COLUMNS].index("outcome")
        # The whole word is on a 100-column screen (it was cut: "nothing-sta").
        assert sum(widths[: outcome + 1]) <= SNAP_SIZE[0]
        assert rows(flow_app)[0][outcome] == "nothing-standing"


def write_long_run(app: BottuiApp, chunk: int) -> None:
    """An old single change, a run of two chunks of ``chunk`` ids (every 10th
    failed) and, between them, a single change made while the run went on."""

    def single(journal: Any, limiter: str) -> None:
        entry = journal.start(
            profile="demo",
            base_url=app.session.base_url,
            operation=Operation.SET_LIMITER_ACTIVE,
            account=DEMO_ACCOUNT,
            project=PROJ,
            target=limiter_target(limiter),
            request_body={"isActive": False},
        )
        journal.finish(entry, outcome="ok", status=200)

    with journal_of(app.session) as journal:
        single(journal, "rl-old")
        run = journal.run(
            profile="demo",
            account=DEMO_ACCOUNT,
            project=PROJ,
            input_sha256="cd" * 32,
            operation=Operation.REVOKE_GRANT,
        )
        for part in range(2):
            if part:
                single(journal, "rl-mid")
            records = [
                StartRecord(
                    profile="demo",
                    base_url=app.session.base_url,
                    operation=Operation.REVOKE_GRANT,
                    account=DEMO_ACCOUNT,
                    project=PROJ,
                    target={"visitorId": f"vis_{part}_{n:04d}"},
                    run_id=run,
                )
                for n in range(chunk)
            ]
            with journal.batch(interval=0) as writer:
                for n, entry in enumerate(writer.start_many(records)):
                    failed = n % 10 == 9
                    writer.finish(entry, outcome="api-error" if failed else "withdrawn")


async def test_ctrl_end_goes_past_a_run_by_counting_it_not_reading_it(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    """A run of a million ids must not take 5,000 reads before the next row shows."""
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        write_long_run(flow_app, chunk=500)
        # The live look notices the writes (another process's, to it) and reads the
        # journal again from its first page: let it, before paging past the run.
        live = flow_app.local_live
        assert live is not None
        await live.feed.rounds(2)
        await to_journal(pilot)
        first = rows(flow_app)
        assert len(first) == 1 and first[0][3].endswith("+ ids, run #1")
        await pilot.press("ctrl+end")
        # The older rows come from a read ctrl+end starts after the cursor moves.
        await until(lambda: len(rows(flow_app)) == 3, pilot)
        run_row, mid, old = rows(flow_app)
        assert run_row[3:5] == ["▸ 1000 ids, run #1", "900 withdrawn, 100 api-error"]
        # The run's older chunk was counted in SQL, never read entry by entry.
        group = table(flow_app)._runs["run:1"]
        assert group.count == 1000 and len(group._seen) <= 500
        assert mid[3] == "rl-mid -> OFF" and old[3] == "rl-old -> OFF"
        await pilot.press("m")  # nothing older: said, nothing added
        await settle(pilot)
        assert len(rows(flow_app)) == 3
