"""Who and why in the TUI (issue #13): the reason field of every confirmation, the filters."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from bottui.ops import mutations
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog, TypedConfirmDialog
from bottui.tui.screens.journal import JournalScreen
from bottui.tui.screens.journal_dialogs import FilterDialog, JournalTable
from bottui.tui.screens.limiters import LimitersScreen
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle
from tests.tui.test_journal import (  # steady: the fixture, found here by pytest
    PROJ,
    MakeApp,
    Snap,
    rows,
    steady,  # noqa: F401
    to_journal,
)
from tests.tui.test_limiters import select

HOSTILE = "INC-4312 \x1b[31m[b]x[/b] '; DROP TABLE segments; --"


def requests(sandbox: SandboxServer) -> int:
    return len(sandbox.state.recorder.log)


async def test_a_reason_typed_in_the_confirmation_reaches_the_journal(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "rl-search")
        await pilot.press("t")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert flow_app.focused is dialog.query_one("#cancel", Button)  # still the default
        await pilot.press("tab", "tab")  # Confirm, then the reason
        field = dialog.query_one("#reason", Input)
        assert flow_app.focused is field
        field.value = HOSTILE  # as typed or pasted (a paste of ESC is refused: set it)
        await pilot.press("enter")  # Enter in the field moves to the next one (#24)
        assert flow_app.focused is dialog.query_one("#duration", Input)
        await pilot.press("enter")  # an empty last field never sends: on to Confirm
        await pilot.pause()
        assert flow_app.screen is dialog and requests(sandbox) == 0
        assert flow_app.focused is dialog.query_one("#confirm", Button)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(flow_app.screen, LimitersScreen) and requests(sandbox) == 1
        with journal_of(flow_app.session) as journal:
            (entry,) = journal.entries()
        assert entry.reason == HOSTILE and entry.host


async def test_require_reason_refuses_the_confirm_until_one_is_typed(
    flow_app: BottuiApp, sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    toasts: list[str] = []
    shown = flow_app.notify

    def notify(message: str, **options: Any) -> None:
        toasts.append(message)
        shown(message, **options)

    monkeypatch.setattr(flow_app, "notify", notify)
    session = flow_app.session
    session.settings = replace(session.settings, require_reason=True, operator="alice")
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "rl-search")
        await pilot.press("t")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        field = dialog.query_one("#reason", Input)
        assert flow_app.focused is field  # a reason must be typed: the form opens on it
        assert "required" in str(field.placeholder)
        await pilot.press("shift+tab", "enter")  # Confirm without a reason
        await settle(pilot)
        assert flow_app.screen is dialog and field.has_class("-invalid")
        assert any("requires a reason" in toast for toast in toasts)
        assert flow_app.focused is field and requests(sandbox) == 0
        confirm = dialog.query_one("#confirm", Button)
        await pilot.press(*"   ")  # blank is no reason
        await enter_then_confirm(pilot, confirm)
        assert flow_app.screen is dialog and requests(sandbox) == 0
        field.value = "INC-7 stuffing"
        await enter_then_confirm(pilot, confirm)
        assert isinstance(flow_app.screen, LimitersScreen) and requests(sandbox) == 1
        with journal_of(session) as journal:
            (entry,) = journal.entries()
        assert (entry.reason, entry.operator) == ("INC-7 stuffing", "alice")


async def enter_then_confirm(pilot: Any, confirm: Button) -> None:
    """Enter in the reason and in the (empty) duration, the last field: a complete form
    then has Confirm focused, and Enter presses it; an incomplete one goes back to the
    reason and sends nothing."""
    await pilot.press("enter", "enter")
    await settle(pilot)
    if pilot.app.focused is confirm:
        await pilot.press("enter")
        await settle(pilot)


def journal_rows(app: Any) -> list[str]:
    grid = app.screen.query_one(JournalTable)
    return [grid.get_row_at(n)[1].plain for n in range(grid.row_count)]


async def test_the_journal_screen_filters_by_operator_and_reason(flow_app: BottuiApp) -> None:
    session = flow_app.session
    with journal_of(session) as journal:
        for operator, reason in (
            ("alice", "INC-4312 stuffing"),
            ("bob@bastion-2", "inc-4312 follow-up"),
            ("alice", None),
            (HOSTILE, "Été"),
        ):
            journal.start(
                profile=session.settings.inventory_scope,
                base_url=session.base_url,
                operation="limiter.set-active",
                account="acme",
                project="shop-prod",
                target={"rate_limiter_id": "rl-login"},
                request_body={"isActive": False},
                operator=operator,
                reason=reason,
            )
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        assert isinstance(flow_app.screen, JournalScreen)
        assert len(journal_rows(flow_app)) == 4
        await pilot.press("slash")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, FilterDialog)
        await pilot.press(*"alice", "enter")
        await settle(pilot)
        assert journal_rows(flow_app) == ["alice", "alice"]
        await pilot.press("slash")
        await pilot.pause()
        flow_app.screen.query_one("#filter-operator", Input).value = ""
        flow_app.screen.query_one("#filter-reason", Input).value = "INC-4312"
        await pilot.press("enter")
        await settle(pilot)
        assert journal_rows(flow_app) == ["bob@bastion-2", "alice"]
        filters = plain(flow_app.screen.query_one("#journal-filters", Static))
        assert "Reason holds INC-4312 (/, F)" in filters
        await pilot.press("slash")
        await pilot.pause()
        flow_app.screen.query_one("#filter-reason", Input).value = "été"
        await pilot.press("enter")
        await settle(pilot)
        (operator,) = journal_rows(flow_app)
        assert "\x1b" not in operator and "[b]x[/b]" in operator  # shown as text, cleaned
        await pilot.press("slash")
        await pilot.pause()
        await pilot.click("#clear")
        await settle(pilot)
        assert len(journal_rows(flow_app)) == 4


async def test_a_protected_bulk_run_journals_the_reason_of_its_typed_confirmation(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    from tests.tui.test_bulk import NOT_STANDING, STANDING, open_bulk, paste, run_dialog

    session = grants_app.session
    session.settings = replace(session.settings, protected=True, require_reason=True)
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await open_bulk(pilot)
        await paste(pilot, f"{STANDING}\n{NOT_STANDING}\n")
        await pilot.click("#bulk-start")
        await pilot.pause()
        typed = grants_app.screen
        assert isinstance(typed, TypedConfirmDialog)
        field = typed.query_one("#reason", Input)
        assert grants_app.focused is field  # the first field (#24)
        # Enter moves on to the project id, the last field; Enter there finds no reason.
        await pilot.press("enter", *"shop-prod", "enter")
        await settle(pilot)
        assert grants_app.screen is typed and requests(sandbox) == 0
        assert grants_app.focused is field
        field.value = "INC-9 bulk"
        await pilot.press("enter")  # to the project id field, typed already
        assert grants_app.focused is typed.query_one("#typed", Input)
        await pilot.press("enter")  # the last field of a complete form: sent
        await settle(pilot)
        summary = run_dialog(grants_app).summary
        assert summary is not None and requests(sandbox) == 2
    with journal_of(session) as journal:
        entries = journal.entries()
    assert len(entries) == 2 and {e.reason for e in entries} == {"INC-9 bulk"}


@pytest.mark.usefixtures("steady")
def test_snapshot_who_and_why(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    """Reasons in the table (cut short, cleaned) and the who/why filter line (issue #13)."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        session = pilot.app.session  # type: ignore[attr-defined]
        for limiter, state, reason in (
            ("rl-login", False, "INC-4312 credential stuffing on /login from 3 ASNs"),
            ("rl-search", True, "scraping \x1b[31m[b]x[/b]"),
            ("rl-login", True, "INC-4312 rollback: false positive"),
        ):
            await mutations.set_limiter(
                session, DEMO_ACCOUNT, PROJ, limiter, state, confirmed=True, reason=reason
            )
        await to_journal(pilot)
        assert [r[5] for r in rows(pilot.app)] == [  # Why, after Outcome (#27)
            "INC-4312 rollback: fals…",
            "scraping \ufffd[31m[b]x[/b]",  # ESC shown as U+FFFD, markup as text
            "INC-4312 credential stu…",
        ]
        await pilot.press("slash")
        await pilot.pause()
        pilot.app.screen.query_one("#filter-reason", Input).value = "inc-4312"
        await pilot.press("enter")
        await settle(pilot)
        assert len(rows(pilot.app)) == 2

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)
