"""Bulk revocation in the Grants screen, and the read-only banner.

Snapshots run the sandbox in-process; the run is held mid-way by a gate in
the transport (the first N requests pass, the rest wait until released), and
the engine's monotonic clock is replaced, so rate, ETA and elapsed time are
the same on every machine. Flows run against the loopback sandbox, held with
its ``hold`` fault, and count what it received.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import msgspec
import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, Static, TextArea

import bottui.ops.bulk.report
from bottui.ops.bulk.input import InvalidLine
from bottui.ops.bulk.report import BulkProgress, BulkSummary, ItemStatus
from bottui.sandbox.server import SandboxServer
from bottui.tui import key_registry
from bottui.tui.app import BottuiApp
from bottui.tui.screens.base import READ_ONLY_BANNER
from bottui.tui.screens.bulk_dialogs import BOTH, STOPPING, BulkDialog, BulkRunDialog
from bottui.tui.screens.change_form import ConfirmDialog, TypedConfirmDialog
from bottui.tui.screens.dialogs import DryRunDialog, HelpDialog
from bottui.tui.screens.grants import GrantsScreen
from bottui.tui.widgets.bulk_words import counts_line, progress_line, state_line, summary_lines
from bottui.tui.widgets.untrusted_text import forbidden_in_paste
from tests.tui.conftest import SNAP_SIZE, AsgiBackend
from tests.tui.helpers import keys_closing, plain, settle, until

SMALL = (80, 24)
Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]

STANDING = "vis_7Hq2kP9xLm"  # a demo grant stands on it in shop-prod
NOT_STANDING = "vis_nobody_here"
TOO_LONG = "v" * 300
THREE = f"{STANDING}\n{NOT_STANDING}\n{TOO_LONG}\n"


# -- helpers -------------------------------------------------------------------------


class FakeMonotonic:
    """The engine's clock for snapshots: time moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def engine_clock(monkeypatch: pytest.MonkeyPatch) -> FakeMonotonic:
    fake = FakeMonotonic()
    clock = SimpleNamespace(monotonic=fake.monotonic, perf_counter=time.perf_counter)
    monkeypatch.setattr(bottui.ops.bulk.report, "time", clock)
    return fake


class _GateTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, backend: GateBackend) -> None:
        self._inner = inner
        self._backend = backend

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        backend = self._backend
        backend.arrived += 1
        if backend.arrived > backend.let_through:
            backend.held += 1
            try:
                await backend.gate.wait()
            finally:
                backend.held -= 1
        return await self._inner.handle_async_request(request)


class GateBackend(AsgiBackend):
    """The in-process sandbox; requests after the first ``let_through`` wait at a gate."""

    def __init__(self, let_through: int) -> None:
        super().__init__()
        self.let_through = let_through
        self.arrived = 0
        self.held = 0
        self.gate = asyncio.Event()

    def transport(self) -> httpx.AsyncBaseTransport:
        return _GateTransport(super().transport(), self)


async def open_bulk(pilot: Pilot[Any]) -> BulkDialog:
    await settle(pilot)
    if pilot.app.current_mode != "grants":
        await pilot.press("3")
        await settle(pilot)
    assert isinstance(pilot.app.screen, GrantsScreen)
    await pilot.press("b")
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, BulkDialog)
    return dialog


async def paste(pilot: Pilot[Any], text: str) -> None:
    """Paste as a terminal does (bracketed paste: one event to the app, for the focused field)."""
    assert pilot.app.focused is not None
    pilot.app.post_message(events.Paste(text))
    await settle(pilot)


def preview(dialog: BulkDialog) -> str:
    return plain(dialog.query_one("#bulk-preview", Static))


async def start_and_confirm(pilot: Pilot[Any]) -> None:
    """Start, move from Cancel to the confirm button, press it."""
    await pilot.click("#bulk-start")
    await until(lambda: isinstance(pilot.app.screen, ConfirmDialog), pilot)
    await pilot.press("tab", "enter")
    await pilot.pause()


def run_dialog(app: App[Any]) -> BulkRunDialog:
    screen = app.screen
    assert isinstance(screen, BulkRunDialog)
    return screen


