"""Two bulk runs of one file are two Journal rows, each with its own reason (#27 item 5)."""

from __future__ import annotations

from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_records import Operation
from bottui.tui.app import BottuiApp
from tests.fixtures.stores import journal_of
from tests.tui.helpers import settle
from tests.tui.test_journal import rows, to_journal

PROJ = "shop-prod"


def write_runs(app: BottuiApp) -> None:
    """The same input run twice (no resume), then the second resumed with another reason."""
    with journal_of(app.session) as journal:
        plan = (("INC-3107 stuffing", False, 5), ("INC-3107 second pass", False, 3))
        for reason, resume, size in (*plan, ("INC-3107 resumed", True, 1)):
            run = journal.run(
                profile="demo",
                account=DEMO_ACCOUNT,
                project=PROJ,
                input_sha256="cd" * 32,
                operation=Operation.REVOKE_GRANT,
                resume=resume,
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
                    reason=reason,
                )
                journal.finish(entry, outcome="withdrawn", status=200)


async def test_two_runs_of_one_file_are_two_rows(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        write_runs(flow_app)
        await to_journal(pilot)
        runs = [row for row in rows(flow_app) if row[2] == "bulk revoke"]
        assert len(runs) == 2, rows(flow_app)
        newest, oldest = runs
        # The second run and its resume: one run, 4 ids, both reasons counted.
        assert newest[3].startswith("▸ 4 ids, run #") and newest[4] == "4 withdrawn"
        assert newest[5].startswith("(2 reasons) INC-3107")  # Why follows Outcome
        assert oldest[3].startswith("▸ 5 ids, run #") and oldest[4] == "5 withdrawn"
        assert oldest[5] == "INC-3107 stuffing"
        assert newest[3] != oldest[3]


def test_a_teammates_run_and_mine_of_one_number_are_two_rows() -> None:
    from msgspec.structs import replace

    from bottui.tui.screens.journal_dialogs import RunGroup
    from tests.ops.test_entry_refs import MINE, THEIRS

    mine, theirs = RunGroup(MINE), RunGroup(THEIRS)
    assert mine.add(MINE) and theirs.add(THEIRS)
    # Same run number, same entry id 7: two runs, each counting its own.
    assert not mine.add(replace(MINE)) and theirs.add(replace(THEIRS, local_id=18, id=8))
    cells = theirs.cells(with_project=False)
    assert "run 3f2a9c1b:1" in cells[3].plain and "2 ids" in cells[3].plain
