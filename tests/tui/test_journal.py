"""The Journal screen: snapshots (in-process sandbox) and flows (loopback sandbox)."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

import bottui.ops.mutations
import bottui.store.journal.journal_file
from bottui.api.client import build_thresholds
from bottui.api.errors import ApiError
from bottui.ops import mutations
from bottui.sandbox.demo_data import DEMO_ACCOUNT, HOSTILE_LIMITER_IDS, HOSTILE_PROJECT_ID
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_records import Operation, limiter_target
from bottui.tui import key_registry
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import DryRunDialog, HelpDialog
from bottui.tui.screens.journal import JournalScreen
from bottui.tui.screens.journal_dialogs import EntryDialog, JournalExportDialog, JournalTable
from tests.fixtures.stores import inventory_of, journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import keys_closing, open_then, plain, sent, settle, settle_failed, until

SMALL = (80, 24)
PROJ = "shop-prod"
Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]


class _SteadyTime:
    """``time`` for the ops layer whose every request takes 12 ms."""

    def __init__(self) -> None:
        self._now = 0.0

    def perf_counter(self) -> float:
        self._now += 0.012
        return self._now


@pytest.fixture
def steady(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Operator, pid and durations that do not depend on the machine (snapshots)."""
    monkeypatch.setattr(
        bottui.store.journal.journal_file, "local_operator", lambda: "oncall@bastion"
    )
    monkeypatch.setattr(bottui.store.journal.journal_file, "local_host", lambda: "bastion")
    monkeypatch.setattr(
        bottui.store.journal.journal_file, "os", SimpleNamespace(getpid=lambda: 4242)
    )
    monkeypatch.setattr(bottui.ops.mutations, "time", _SteadyTime())
    yield


def table(app: Any) -> JournalTable:
    return app.screen.query_one(JournalTable)  # type: ignore[no-any-return]


def rows(app: Any) -> list[list[str]]:
    grid = table(app)
    return [[cell.plain for cell in grid.get_row_at(n)] for n in range(grid.row_count)]


def csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


async def changes(app: BottuiApp) -> None:
    """A few changes through the ops layer: two limiters, thresholds, a revocation."""
    session = app.session
    await mutations.set_limiter(session, DEMO_ACCOUNT, PROJ, "rl-login", False, confirmed=True)
    await mutations.set_thresholds(
        session,
        DEMO_ACCOUNT,
        PROJ,
        "bot-score",
        build_thresholds("Bot score", "0.9", "0.6"),
        confirmed=True,
    )
    await mutations.revoke(session, DEMO_ACCOUNT, PROJ, visitor_id="vis_7Hq2kP9xLm", confirmed=True)
    with pytest.raises(ApiError):  # a 404: journaled as an api-error
        await mutations.set_limiter(session, DEMO_ACCOUNT, PROJ, "rl-gone", True, confirmed=True)


def unfinished(app: BottuiApp, limiter: str = "rl-checkout") -> int:
    """A started record with no outcome, as a SIGKILL mid-request leaves it."""
    with journal_of(app.session) as journal:
        return journal.start(
            profile="demo",
            base_url=app.session.base_url,
            operation=Operation.SET_LIMITER_ACTIVE,
            account=DEMO_ACCOUNT,
            project=PROJ,
            target=limiter_target(limiter),
            request_body={"isActive": False},
            previous={"isActive": True},
        )


