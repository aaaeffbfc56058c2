"""The Journal screen's filter dialog (``F``): each field narrows the rows (#14 item 12)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import Operation, dimension_target, limiter_target
from bottui.store.utc import system_clock
from bottui.tui.app import BottuiApp
from bottui.tui.screens.journal_dialogs import FilterDialog
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle
from tests.tui.test_journal import table, to_journal

Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]

#: (project, operation, target, outcome, operator, hours ago, reason)
ENTRIES: tuple[tuple[str, str, dict[str, str], str, str, float, str | None], ...] = (
    ("docs-site", Operation.SET_LIMITER_ACTIVE, limiter_target("rl-crawl"), "api-error",
     "alice", 24, None),
    ("shop-prod", Operation.SET_THRESHOLDS, dimension_target("bot-score"), "ok",
     "alice", 5, "INC-4312 bot wave"),
    ("shop-prod", Operation.REVOKE_GRANT, {"visitorId": "vis_1"}, "withdrawn",
     "bob", 0.5, None),
    ("shop-prod", Operation.SET_LIMITER_ACTIVE, limiter_target("rl-login"), "ok",
     "oncall", 0, None),
)  # fmt: skip


def write_entries(app: BottuiApp) -> None:
    """ENTRIES, at their times and by their operators (ids 1-4, oldest first)."""
    now = (app.session.clock or system_clock)()
    for project, operation, target, outcome, operator, hours, reason in ENTRIES:
        moment = now - timedelta(hours=hours)
        journal = Journal(app.session.locations.journal_file, clock=lambda m=moment: m)
        with journal:
            entry = journal.start(
                profile="demo",
                base_url=app.session.base_url,
                operation=operation,
                account=DEMO_ACCOUNT,
                project=project,
                target=target,
                request_body={"isActive": False} if "rate_limiter_id" in target else None,
                operator=operator,
                reason=reason,
            )
            journal.finish(entry, outcome=outcome, status=200 if outcome == "ok" else 404)


def shown(app: BottuiApp) -> list[str]:
    """The ids of the rows shown."""
    return [str(entry.id) for entry in table(app).entries]


async def filter_with(pilot: Pilot[Any], **fields: str | None) -> FilterDialog:
    """Open the dialog (F), set the fields given, press Filter; returns the dialog."""
    await pilot.press("F")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, FilterDialog)
    for name, value in fields.items():
        widget = dialog.query_one(f"#filter-{name.replace('_', '-')}")
        if isinstance(widget, Select):
            widget.value = Select.NULL if value is None else value
        else:
            assert isinstance(widget, Input)
            widget.value = value or ""
    await pilot.pause()
    await pilot.click("#apply")
    await settle(pilot)
    return dialog


async def test_the_filter_dialog_narrows_by_each_field(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        write_entries(flow_app)
        await to_journal(pilot)
        assert shown(flow_app) == ["4", "3", "2"]  # shop-prod, the current project
        await filter_with(pilot, operation=Operation.SET_THRESHOLDS)
        assert shown(flow_app) == ["2"]
        await filter_with(pilot, operation=None, project="all", outcome="failed")
        assert shown(flow_app) == ["1"]
        await filter_with(pilot, project="current", outcome="withdrawn")
        assert shown(flow_app) == ["3"]
        await filter_with(pilot, outcome=None, operator="alice")
        assert shown(flow_app) == ["2"]
        await filter_with(pilot, operator="", since="1h")
        assert shown(flow_app) == ["4", "3"]
        await filter_with(pilot, since="", until="1h")
        assert shown(flow_app) == ["2"]
        line = plain(flow_app.screen.query_one("#journal-filters", Static))
        assert "From the start to " in line
        await filter_with(pilot, until="", reason="inc-4312")
        assert shown(flow_app) == ["2"]
        await filter_with(pilot, reason="", project_id="docs-site")
        assert shown(flow_app) == ["1"]
        assert "docs-site (any account)" in plain(
            flow_app.screen.query_one("#journal-filters", Static)
        )
        # A time that is not one is said in the dialog; nothing changes.
        dialog = await filter_with(pilot, since="yesterday")
        assert flow_app.screen is dialog
        assert "not an ISO 8601 time" in plain(dialog.query_one("#filter-problem", Static))
        await pilot.click("#clear")
        await settle(pilot)
        assert shown(flow_app) == ["4", "3", "2"]


def test_snapshot_filter_dialog(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        write_entries(pilot.app)  # type: ignore[arg-type]
        await to_journal(pilot)
        await pilot.press("F")
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, FilterDialog)
        dialog.query_one("#filter-operator", Input).value = "alice"
        dialog.query_one("#filter-since", Input).value = "2h"
        await pilot.pause()

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)