def summary_text(app: App[Any]) -> str:
    return plain(run_dialog(app).query_one("#bulk-summary", Static))


async def stop_run(pilot: Pilot[Any]) -> None:
    """Press the run screen's Stop button (escape only hides the screen now).

    Then wait out the button's pressed look (Textual's ``-active`` class, 0.2 s):
    a snapshot taken during it or after it would differ by one colour.
    """
    button = run_dialog(pilot.app).query_one("#bulk-stop", Button)
    button.press()
    await pilot.pause()
    deadline = time.monotonic() + 60
    while button.has_class("-active") and time.monotonic() < deadline:
        await pilot.pause(0.05)


def bodies(sandbox: SandboxServer) -> list[Any]:
    return [r.json for r in sandbox.state.recorder.log]


def with_settings(app: BottuiApp, **changes: Any) -> BottuiApp:
    session = app.session
    session.update_settings(msgspec.structs.replace(session.settings, **changes))
    return app


# -- snapshots -------------------------------------------------------------------------


def _paste_three() -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        dialog = await open_bulk(pilot)
        await paste(pilot, THREE)
        assert preview(dialog).startswith("3 lines: 2 ids to revoke · 1 invalid line")
        assert "line 3: visitor id: is 300 characters long" in preview(dialog)
        assert plain(dialog.query_one("#bulk-start", Button)) == "Revoke 2 grants…"

    return run_before


def test_snapshot_paste_preview(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="grants")
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=_paste_three())


def test_snapshot_paste_preview_80x24(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="grants")
    assert snap_compare(app, terminal_size=SMALL, run_before=_paste_three())


async def _held_run(pilot: Pilot[Any], backend: GateBackend, ids: int, concurrency: int) -> None:
    """Start a run of ``ids`` ids (plus one invalid line); wait until the gate holds it."""
    await open_bulk(pilot)
    lines = [f"vis_held_{n:02d}" for n in range(ids)]
    lines.insert(1, TOO_LONG)
    await paste(pilot, "\n".join(lines))
    await pilot.pause()
    dialog = pilot.app.screen
    dialog.query_one("#bulk-concurrency", Input).value = str(concurrency)
    await pilot.pause()
    await start_and_confirm(pilot)
    answered = backend.state.recorder
    await until(
        lambda: backend.held == concurrency and len(answered.log) == backend.let_through,
        pilot,
    )


