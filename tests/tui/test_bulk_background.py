"""A bulk run in the background: other screens work, the header shows it, quit asks, export.

Flows run the loopback sandbox with latency (a few thousand ids, so the run
is still going while the test walks the screens); snapshots use the gated
in-process sandbox of ``test_bulk``.
"""

from __future__ import annotations

import asyncio
import csv
import json
import time
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from bottui.ops.bulk.report import ItemStatus
from bottui.ops.bulk.results import PROBLEMS
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_file import Journal
from bottui.tui.app import BottuiApp
from bottui.tui.screens.bulk_dialogs import BulkExportDialog, BulkRunDialog
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.grants import GrantsScreen
from bottui.tui.ui_rules import ContextBar
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import click_again, plain, settle, until
from tests.tui.test_bulk import (
    SMALL,
    FakeMonotonic,
    GateBackend,
    MakeApp,
    Snap,
    _held_run,
    engine_clock,
    open_bulk,
    paste,
    run_dialog,
    start_and_confirm,
    summary_text,
)

IDS = 3000
__all__ = ["engine_clock"]  # the fixture, for the summary's fixed elapsed time


def header(app: BottuiApp) -> str:
    # The bar of the screen under any dialog.
    bar = next(b for s in reversed(app.screen_stack) for b in s.query(ContextBar))
    return "".join(flag.plain for flag in bar.flags())


async def start_big_run(pilot: Pilot[Any], sandbox: SandboxServer, concurrency: int = 4) -> None:
    """Start a run of IDS ids against a sandbox answering in 250 ms (minutes of work).

    Long enough that no test's walk through the screens outlasts it: at 50 ms
    (a minute's work at 4 in flight) a busy machine's walk saw the run end
    before the test held its requests (run 81 of the load proof).
    """
    sandbox.faults.configure(latency=0.25)
    dialog = await open_bulk(pilot)
    await paste(pilot, "\n".join(f"vis_bg_{n:05d}" for n in range(IDS)))
    dialog.query_one("#bulk-concurrency", Input).value = str(concurrency)
    await pilot.pause()
    await start_and_confirm(pilot)
    await until(lambda: sandbox.stats.requests >= 8, pilot, timeout=60)