async def to_journal(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await pilot.press("5")
    await settle(pilot)
    assert isinstance(pilot.app.screen, JournalScreen)


# -- snapshots -----------------------------------------------------------------


def test_snapshot_empty(snap_compare: Snap, make_snap_app: MakeApp, steady: None) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await to_journal(pilot)
        assert table(pilot.app).row_count == 0
        empty = plain(pilot.app.screen.query_one("#journal-empty", Static))
        assert empty.startswith("The journal is empty.")

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


async def _loaded(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await changes(pilot.app)  # type: ignore[arg-type]
    await to_journal(pilot)
    assert [r[2] for r in rows(pilot.app)] == ["limiter", "revoke", "thresholds", "limiter"]


def test_snapshot_loaded(snap_compare: Snap, make_snap_app: MakeApp, steady: None) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _loaded(pilot)
        newest, revoke, thresholds, oldest = rows(pilot.app)
        assert newest[1] == "oncall@bastion" and newest[0] == "11-21 03:00:00"
        # Why (empty here) before HTTP and Took: in view at 80 columns (#27).
        assert newest[3:] == ["rl-gone -> ON", "api-error", "", "404", "12 ms"]
        assert revoke[3:5] == ["visitor vis_7Hq2kP9xLm", "withdrawn"]
        assert thresholds[3:5] == ["bot-score", "ok"]
        assert oldest[3:7] == ["rl-login -> OFF", "ok", "", "200"]

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_loaded_80x24(snap_compare: Snap, make_snap_app: MakeApp, steady: None) -> None:
    assert snap_compare(make_snap_app(), terminal_size=SMALL, run_before=_loaded)


def test_snapshot_unfinished(snap_compare: Snap, make_snap_app: MakeApp, steady: None) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await changes(pilot.app)  # type: ignore[arg-type]
        unfinished(pilot.app)  # type: ignore[arg-type]
        await to_journal(pilot)
        assert rows(pilot.app)[0][4:] == ["! UNFINISHED", "", "", ""]
        await pilot.press("f")  # outcome: unfinished
        await pilot.pause()
        assert len(rows(pilot.app)) == 1
        filters = plain(pilot.app.screen.query_one("#journal-filters", Static))
        assert "Outcome unfinished (f)" in filters and "1 shown" in filters

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_detail(snap_compare: Snap, make_snap_app: MakeApp, steady: None) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _loaded(pilot)
        await pilot.press("enter")  # the newest: the api-error
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, EntryDialog)
        text = plain(dialog.query_one("#entry-details", Static))
        assert "api-error · HTTP 404 · took 12 ms" in text
        assert "(pid 4242)" in text and '"isActive": true' in text
        assert "Error" in text and '"status": 404' in text

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_undo_confirmation(
    snap_compare: Snap, make_snap_app: MakeApp, steady: None
) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await changes(pilot.app)  # type: ignore[arg-type]
        # A newer change of the same limiter (#5): the undo of #1 warns of it.
        session = pilot.app.session  # type: ignore[attr-defined]
        await mutations.set_limiter(session, DEMO_ACCOUNT, PROJ, "rl-login", True, confirmed=True)
        await to_journal(pilot)
        grid = table(pilot.app)
        grid.move_cursor(row=grid.get_row_index("1"), animate=False)
        await pilot.press("u")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        # The highlighted row (#1), although a threshold change (#2) is newer.
        assert body.startswith("Changed since journal entry #1")
        assert "#5 2026-11-21 03:00:00Z by you: ON (ok)" in body
        assert "It is ON already" in body
        assert "Journal entry #1, 2026-11-21 03:00:00Z, by oncall@bastion" in body
        assert "Rate limiter rl-login\nProject shop-prod, account acme" in body
        assert "Now: ON\nAfter the undo: ON" in body
        assert pilot.app.focused is not None and pilot.app.focused.id == "cancel"

    assert snap_compare(make_snap_app(), terminal_size=SNAP_SIZE, run_before=run_before)


# -- flows against the loopback sandbox -------------------------------------------


async def test_undo_from_the_journal_screen(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        # Disable a limiter on the Limiters screen (its state is known: ON).
        grid = flow_app.screen.query_one("#limiters-table")
        grid.move_cursor(row=grid.get_row_index("rl-login"), animate=False)  # type: ignore[attr-defined]
        await open_then(pilot, "f", "tab", "enter")
        await settle(pilot)
        assert sent(sandbox) == [("PATCH", "rl-login", {"isActive": False})]
        await to_journal(pilot)
        assert rows(flow_app)[0][3] == "rl-login -> OFF"
        await pilot.press("u")
        await until(lambda: isinstance(flow_app.screen, ConfirmDialog), pilot)
        await pilot.press("enter")  # focus is on Cancel: nothing is sent
        await settle(pilot)
        assert len(sent(sandbox)) == 1
        await pilot.press("u")
        await pilot.pause()
        await keys_closing(pilot, "tab", "enter")
        assert sent(sandbox)[-1] == ("PATCH", "rl-login", {"isActive": True})
        with journal_of(flow_app.session) as journal:
            undo_entry, first = journal.entries()
        assert undo_entry.undo_of == first.id and undo_entry.outcome == "ok"
        assert undo_entry.target == first.target == {"rate_limiter_id": "rl-login"}
        # The screen shows it at once, and the inventory knows the limiter is ON.
        assert isinstance(flow_app.screen, JournalScreen)
        assert rows(flow_app)[0][2:5] == [f"limiter (undo #{first.id})", "rl-login -> ON", "ok"]
        inventory = inventory_of(flow_app.session)
        assert inventory is not None
        login = inventory.limiter(DEMO_ACCOUNT, PROJ, "rl-login")
        assert login is not None and login.is_active is True


async def test_undo_refused_says_why(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await to_journal(pilot)
        await pilot.press("u")
        await until(lambda: isinstance(flow_app.screen, JournalScreen), pilot)
        (toast,) = list(flow_app._notifications)
        assert toast.title == "Cannot undo" and "nothing to undo" in toast.message
        # An unfinished change: whether it applied is not known, so no undo.
        unfinished(flow_app)
        await pilot.press("r")
        await pilot.pause()
        assert rows(flow_app)[0][4] == "! UNFINISHED"
        await pilot.press("u")
        await until(lambda: isinstance(flow_app.screen, JournalScreen), pilot)
        assert "no outcome" in list(flow_app._notifications)[-1].message
        assert sandbox.stats.requests == 0


async def test_undo_of_an_unfinished_row_says_why_and_offers_nothing_else(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        session = flow_app.session
        await mutations.set_thresholds(
            session, DEMO_ACCOUNT, PROJ, "bot-score", build_thresholds("Bot score", "0.9", "0.6")
        )
        unfinished(flow_app)  # the newer change: a limiter, outcome unknown
        await to_journal(pilot)
        await pilot.press("u")  # on the unfinished row: refused, no other change offered
        await settle(pilot)
        assert isinstance(flow_app.screen, JournalScreen)
        toast = list(flow_app._notifications)[-1]
        assert toast.title == "Cannot undo" and "#2 has no outcome" in toast.message
        await pilot.press("down", "u")  # the threshold change
        await settle(pilot)
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        assert body.startswith("Journal entry #1")
        assert "Dimension bot-score" in body
        assert "After the undo: Bot score: block 0.8, challenge 0.5" in body
        await keys_closing(pilot, "tab", "enter")
        last = sandbox.state.recorder.log[-1]
        assert last.method == "PUT"
        assert last.json == {"name": "Bot score", "blockThreshold": 0.8, "challengeThreshold": 0.5}


async def test_undo_under_dry_run_and_read_only(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        session = flow_app.session
        await mutations.set_limiter(session, DEMO_ACCOUNT, PROJ, "rl-login", False)
        await to_journal(pilot)
        await pilot.press("D", "u")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, DryRunDialog)
        text = plain(dialog.query_one("#dry-run", Static))
        assert "PATCH " in text and '"isActive": true' in text
        await pilot.press("escape", "D")
        await pilot.pause()
        from msgspec.structs import replace

        session.update_settings(replace(session.settings, read_only=True))
        await pilot.press("u")
        await until(lambda: isinstance(flow_app.screen, JournalScreen), pilot)
        assert list(flow_app._notifications)[-1].title == "Read-only profile"
        assert len(sandbox.state.recorder.log) == 1


async def test_palette_undo(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mutations.set_limiter(flow_app.session, DEMO_ACCOUNT, PROJ, "rl-login", False)
        command = next(c for c in key_registry.commands(flow_app) if c.title == "Undo last change")
        command.run()
        await settle(pilot)
        assert isinstance(flow_app.screen, ConfirmDialog)
        assert "Rate limiter rl-login" in plain(flow_app.screen.query_one("#confirm-body", Static))
        assert "Undo" in str(flow_app.screen.query_one("#confirm", Button).label)


async def test_filters(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await changes(flow_app)
        await mutations.set_limiter(flow_app.session, DEMO_ACCOUNT, "docs-site", "rl-crawl", False)
        await to_journal(pilot)
        assert len(rows(flow_app)) == 4  # the current project only
        await pilot.press("p")
        await settle(pilot)
        assert len(rows(flow_app)) == 5
        assert rows(flow_app)[0][3] == "docs-site: rl-crawl -> OFF"
        await pilot.press("p", "o")  # current project; limiter changes
        await settle(pilot)
        assert [r[3] for r in rows(flow_app)] == ["rl-gone -> ON", "rl-login -> OFF"]
        await pilot.press("o", "o")  # revocations
        await settle(pilot)
        assert [r[2] for r in rows(flow_app)] == ["revoke"]
        await pilot.press("o", "f", "f", "f")  # all operations; failed
        await settle(pilot)
        assert [r[4] for r in rows(flow_app)] == ["api-error"]
        filters = plain(flow_app.screen.query_one("#journal-filters", Static))
        assert "Operation all (o) · Outcome failed (f) · 1 shown" in filters
        await pilot.press("f")  # unknown
        await settle(pilot)
        assert rows(flow_app) == []
        empty = plain(flow_app.screen.query_one("#journal-empty", Static))
        assert "No entry matches the filters" in empty
        await pilot.press("f")  # all again
        await settle(pilot)
        assert len(rows(flow_app)) == 4


async def test_refresh_after_a_change_elsewhere(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await mutations.set_limiter(flow_app.session, DEMO_ACCOUNT, "docs-site", "rl-crawl", False)
        await to_journal(pilot)
        assert rows(flow_app) == []
        empty = plain(flow_app.screen.query_one("#journal-empty", Static))
        assert empty.startswith("Nothing journaled for this project yet (p shows every project)")
        await pilot.press("2")
        await settle(pilot)
        await open_then(pilot, "f", "tab", "enter")  # the first limiter: rl-api OFF
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        assert [r[3] for r in rows(flow_app)] == ["rl-api -> OFF"]


async def test_export_from_the_screen(
    flow_app: BottuiApp,
    sandbox: SandboxServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await changes(flow_app)
        await to_journal(pilot)
        await pilot.press("x")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, JournalExportDialog)
        field = dialog.query_one("#export-path", Input)
        assert field.value.startswith("bottui-journal-") and field.value.endswith(".jsonl")
        field.value = "out.txt"
        await pilot.press("enter")
        await until(
            lambda: isinstance(flow_app.screen, JournalExportDialog), pilot
        )  # no format: it says so
        assert ".jsonl or .csv" in plain(dialog.query_one("#export-problem", Static))
        field.value = "out.csv"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(flow_app.screen, JournalScreen)
        text = (tmp_path / "out.csv").read_text(encoding="utf-8")
        assert text.startswith("id,started_at") and len(csv_rows(tmp_path / "out.csv")) == 4
        assert "Exported 4 entries" in list(flow_app._notifications)[-1].message
        # An existing file is replaced only on a second press.
        await pilot.press("f", "f", "x")  # the succeeded ones only
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, JournalExportDialog)
        dialog.query_one("#export-path", Input).value = "out.csv"
        await pilot.press("enter")
        await pilot.pause()
        assert "exists" in plain(dialog.query_one("#export-problem", Static))
        assert (tmp_path / "out.csv").read_text(encoding="utf-8") == text
        await pilot.press("enter")
        await settle(pilot)
        replaced = csv_rows(tmp_path / "out.csv")
        assert [row["outcome"] for row in replaced] == ["withdrawn", "ok", "ok"]


async def test_detail_and_hostile_text(hostile_sandbox: SandboxServer, tmp_path: Path) -> None:
    from bottui.demo import prepare

    session = prepare(tmp_path / "demo", hostile_sandbox.base_url, hostile=True)
    app = BottuiApp(session, demo=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        for limiter in HOSTILE_LIMITER_IDS:
            await mutations.set_limiter(session, DEMO_ACCOUNT, HOSTILE_PROJECT_ID, limiter, True)
        app.services.choose_project(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)
        await to_journal(pilot)
        assert rows(app)[-1][3] == f"{HOSTILE_LIMITER_IDS[0]} -> ON"
        assert all("\x1b" not in cell for row in rows(app) for cell in row)
        for n in range(len(HOSTILE_LIMITER_IDS)):
            table(app).move_cursor(row=n, animate=False)
            await pilot.press("enter")
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, EntryDialog)
            text = plain(dialog.query_one("#entry-details", Static))
            assert "\x1b" not in text and HOSTILE_PROJECT_ID in text
            await pilot.press("escape")
            await pilot.pause()
        assert app.is_running  # no markup action ran, nothing crashed
        # Help lists the screen's keys with their descriptions.
        await pilot.press("question_mark")
        await until(lambda: isinstance(app.screen, HelpDialog), pilot)
        help_rows = dict(app.screen._rows)
        for key in ("u", "p", "o", "f", "x", "r"):
            assert key in help_rows, key
        assert help_rows["⏎"] == "Details"


async def test_a_damaged_journal_is_said_on_the_screen(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    path = flow_app.session.locations.journal_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a database " * 200)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await to_journal(pilot)
        empty = plain(flow_app.screen.query_one("#journal-empty", Static))
        assert empty.startswith("The journal cannot be read: ")
        await pilot.press("u")
        await pilot.pause()
        assert "cannot be read" in list(flow_app._notifications)[-1].message
        assert sandbox.stats.requests == 0


async def test_a_failed_worker_of_the_journal_screen_is_reported_once(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        screen = flow_app.screen
        assert isinstance(screen, JournalScreen)

        async def fails() -> None:
            raise ApiError(503, None, body_excerpt="journal worker down")

        before = len(flow_app.services.errors)
        screen.run_worker(fails(), name="a journal job", exit_on_error=False)
        await settle_failed(pilot)
        # One toast and one error-log entry: Textual calls each class's handler of the
        # message, so a handler that also called its base's reported it twice.
        assert len(flow_app.services.errors) == before + 1
