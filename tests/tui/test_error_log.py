"""Honest result panels and findable errors (#14 items 1 and 9).

The result panel shows the current project's latest attempt, a failure
included; every error reported goes to the error log (``e``), newest first,
and a refused token is named with the keys that fix it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from bottui.api.errors import ApiError, ErrorObject, NetworkError
from bottui.api.tokens import AccessToken
from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION, DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.error_report import Attempt, ErrorLog, token_hint
from bottui.tui.screens.dialogs import ErrorDialog, ErrorLogScreen
from bottui.tui.widgets.result_panels import RevocationResult
from tests.tui.conftest import SNAP_BASE_URL, SNAP_SIZE
from tests.tui.helpers import plain, settle, until
from tests.tui.test_grants import (
    fill,
    headline,
    history,
    result_text,
    submit_and_confirm,
    to_grants,
)

Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]
AT = datetime(2026, 11, 21, 3, 0, 0, tzinfo=UTC)


def log_rows(app: BottuiApp) -> list[list[str]]:
    table = app.screen.query_one("#error-log-table", DataTable)
    return [[cell.plain for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def withdraw_then_fail(pilot: Pilot[Any], faults: Any) -> None:
    """Revoke one id (withdrawn), then make the next revocation fail with a 500."""
    await to_grants(pilot)
    await fill(pilot, visitor="vis_7Hq2kP9xLm")
    await submit_and_confirm(pilot)
    assert headline(pilot.app) == "Withdrawn"  # type: ignore[arg-type]
    faults.configure(fail_next=1, error_status=500)
    await fill(pilot, visitor="vis_second_id")
    await submit_and_confirm(pilot)


# -- item 1: the panel is the latest attempt ------------------------------------------


async def test_a_failure_replaces_withdrawn(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await withdraw_then_fail(pilot, sandbox.faults)
        # Before: the panel still said "Withdrawn ... vis_7Hq2kP9xLm".
        assert headline(grants_app).startswith("FAILED: The service failed (500)")
        body = result_text(grants_app)
        assert "vis_second_id" in body and "vis_7Hq2kP9xLm" not in body
        assert "e: the error log" in body
        assert history(grants_app)[0][4] == "failed: HTTP 500"
        # Another project: its own latest attempt (none), not this one's.
        grants_app.services.choose_project(DEMO_ACCOUNT, "shop-staging")
        await settle(pilot)
        assert not grants_app.screen.query_one(RevocationResult).display
        grants_app.services.choose_project(DEMO_ACCOUNT, "shop-prod")
        await settle(pilot)
        assert headline(grants_app).startswith("FAILED")


def test_snapshot_result_after_failure(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        await withdraw_then_fail(pilot, app.backend.faults)  # type: ignore[attr-defined]
        assert headline(app).startswith("FAILED")
        app.clear_notifications()  # the panel itself, not the toast over it
        await pilot.pause()

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


# -- item 9: the error log -------------------------------------------------------------


async def test_error_log_lists_newest_first_and_opens_one(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await withdraw_then_fail(pilot, sandbox.faults)
        sandbox.faults.configure(fail_next=1, error_status=500)
        await fill(pilot, visitor="vis_third_id")
        await submit_and_confirm(pilot)  # another failure, newer
        await pilot.press("e")
        await until(lambda: isinstance(grants_app.screen, ErrorLogScreen), pilot)
        rows = log_rows(grants_app)
        assert [row[4].rsplit(" ", 1)[1] for row in rows] == ["vis_third_id", "vis_second_id"]
        _, outcome, status, operation, target, message, url = rows[1]
        assert status == "500"
        assert outcome == "failed" and operation == "Revoke grant"
        assert target == "acme / shop-prod · visitor id vis_second_id"
        assert message.startswith("The service failed (500)")
        assert url.startswith("http://127.0.0.1:") and "shop-prod" in url
        await pilot.press("enter")
        await pilot.pause()
        dialog = grants_app.screen
        assert isinstance(dialog, ErrorDialog)
        assert "status: 500" in plain(dialog.query_one(".error-status", Static))
        assert "vis_third_id" in plain(dialog.query_one("#error-where", Static))
        where = plain(dialog.query_one("#error-where", Static))
        assert "Operation: Revoke grant" in where and "URL: " in where
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(grants_app.screen, ErrorLogScreen | ErrorDialog)


async def test_error_log_empty_says_so(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await until(lambda: isinstance(grants_app.screen, ErrorLogScreen), pilot)
        assert grants_app.screen.query_one("#error-log-empty").display


def test_snapshot_error_log(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="grants")
    app.session.tokens.set_personal(
        SNAP_BASE_URL, DEMO_ACCOUNT, AccessToken(DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION)
    )

    async def run_before(pilot: Pilot[Any]) -> None:
        await to_grants(pilot)
        await fill(pilot, visitor="vis_7Hq2kP9xLm")
        await submit_and_confirm(pilot)  # 403: the personal token lacks the scope
        app.backend.faults.configure(fail_next=1, error_status=500)  # type: ignore[attr-defined]
        await submit_and_confirm(pilot)
        app.clear_notifications()
        await pilot.press("e")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


async def test_refused_token_is_named_with_its_fix(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    grants_app.session.tokens.set_personal(
        sandbox.base_url, DEMO_ACCOUNT, AccessToken(DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION)
    )
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await to_grants(pilot)
        await fill(pilot, visitor="vis_7Hq2kP9xLm")
        await submit_and_confirm(pilot)
        body = result_text(grants_app)
        assert "The personal access token of account acme" in body
        assert "press 1, highlight the project, then p" in body
        toast = next(n for n in grants_app._notifications if n.severity == "error")
        assert "Fix: press 1, then p (personal access token)." in toast.message


def test_token_hint_words() -> None:
    limiter = Attempt("Switch rate limiter", "acme", "shop-prod", token_kind="project")
    refused = ApiError(401, ErrorObject("bad key", "unauthorized", "authentication_error"))
    hint = token_hint(refused, limiter)
    assert "project API token of project shop-prod" in hint and "then t" in hint
    assert "BOTTUI_API_KEY" in hint
    assert token_hint(ApiError(500, None), limiter) == ""
    assert "t (project API token) or p" in token_hint(refused, None)


def test_log_is_bounded_newest_first_and_unknown_is_not_failed() -> None:
    log = ErrorLog(limit=3)
    for status in (500, 501, 502, 503):
        log.add(ApiError(status, None), AT, None, "op")
    assert [e.status for e in log] == [503, 502, 501]
    entry = log.add(NetworkError("Timed out", ambiguous=True), AT, None, "op")
    assert entry.unknown and len(log) == 3
