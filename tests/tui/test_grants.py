"""The Grants screen: snapshots (in-process sandbox) and flows (loopback sandbox)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from bottui.api.models import Revocation
from bottui.api.tokens import AccessToken
from bottui.sandbox.demo_data import (
    DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION,
    DEMO_ACCOUNT,
    HOSTILE_PROJECT_ID,
    HOSTILE_USER_ACCOUNT_ID,
    HOSTILE_VISITOR_ID,
)
from bottui.sandbox.endpoints import ConnectionDropped
from bottui.sandbox.server import SandboxServer
from bottui.tui import key_registry
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import DryRunDialog, ErrorDialog, HelpDialog
from bottui.tui.screens.grants import GrantsScreen
from bottui.tui.widgets.result_panels import (
    OUTCOMES,
    RevocationForm,
    RevocationHistory,
    RevocationRecord,
    RevocationResult,
    notes,
    result_lines,
)
from tests.tui.conftest import SNAP_BASE_URL, SNAP_SIZE, AsgiBackend
from tests.tui.helpers import keys_closing, open_then, plain, settle, until

SMALL = (80, 24)
Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]


class _SocketLike(httpx.AsyncBaseTransport):
    """ASGI in-process, but a dropped connection fails as it does over a socket.

    In-process, the sandbox's mid-response drop surfaces as its own exception;
    over loopback the client sees an httpx protocol error (and retries).
    """

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await self._inner.handle_async_request(request)
        except ConnectionDropped as exc:
            raise httpx.RemoteProtocolError(str(exc), request=request) from None


class DroppingBackend(AsgiBackend):
    """The snapshot backend, with drops that look like a network failure."""

    def transport(self) -> httpx.AsyncBaseTransport:
        return _SocketLike(super().transport())


async def to_grants(pilot: Pilot[Any]) -> GrantsScreen:
    await settle(pilot)
    if pilot.app.current_mode != "grants":
        await pilot.press("3")
        await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, GrantsScreen)
    return screen


async def fill(pilot: Pilot[Any], visitor: str = "", user: str = "") -> None:
    screen = pilot.app.screen
    screen.query_one("#visitor-id", Input).value = visitor
    screen.query_one("#user-account-id", Input).value = user
    await pilot.pause()


async def submit_and_confirm(pilot: Pilot[Any]) -> None:
    """Press the form's button, move from Cancel to Revoke, press it; wait for the answer."""
    await pilot.click("#revoke")
    await until(lambda: isinstance(pilot.app.screen, ConfirmDialog), pilot)
    await keys_closing(pilot, "tab", "enter")


def headline(app: BottuiApp) -> str:
    return plain(app.screen.query_one("#result-headline", Static))


def result_text(app: BottuiApp) -> str:
    return plain(app.screen.query_one("#result-body", Static))


def history(app: BottuiApp) -> list[list[str]]:
    grid = app.screen.query_one(RevocationHistory)
    return [[cell.plain for cell in grid.get_row_at(i)] for i in range(grid.row_count)]


def subjects(sandbox: SandboxServer) -> list[Any]:
    return [r.json for r in sandbox.state.recorder.log]


# -- snapshots -----------------------------------------------------------------