def test_snapshot_progress(
    snap_compare: Snap, make_snap_app: MakeApp, engine_clock: FakeMonotonic
) -> None:
    backend = GateBackend(let_through=3)
    app = make_snap_app(backend=backend, start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        await _held_run(pilot, backend, ids=6, concurrency=2)
        engine_clock.now += 2.0  # 3 answered in 2 s: 1.5 ids/s, 3 left: ETA 2s
        line = run_dialog(app).query_one("#bulk-line", Static)
        await until(lambda: "1.5 ids/s" in plain(line), pilot)
        assert plain(line) == "3 / 6 ids · 1.5 ids/s · ETA 2s · 2 in flight"
        counts = plain(run_dialog(app).query_one("#bulk-counts", Static))
        assert counts == (
            "withdrawn 0 · nothing standing 3 · unknown 0 · failed 0 · invalid lines 1"
        )
        # Hide has the focus: Enter leaves the run going.
        assert app.focused is run_dialog(app).query_one("#bulk-hide", Button)

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_stopping_80x24(
    snap_compare: Snap, make_snap_app: MakeApp, engine_clock: FakeMonotonic
) -> None:
    backend = GateBackend(let_through=2)
    app = make_snap_app(backend=backend, start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        await _held_run(pilot, backend, ids=5, concurrency=2)
        await stop_run(pilot)
        dialog = run_dialog(app)
        assert plain(dialog.query_one("#bulk-stop", Button)) == STOPPING
        state = plain(dialog.query_one("#bulk-state", Static))
        assert state.startswith("Stopping: no new ids are taken; the 2 requests in flight")

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_snapshot_summary(
    snap_compare: Snap, make_snap_app: MakeApp, engine_clock: FakeMonotonic
) -> None:
    app = make_snap_app(start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        await _paste_three()(pilot)
        await start_and_confirm(pilot)
        await settle(pilot)
        text = summary_text(app)
        assert text.startswith("Done in 0s: 2 ids.")
        assert re.search(r"withdrawn: +1\n  nothing was standing: +1\n", text), text

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_stopped_summary_80x24(
    snap_compare: Snap, make_snap_app: MakeApp, engine_clock: FakeMonotonic
) -> None:
    backend = GateBackend(let_through=2)
    app = make_snap_app(backend=backend, start_mode="grants")

    async def run_before(pilot: Pilot[Any]) -> None:
        await _held_run(pilot, backend, ids=5, concurrency=2)
        await stop_run(pilot)
        engine_clock.now += 3.0
        backend.gate.set()
        await settle(pilot)
        text = summary_text(app)
        assert text.startswith("Stopped after 3s: 5 ids read before the stop.")
        assert "Interrupted: the requests in flight finished and were recorded." in text
        assert run_dialog(app).query_one("#bulk-resume-run").display

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_snapshot_read_only_banner(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = with_settings(make_snap_app(start_mode="grants"), read_only=True)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        banner = pilot.app.screen.query_one("#readonly-banner", Static)
        assert banner.display and plain(banner) == READ_ONLY_BANNER

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_read_only_banner_80x24(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = with_settings(make_snap_app(), read_only=True)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        assert pilot.app.current_mode == "limiters"
        assert pilot.app.screen.query_one("#readonly-banner").display

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


# -- flows against the loopback sandbox ----------------------------------------------------


async def test_paste_confirm_and_summary(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await open_bulk(pilot)
        assert grants_app.focused is dialog.query_one("#bulk-text", TextArea)
        await paste(pilot, THREE)
        await pilot.click("#bulk-start")
        await pilot.pause()
        confirm = grants_app.screen
        assert isinstance(confirm, ConfirmDialog)
        body = plain(confirm.query_one("#confirm-body", Static))
        assert "2 ids from pasted text" in body and "shop-prod" in body and "acme" in body
        assert "1 invalid line will not be sent" in body
        await pilot.press("enter")  # focus is on Cancel: back to the dialog, input intact
        await pilot.pause()
        assert grants_app.screen is dialog and sandbox.stats.requests == 0
        assert dialog.query_one("#bulk-text", TextArea).text == THREE
        await start_and_confirm(pilot)
        await settle(pilot)
        summary = run_dialog(grants_app).summary
        assert summary is not None
        assert (summary.withdrawn, summary.nothing_standing, summary.unknown) == (1, 1, 0)
        assert (summary.failed, summary.invalid_count, summary.interrupted) == (0, 1, False)
        assert sorted(b["subject"]["visitorId"] for b in bodies(sandbox)) == sorted(
            [STANDING, NOT_STANDING]
        )
        assert sandbox.stats.requests == 2
        text = summary_text(grants_app)
        assert "line 3: visitor id: is 300 characters long" in text
        assert f"Journal: run #{summary.run_id}" in text
        assert not run_dialog(grants_app).query_one("#bulk-resume-run").display
        await pilot.press("escape")
        await until(lambda: isinstance(grants_app.screen, GrantsScreen), pilot)
        # Every id settled: the next dialog opens empty.
        dialog = await open_bulk(pilot)
        assert dialog.query_one("#bulk-text", TextArea).text == ""


async def test_stop_held_run_then_resume(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    ids = [f"vis_stop_{n}" for n in range(6)]
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await open_bulk(pilot)
        await paste(pilot, "\n".join([STANDING, *ids]))
        dialog.query_one("#bulk-concurrency", Input).value = "2"
        await pilot.pause()
        sandbox.faults.configure(hold=True)
        await start_and_confirm(pilot)
        assert await sandbox.faults.wait_until_held_async(2)
        await stop_run(pilot)
        run = run_dialog(grants_app)
        assert plain(run.query_one("#bulk-stop", Button)) == STOPPING
        assert run.background.engine.stopping
        sandbox.faults.release()
        await settle(pilot)
        summary = run.summary
        assert summary is not None and summary.interrupted
        assert summary.withdrawn + summary.nothing_standing == 2
        assert summary.not_sent == summary.total - 2 and summary.unknown == 0
        await asyncio.sleep(0.2)
        assert sandbox.stats.requests == 2  # nothing new after the stop
        assert "Interrupted: the requests in flight finished" in summary_text(grants_app)
        # Resume sends only what is not settled, after the same confirmation.
        await pilot.click("#bulk-resume-run")
        await pilot.pause()
        confirm = grants_app.screen
        assert isinstance(confirm, ConfirmDialog)
        assert "settled (2 last time) are skipped" in plain(
            confirm.query_one("#confirm-body", Static)
        )
        await keys_closing(pilot, "tab", "enter")
        again = run_dialog(grants_app).summary
        assert again is not None and not again.interrupted
        assert again.skipped == 2 and again.nothing_standing == 5 and again.not_sent == 0
        assert sandbox.stats.requests == 7  # each of the 7 ids sent once in all
        assert len({str(b) for b in bodies(sandbox)}) == 7


async def test_second_stop_abandons_in_flight(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await open_bulk(pilot)
        await paste(pilot, "\n".join(f"vis_gone_{n}" for n in range(4)))
        dialog.query_one("#bulk-concurrency", Input).value = "2"
        await pilot.pause()
        sandbox.faults.configure(hold=True)
        await start_and_confirm(pilot)
        assert await sandbox.faults.wait_until_held_async(2)
        await stop_run(pilot)
        await stop_run(pilot)
        await settle(pilot)  # ends while both requests are still held
        run = run_dialog(grants_app)
        summary = run.summary
        assert summary is not None and summary.interrupted
        assert summary.unknown == 2 and summary.not_sent == 2
        assert "the requests in flight were abandoned" in summary_text(grants_app)
        assert run.query_one("#bulk-resume-run").display
        sandbox.faults.release()


async def test_read_only_refuses_with_nothing_sent(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    with_settings(grants_app, read_only=True)
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        # Refused before the dialog opens: no ids are pasted for nothing (#14 item 12).
        assert isinstance(grants_app.screen, GrantsScreen)
        toast = next(n for n in grants_app._notifications if n.severity == "error")
        assert toast.title == "Read-only profile"
        assert sandbox.stats.requests == 0
        assert grants_app.screen.query_one("#readonly-banner").display


async def test_no_token_fails_before_sending(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    grants_app.session.tokens.delete_personal(sandbox.base_url, "acme")
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await open_bulk(pilot)
        await paste(pilot, THREE)
        await start_and_confirm(pilot)
        await settle(pilot)
        run = run_dialog(grants_app)
        assert run.background.failure is not None and run.summary is None
        text = summary_text(grants_app)
        assert text.startswith("No personal access token") and text.endswith("Nothing was sent.")
        assert plain(run.query_one("#bulk-run-title", Static)) == "Bulk revocation failed"
        assert not run.query_one("#bulk-resume-run").display
        toast = next(n for n in grants_app._notifications if n.severity == "error")
        assert toast.title == "No personal access token"
        assert sandbox.stats.requests == 0
        await pilot.press("escape")
        await until(lambda: isinstance(grants_app.screen, GrantsScreen), pilot)


async def test_protected_needs_project_id_typed(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    with_settings(grants_app, protected=True)
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await open_bulk(pilot)
        await paste(pilot, f"{STANDING}\n")
        await pilot.click("#bulk-start")
        await pilot.pause()
        typed = grants_app.screen
        assert isinstance(typed, TypedConfirmDialog)
        confirm = typed.query_one("#confirm", Button)
        await pilot.press("enter")  # the reason (#24: the form's first field) to the id
        await pilot.press(*"shop-pro")
        assert confirm.disabled
        await pilot.press("enter")  # not the id yet: nothing is confirmed
        await pilot.pause()
        assert sandbox.stats.requests == 0 and grants_app.screen is typed
        await pilot.press("d", "enter")  # the id typed: Enter confirms
        await settle(pilot)
        summary = run_dialog(grants_app).summary
        assert summary is not None and summary.withdrawn == 1
        assert sandbox.stats.requests == 1


async def test_dry_run_shows_first_requests(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await open_bulk(pilot)
        await paste(pilot, "\n".join(f"vis_dry_{n}" for n in range(8)))
        await pilot.click("#bulk-start")
        await pilot.pause()
        shown = grants_app.screen
        assert isinstance(shown, DryRunDialog)
        text = plain(shown.query_one("#dry-run", Static))
        assert (
            text.count("\nPOST http") + text.startswith("POST http") == 5
            and "vis_dry_4" in text
            and "vis_dry_5" not in text
        )
        assert "pat_demo" not in text
        await pilot.press("escape")
        await until(lambda: isinstance(grants_app.screen, BulkDialog), pilot)
        assert sandbox.stats.requests == 0


async def test_file_path_validated_and_loaded(
    grants_app: BottuiApp, sandbox: SandboxServer, tmp_path: Path
) -> None:
    hostile = tmp_path / "[@click=app.quit] ids.csv"
    hostile.write_text(
        "userAccountId,visitorId\nuser-1042,\n,vis_Bk41Zr0aQe\n,\n", encoding="utf-8"
    )
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await open_bulk(pilot)
        path = dialog.query_one("#bulk-path", Input)
        error = dialog.query_one("#bulk-path-error", Static)
        start = dialog.query_one("#bulk-start", Button)
        path.value = str(tmp_path / "missing.txt")
        await settle(pilot)
        assert error.display and plain(error) == "No such file" and start.disabled
        path.value = str(tmp_path)
        await settle(pilot)
        assert plain(error) == "Not a file" and start.disabled
        path.value = str(hostile)
        await settle(pilot)
        assert not error.display
        assert preview(dialog).startswith("3 lines: 2 ids to revoke · 1 invalid line")
        assert "line 4: no visitorId and no userAccountId" in preview(dialog)
        # Pasted ids and a file at once: refused, not guessed.
        dialog.query_one("#bulk-text", TextArea).text = "vis_x\n"
        await settle(pilot)
        assert preview(dialog) == BOTH and start.disabled
        dialog.query_one("#bulk-text", TextArea).text = ""
        await settle(pilot)
        await start_and_confirm(pilot)
        await settle(pilot)
        run = run_dialog(grants_app)
        origin = plain(run.query_one("#bulk-run-origin", Static))
        assert f"From file {hostile} · 2 ids" in origin  # literal, not an action
        assert grants_app.is_running
        assert run.summary is not None and run.summary.withdrawn == 2
        assert sorted(str(b) for b in bodies(sandbox)) == sorted(
            [
                str({"subject": {"userAccountId": "user-1042"}}),
                str({"subject": {"visitorId": "vis_Bk41Zr0aQe"}}),
            ]
        )


async def test_paste_with_escape_sequence_refused(
    grants_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await open_bulk(pilot)
        await paste(pilot, "vis_a\nvis_b\x1b[2J\n")
        area = dialog.query_one("#bulk-text", TextArea)
        assert area.text == ""
        toast = next(n for n in grants_app._notifications if n.title == "Not pasted")
        assert "U+001B" in toast.message
        await paste(pilot, "visitorId\tnote\r\nvis_a\tok\r\n")  # TSV, CRLF: fine
        assert "vis_a" in area.text
        assert preview(dialog).startswith("1 line: 1 id to revoke")


async def test_concurrency_resume_and_draft(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await open_bulk(pilot)
        await paste(pilot, f"{STANDING}\n")
        start = dialog.query_one("#bulk-start", Button)
        concurrency = dialog.query_one("#bulk-concurrency", Input)
        error = dialog.query_one("#bulk-concurrency-error", Static)
        for bad in ("0", "513", ""):
            concurrency.value = bad
            await pilot.pause()
            assert start.disabled and error.display, bad
        concurrency.value = "64"
        await pilot.pause()
        assert not start.disabled and not error.display
        resume = dialog.query_one("#bulk-resume", Checkbox)
        # The state reads as text, not only as a colour (NO_COLOR, 16 colours).
        assert str(resume.render()) == "[ ] Resume previous run "
        resume.value = True
        await pilot.pause()
        assert str(resume.render()) == "[x] Resume previous run "
        # Escape closes; the input is kept for the next opening.
        await pilot.press("escape")
        await pilot.pause()
        dialog = await open_bulk(pilot)
        assert dialog.query_one("#bulk-text", TextArea).text == f"{STANDING}\n"
        assert dialog.query_one("#bulk-concurrency", Input).value == "64"
        assert dialog.query_one("#bulk-resume", Checkbox).value
        assert sandbox.stats.requests == 0


async def test_palette_and_help(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        assert flow_app.current_mode == "limiters"
        command = next(
            c for c in key_registry.commands(flow_app) if c.title == "Grants: Bulk revoke"
        )
        command.run()
        await settle(pilot)
        assert isinstance(flow_app.screen, BulkDialog)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        help_dialog = flow_app.screen
        assert isinstance(help_dialog, HelpDialog)
        rows = [plain(row) for row in help_dialog.query(".help-row").results(Static)]
        assert any(row.split()[:1] == ["b"] and "Bulk revoke" in row for row in rows), rows


async def test_no_project_no_dialog(grants_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        grants_app.services.choose_project(None, None)
        await settle(pilot)
        await pilot.press("b")
        await until(lambda: isinstance(grants_app.screen, GrantsScreen), pilot)
        assert any("No project selected" in n.message for n in grants_app._notifications)


# -- words -------------------------------------------------------------------------------


def _progress(**changes: Any) -> BulkProgress:
    base = BulkProgress(
        done=3,
        total=10,
        total_exact=False,
        sent=3,
        in_flight=2,
        counts={ItemStatus.WITHDRAWN: 1, ItemStatus.NOTHING_STANDING: 2},
        invalid=0,
        duplicates=0,
        elapsed=1.0,
        rate=None,
        eta=None,
        paused_for=0.0,
        stopping=False,
    )
    return msgspec.structs.replace(base, **changes)


def test_progress_words() -> None:
    assert progress_line(_progress()).plain == "3 / ~10 ids · – ids/s · ETA ? · 2 in flight"
    line = progress_line(_progress(total_exact=True, rate=1234.5, eta=125))
    assert line.plain == "3 / 10 ids · 1,234 ids/s · ETA 2m05s · 2 in flight"
    assert counts_line(_progress()).plain == (
        "withdrawn 1 · nothing standing 2 · unknown 0 · failed 0"
    )
    unknown = {ItemStatus.UNKNOWN: 1, ItemStatus.INTERRUPTED: 2, ItemStatus.NOT_SENT: 4}
    assert "unknown 3" in counts_line(_progress(counts=unknown)).plain
    assert "not sent 4" in counts_line(_progress(counts=unknown)).plain
    assert state_line(_progress()).plain == ""
    assert state_line(_progress(paused_for=4.2)).plain == "Paused by the service (429) for 4s"
    assert state_line(_progress(stopping=True)).plain.startswith("Stopping")
    assert "ETA" not in progress_line(_progress(stopping=True)).plain


def test_summary_words_hostile_and_bounded() -> None:
    hostile = "[@click=app.quit] x [/]"
    invalid = tuple(InvalidLine(n, f"reason {hostile}") for n in range(1, 9))
    summary = BulkSummary(
        total=4,
        withdrawn=1,
        nothing_standing=1,
        unknown=0,
        failed=1,
        skipped=0,
        not_sent=1,
        duplicates=0,
        invalid=invalid,
        invalid_count=12,
        elapsed=65,
        interrupted=False,
        network_failures=0,
        api_failures=1,
        stopped_by=f"{hostile}: every other id would get the same answer",
        errors=((hostile, 1),),
        run_id=9,
    )
    lines = summary_lines(summary)
    text = "\n".join(line.plain for line in lines)
    assert text.startswith("Stopped after 1m05s: 4 ids read before the stop.")
    assert text.count("line ") == 5 and "… and 7 more invalid lines" in text
    assert f"    line 1: reason {hostile}" in text  # literal text: no markup was parsed
    assert f"  error: {hostile} (1)" in text
    assert "Journal: run #9" in text and "Resume sends only the ids not yet settled" in text
    assert all(not line.spans for line in lines)


def test_forbidden_in_paste() -> None:
    assert forbidden_in_paste("a\tb\r\nc\n") is None
    assert forbidden_in_paste("ok\x1b[2J") == "U+001B"
    assert forbidden_in_paste("ok\x9b31m") == "U+009B"
    assert forbidden_in_paste("rtl\u202eevil") == "U+202E"