async def test_other_screens_work_during_a_run(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await start_big_run(pilot, sandbox)
        assert isinstance(grants_app.screen, BulkRunDialog)
        # Each key's screen change is awaited as a condition: a mode switch composes
        # its screen in a task of its own, which one pause does not wait for on a
        # busy machine.
        await pilot.press("escape")  # hides the run's screen: the run goes on
        await until(lambda: isinstance(grants_app.screen, GrantsScreen), pilot)
        await pilot.press("2")
        await until(lambda: grants_app.current_mode == "limiters", pilot)
        runs = grants_app.services.bulk
        assert runs.active
        done = runs.run.progress.done if runs.run and runs.run.progress else 0
        await until(
            lambda: f"bulk {done:,}/" not in header(grants_app),
            pilot,
            state=lambda: (header(grants_app), runs.run and runs.run.progress, sandbox.stats),
        )
        assert header(grants_app).startswith(" bulk ")
        assert f"{IDS:,}" in header(grants_app)
        # Held from here: the run cannot end before the test stops it (a busy
        # machine's test can outlast the run's minute, as run 12 of the last proof did).
        sandbox.faults.hold_requests()
        await pilot.press("5")
        await until(lambda: grants_app.current_mode == "journal", pilot)
        assert " bulk " in header(grants_app)
        await pilot.press("B")  # the run's screen again, over the current screen
        await until(lambda: isinstance(grants_app.screen, BulkRunDialog), pilot)
        assert runs.active
        run_dialog(grants_app).query_one("#bulk-stop", Button).press()
        sandbox.faults.release()  # the requests in flight answer; nothing new is sent
        await settle(pilot)
        assert not runs.active and runs.run is not None and runs.run.summary is not None
        assert runs.run.summary.interrupted
        # The end was seen on the run's screen: the header no longer speaks of it.
        assert " bulk " not in header(grants_app)


def journal_outcomes(app: BottuiApp) -> dict[str, str | None]:
    """The latest outcome of each visitor id of the app's run (None: unfinished)."""
    run = app.services.bulk.run
    assert run is not None and run.summary is not None
    with Journal(app.session.locations.journal_file) as journal:
        entries = journal.entries(run_id=run.summary.run_id)
        return {e.target.get("visitorId"): e.outcome for e in reversed(entries)}


async def test_quit_asks_then_lets_in_flight_finish(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await start_big_run(pilot, sandbox, concurrency=8)
        await pilot.press("escape", "2")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        ask = grants_app.screen
        assert isinstance(ask, ConfirmDialog)
        assert "in flight finish and their outcomes go to the journal" in plain(
            ask.query_one("#confirm-body", Static)
        )
        await pilot.press("enter")  # Cancel has the focus: the run goes on
        await pilot.pause()
        assert grants_app.return_code is None and grants_app.services.bulk.active
        await pilot.press("q")
        await until(lambda: isinstance(grants_app.screen, ConfirmDialog), pilot)
        await pilot.press("tab", "enter")  # Stop the run and quit
        deadline = time.monotonic() + 60
        while grants_app.return_code is None:
            assert time.monotonic() < deadline, "did not quit"
            await asyncio.sleep(0.05)
    run = grants_app.services.bulk.run
    assert run is not None and run.summary is not None and run.stops == 1
    log = sandbox.state.recorder.log
    received = {record.json["subject"]["visitorId"] for record in log}
    outcomes = journal_outcomes(grants_app)
    assert 8 <= len(received) < IDS
    # In flight finished: no request was cut by the quit (a cut one has no status)...
    assert all(record.status is not None and not record.dropped for record in log), log
    # ...and the journal is honest: every id the sandbox received has its outcome.
    assert all(outcomes[v] in {"withdrawn", "nothing-standing"} for v in received), outcomes
    assert not [v for v, outcome in outcomes.items() if outcome is None]
    assert run.summary.withdrawn + run.summary.nothing_standing == len(received)


async def test_summary_lists_problems_and_exports(
    grants_app: BottuiApp, sandbox: SandboxServer, tmp_path: Path
) -> None:
    ids = [f"vis_ex_{n}" for n in range(6)]
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await open_bulk(pilot)
        await paste(pilot, "\n".join(ids))
        dialog.query_one("#bulk-concurrency", Input).value = "1"
        await pilot.pause()
        # Dropped after sending on every attempt: unknown; then 500s past the retries: failed.
        sandbox.faults.configure(drop_next=2, drop_mode="after", fail_next=10, error_status=500)
        await start_and_confirm(pilot)
        await settle(pilot)
        run = grants_app.services.bulk.run
        assert run is not None and run.summary is not None
        assert run.summary.failed >= 1 and run.summary.unknown >= 1
        problems = {r.subject.visitor_id: r.status.value for r in run.spool.problems}
        text = summary_text(grants_app)
        assert f"Failed and unknown ids ({len(problems)}" in text
        for visitor, status in problems.items():
            assert f"{visitor} · {status}" in text
        target = tmp_path / "out.csv"
        await pilot.click("#bulk-export")
        await pilot.pause()
        export = grants_app.screen
        assert isinstance(export, BulkExportDialog)
        export.query_one("#export-path", Input).value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        rows = list(csv.DictReader(target.open(encoding="utf-8")))
        assert sorted(row["visitorId"] for row in rows) == sorted(ids)
        assert {r["visitorId"]: r["outcome"] for r in rows if r["outcome"] in PROBLEMS} == problems
        assert any("Wrote 6 rows to" in n.message for n in grants_app._notifications)
        # The same name again: asked first, Cancel focused, the file left as it was.
        before = target.read_bytes()
        await click_again(pilot, "#bulk-export")
        await pilot.pause()
        grants_app.screen.query_one("#export-path", Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        await until(lambda: isinstance(grants_app.screen, ConfirmDialog), pilot)
        await pilot.press("enter")  # Cancel
        await settle(pilot)
        export = grants_app.screen
        assert isinstance(export, BulkExportDialog)
        assert "exists: not replaced" in plain(export.query_one("#export-problem", Static))
        assert target.read_bytes() == before
        jsonl = tmp_path / "out.jsonl"
        export.query_one("#export-path", Input).value = str(jsonl)
        await pilot.press("enter")
        await settle(pilot)
        lines = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
        assert sorted(line["visitorId"] for line in lines) == sorted(ids)
        failed = [line for line in lines if line["outcome"] == ItemStatus.FAILED.value]
        assert len(failed) == run.summary.failed and failed[0]["status"] == 500


def test_snapshot_header_during_a_run(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    backend = GateBackend(let_through=3)
    app = make_snap_app(backend=backend, start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        await _held_run(pilot, backend, ids=6, concurrency=2)
        await pilot.press("escape", "2")
        await until(lambda: "bulk 3/6" in header(app), pilot)
        assert app.current_mode == "limiters"

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_header_during_a_run_80x24(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    backend = GateBackend(let_through=3)
    app = make_snap_app(backend=backend, start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        await _held_run(pilot, backend, ids=6, concurrency=2)
        await pilot.press("escape")
        await until(lambda: "bulk 3/6" in header(app), pilot)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_snapshot_summary_with_failed_ids(
    snap_compare: Snap, make_snap_app: MakeApp, engine_clock: FakeMonotonic
) -> None:
    app = make_snap_app(start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        dialog = await open_bulk(pilot)
        await paste(pilot, "vis_fail_a\nvis_7Hq2kP9xLm\nvis_fail_b\n")
        dialog.query_one("#bulk-concurrency", Input).value = "1"
        await pilot.pause()
        app.backend.faults.configure(fail_next=1, error_status=500)  # type: ignore[attr-defined]
        await start_and_confirm(pilot)
        # Whether the run ends before its screen is up is a race: hide the screen,
        # so the end is always the toast's, then show the summary again (B).
        if isinstance(app.screen, BulkRunDialog):
            await pilot.press("escape")
        await settle(pilot)
        await pilot.press("B")
        await pilot.pause()
        assert "Failed and unknown ids (1;" in summary_text(app)

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)