def test_snapshot_empty_form(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await to_grants(pilot)
        assert screen.query_one("#revoke", Button).disabled

    assert snap_compare(
        make_snap_app(start_mode="grants"), terminal_size=SNAP_SIZE, run_before=run_before
    )


def test_snapshot_validation_errors(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await to_grants(pilot)
        await fill(pilot, visitor="v" * 257, user="user\x07-1042")
        visitor_error = plain(screen.query_one("#visitor-id-error", Static))
        user_error = plain(screen.query_one("#user-account-id-error", Static))
        assert "257 characters" in visitor_error and "at most 256" in visitor_error
        assert "control character (U+0007)" in user_error
        assert screen.query_one("#revoke", Button).disabled

    assert snap_compare(
        make_snap_app(start_mode="grants"), terminal_size=SNAP_SIZE, run_before=run_before
    )


def test_snapshot_withdrawn(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await to_grants(pilot)
        await fill(pilot, visitor="vis_7Hq2kP9xLm")
        await submit_and_confirm(pilot)
        assert headline(pilot.app) == "Withdrawn"  # type: ignore[arg-type]

    assert snap_compare(
        make_snap_app(start_mode="grants"), terminal_size=SNAP_SIZE, run_before=run_before
    )


def test_snapshot_nothing_standing_80x24(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await to_grants(pilot)
        await fill(pilot, visitor="vis_7Hq2kP9xLm")
        await submit_and_confirm(pilot)
        await fill(pilot, user="nobody-here")
        await submit_and_confirm(pilot)
        assert headline(pilot.app) == "Nothing was standing — not an error"  # type: ignore[arg-type]

    assert snap_compare(
        make_snap_app(start_mode="grants"), terminal_size=SMALL, run_before=run_before
    )


def test_snapshot_unknown_retried(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    backend = DroppingBackend()
    app = make_snap_app(backend=backend, start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        await to_grants(pilot)
        await fill(pilot, user="user-1042")  # standing: the first attempt withdraws it
        backend.faults.configure(drop_next=1, drop_mode="after")
        await submit_and_confirm(pilot)
        assert [r.dropped for r in backend.state.recorder.log] == [True, False]
        assert headline(app).startswith("Unknown (retried)")
        assert "sent 2 times" in str(app.screen.query_one(RevocationResult).border_subtitle)

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_api_error_toast(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="grants")
    app.session.tokens.set_personal(
        SNAP_BASE_URL, DEMO_ACCOUNT, AccessToken(DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION)
    )

    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await to_grants(pilot)
        await fill(pilot, visitor="vis_7Hq2kP9xLm")
        await submit_and_confirm(pilot)
        # The failure is the panel's latest attempt (#14), the token to fix named.
        assert headline(app).startswith("FAILED: Not allowed")
        assert screen.query_one(RevocationResult).display
        assert history(app)[0][4] == "failed: HTTP 403"

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_hostile_ids(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(hostile=True, start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        app.services.choose_project(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)
        await to_grants(pilot)
        await fill(pilot, visitor=HOSTILE_VISITOR_ID, user=HOSTILE_USER_ACCOUNT_ID)
        await submit_and_confirm(pilot)
        assert headline(app) == "Withdrawn"
        assert HOSTILE_USER_ACCOUNT_ID in result_text(app)
        assert history(app)[0][3] == HOSTILE_USER_ACCOUNT_ID

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_no_project(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await to_grants(pilot)
        pilot.app.services.choose_project(None, None)  # type: ignore[attr-defined]
        await settle(pilot)
        assert "Press 1" in plain(screen.query_one("#grants-empty", Static))
        assert not screen.query_one("#grants-forms").display

    assert snap_compare(
        make_snap_app(start_mode="grants"), terminal_size=SNAP_SIZE, run_before=run_before
    )


# -- flows against the loopback sandbox -------------------------------------------


async def test_revoke_by_visitor_id_typed(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        screen = await to_grants(pilot)
        # Arriving does not put the cursor in a field: 1-5 still switch screens.
        assert not isinstance(grants_app.focused, Input)
        await pilot.press("i")
        assert grants_app.focused is screen.query_one("#visitor-id", Input)
        await pilot.press(*"vis_7Hq2kP9xLm", "enter")
        assert grants_app.focused is screen.query_one("#user-account-id", Input)
        await pilot.press("enter")  # the last field: submits (valid), the dialog asks
        await pilot.pause()
        dialog = grants_app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        assert "visitor id vis_7Hq2kP9xLm" in body and "shop-prod" in body
        assert "user account id" not in body
        await keys_closing(pilot, "tab", "enter")
        assert subjects(sandbox) == [{"subject": {"visitorId": "vis_7Hq2kP9xLm"}}]
        assert headline(grants_app) == "Withdrawn"
        text = result_text(grants_app)
        assert "reportId: rep_" in text and "grantExpiresAt: " in text
        assert "grantRemainingAttempts: 3" in text
        rows = history(grants_app)
        assert len(rows) == 1 and rows[0][2:5] == ["vis_7Hq2kP9xLm", "—", "withdrawn"]
        assert rows[0][5].startswith("rep_")
        # Cleared, ready for the next one.
        assert screen.query_one(RevocationForm).values() == (None, None)


async def test_revoke_by_user_account_id(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await to_grants(pilot)
        await fill(pilot, user="user-1042")
        await submit_and_confirm(pilot)
        assert subjects(sandbox) == [{"subject": {"userAccountId": "user-1042"}}]
        assert headline(grants_app) == "Withdrawn"
        assert "grantRemainingAttempts: 5" in result_text(grants_app)


async def test_revoke_by_both_then_nothing_standing(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await to_grants(pilot)
        await fill(pilot, visitor="vis_Bk41Zr0aQe", user="user-2077")
        await submit_and_confirm(pilot)
        assert headline(grants_app) == "Withdrawn"
        await fill(pilot, visitor="vis_Bk41Zr0aQe", user="user-2077")
        await submit_and_confirm(pilot)
        assert subjects(sandbox) == [
            {"subject": {"visitorId": "vis_Bk41Zr0aQe", "userAccountId": "user-2077"}},
            {"subject": {"visitorId": "vis_Bk41Zr0aQe", "userAccountId": "user-2077"}},
        ]
        assert headline(grants_app) == "Nothing was standing — not an error"
        result = grants_app.screen.query_one("#result-headline", Static)
        assert result.has_class("result-nothing") and not result.has_class("result-withdrawn")
        assert "grantExpiresAt" not in result_text(grants_app)
        assert not any(n.severity == "error" for n in grants_app._notifications)
        assert [row[4] for row in history(grants_app)] == ["nothing standing", "withdrawn"]


async def test_enter_on_confirmation_sends_nothing(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        screen = await to_grants(pilot)
        await fill(pilot, visitor="vis_7Hq2kP9xLm")
        await pilot.click("#revoke")
        await pilot.pause()
        dialog = grants_app.screen
        assert isinstance(dialog, ConfirmDialog)
        await pilot.press("enter")
        await settle(pilot)
        assert grants_app.screen is not dialog and isinstance(grants_app.screen, GrantsScreen)
        assert sandbox.stats.requests == 0
        assert history(grants_app) == []
        assert screen.query_one(RevocationForm).values() == ("vis_7Hq2kP9xLm", None)


async def test_live_validation_blocks_submit(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        screen = await to_grants(pilot)
        button = screen.query_one("#revoke", Button)
        assert button.disabled  # both empty
        await fill(pilot, visitor="v" * 256)
        assert not button.disabled
        assert not screen.query_one("#visitor-id-error", Static).display
        await fill(pilot, visitor="v" * 257)
        assert button.disabled
        assert screen.query_one("#visitor-id-error", Static).display
        await fill(pilot, visitor="ok", user="x\x1b[2J")
        assert button.disabled
        assert "control character (U+001B)" in plain(
            screen.query_one("#user-account-id-error", Static)
        )
        # Enter in the last field does nothing while invalid.
        screen.query_one("#user-account-id", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert grants_app.screen is screen
        # A surrounding space is allowed but pointed out.
        await fill(pilot, visitor="vis_7Hq2kP9xLm ")
        note = screen.query_one("#visitor-id-error", Static)
        assert note.display and note.has_class("field-note") and "space" in plain(note)
        assert not button.disabled
        assert sandbox.stats.requests == 0


async def test_api_error_toast_and_details(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    grants_app.session.tokens.set_personal(
        sandbox.base_url, DEMO_ACCOUNT, AccessToken(DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION)
    )
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        screen = await to_grants(pilot)
        await fill(pilot, visitor="vis_7Hq2kP9xLm")
        await submit_and_confirm(pilot)
        assert sandbox.stats.requests == 1
        toast = next(n for n in grants_app._notifications if n.severity == "error")
        assert "Not allowed" in toast.title and "press e for details" in toast.message
        assert headline(grants_app).startswith("FAILED: Not allowed")
        assert history(grants_app)[0][4] == "failed: HTTP 403"
        # The values stay, to retry once the token is fixed.
        assert screen.query_one(RevocationForm).values() == ("vis_7Hq2kP9xLm", None)
        await open_then(pilot, "e", "enter")  # the error log, then its newest error
        await pilot.pause()
        dialog = grants_app.screen
        assert isinstance(dialog, ErrorDialog)
        fields = {
            key: plain(dialog.query_one(f".error-{key}", Static))
            for key in ("status", "message", "code", "type")
        }
        assert fields["status"] == "status: 403"
        assert all(value.split(": ", 1)[1] for value in fields.values())


async def test_palette_focus_form(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        assert flow_app.current_mode == "limiters"
        command = next(
            c for c in key_registry.commands(flow_app) if c.title == "Grants: Revoke form"
        )
        command.run()
        await settle(pilot)
        screen = flow_app.screen
        assert isinstance(screen, GrantsScreen)
        assert flow_app.focused is screen.query_one("#visitor-id", Input)
        await pilot.press("escape")
        assert not isinstance(flow_app.focused, Input)
        await pilot.press("1")
        await until(lambda: flow_app.current_mode == "projects", pilot)


async def test_dry_run_shows_request_and_sends_nothing(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await to_grants(pilot)
        await pilot.press("D")
        await fill(pilot, visitor="vis_7Hq2kP9xLm", user="user-1042")
        await pilot.click("#revoke")
        await pilot.pause()
        dialog = grants_app.screen
        assert isinstance(dialog, DryRunDialog)
        text = plain(dialog.query_one("#dry-run", Static))
        assert "POST" in text and "grant-revocations" in text
        assert '"visitorId": "vis_7Hq2kP9xLm"' in text and "pat_demo" not in text
        await pilot.press("enter")
        await settle(pilot)
        assert sandbox.stats.requests == 0
        assert history(grants_app) == []


async def test_help_lists_every_key(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await to_grants(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        dialog = grants_app.screen
        assert isinstance(dialog, HelpDialog)
        rows = [plain(row) for row in dialog.query(".help-row").results(Static)]
        assert any(row.split()[:1] == ["i"] and "Revoke form" in row for row in rows), rows
        assert any("Leave field" in row for row in rows), rows


def test_outcome_words_and_optional_fields() -> None:
    moment = datetime(2026, 11, 21, 3, 0, tzinfo=UTC)
    cases = {
        True: ("Withdrawn", "result-withdrawn"),
        False: ("Nothing was standing — not an error", "result-nothing"),
        None: ("Unknown: the service did not say", "result-unknown"),
    }
    for revoked, (words, css) in cases.items():
        revocation = Revocation(revoked=revoked, report_id="rep_1")
        headline_words, _, klass = OUTCOMES[revocation.outcome]
        assert (headline_words, klass) == (words, css)
        record = RevocationRecord(moment, "acme", "p", "v", None, revocation)
        text = "\n".join(line.plain for line in result_lines(record))
        assert "reportId: rep_1" in text
        assert "grantExpiresAt" not in text and "grantRemainingAttempts" not in text
    retried = Revocation(revoked=False, retried_ambiguous=True, attempts=2)
    assert OUTCOMES[retried.outcome][0].startswith("Unknown (retried): an earlier attempt")
    record = RevocationRecord(moment, "acme", "p", None, "u", retried, journal_id=7)
    assert notes(record) == "sent 2 times · journal #7"
    assert "reportId" not in "\n".join(line.plain for line in result_lines(record))
    failed = RevocationRecord(moment, "acme", "p", "v", None, error="HTTP 403")
    assert failed.outcome_words == "failed: HTTP 403"
