"""The Playbooks screen: list and plan, one confirmation, progress, summary, revert offer.

Pilot tests run against the loopback sandbox; snapshots against the ASGI
sandbox with the fixed clock.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from bottui.demo import DEMO_PLAYBOOKS, prepare
from bottui.ops.playbooks import library
from bottui.ops.session import Session
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.playbooks_screen import PlaybookConfirm
from tests.fixtures.sandbox import ACC, PROJ
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import click_again, plain, settle, until
from tests.tui.test_hostile import screen_lines

PLAYBOOK = DEMO_PLAYBOOKS["scraping-wave"]  # the demo's, as a team would write one
BROKEN = '[[steps]]\nlimiter = "rl-login"\naction = "on"\n'


def add_playbooks(session: Session) -> None:
    folder = library.directory(session.locations)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scrape.toml").write_text(PLAYBOOK, encoding="utf-8")
    (folder / "typo.toml").write_text(BROKEN, encoding="utf-8")


def puts(sandbox: SandboxServer) -> list[str]:
    sent = [r for r in sandbox.state.recorder.log if r.method in ("PUT", "PATCH", "POST")]
    return [[s for s in r.segments if s not in ("thresholds", "active")][-1] for r in sent]


def states(app: BottuiApp) -> list[str]:
    table: DataTable[Any] = app.screen.query_one("#playbook-plan", DataTable)
    return [str(table.get_row_at(i)[2]) for i in range(table.row_count)]


def summary(app: BottuiApp) -> str:
    return plain(app.screen.query_one("#playbook-summary", Static))


@pytest.fixture
def app(flow_session: Session) -> BottuiApp:
    """The app on the Playbooks screen, with the demo's playbook and a broken one."""
    add_playbooks(flow_session)
    return BottuiApp(flow_session, demo=True, start_mode="playbooks")


async def quiet(pilot: Any) -> None:
    """Settled, the start's toast dismissed: the broken typo.toml is a config problem,
    said in a toast at start (tests/tui/test_config_toast.py) that covers the buttons."""
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


async def to_run(app: BottuiApp, pilot: Any) -> None:
    await quiet(pilot)
    await pilot.press("r")
    await settle(pilot)
    assert isinstance(app.screen, PlaybookConfirm)


async def test_run_from_the_screen(app: BottuiApp, sandbox: SandboxServer) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await to_run(app, pilot)
        app.screen.query_one("#duration").value = ""  # type: ignore[attr-defined]
        await pilot.click("#confirm")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert puts(sandbox) == ["rl-search", "bot-score", "rl-api"]
        assert [s.split(" ")[0] for s in states(app)] == ["done", "done", "done"]
        assert "3 of 3 steps done" in summary(app)
        assert "Reverts at" in summary(app)  # the playbook's default 2h
        # The Journal shows the run as one playbook row (it said "bulk limiter ... ids").
        from tests.tui.test_journal import rows

        await pilot.press("5")
        await settle(pilot)
        run_row = rows(app)[0]
        assert run_row[2:5] == ["playbook", "▸ 3 steps, run #1", "3 ok"], run_row


async def test_dry_run_shows_every_step_and_sends_nothing(
    app: BottuiApp, sandbox: SandboxServer
) -> None:
    from bottui.tui.screens.dialogs import DryRunDialog

    async with app.run_test(size=SNAP_SIZE) as pilot:
        await quiet(pilot)
        await pilot.press("D", "r")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, DryRunDialog)  # not the run's confirmation
        curls = dialog.curl_text.split("\n")
        assert len(curls) == 3 and all(c.startswith("curl ") for c in curls)
        assert ["rl-search" in curls[0], "bot-score" in curls[1], "rl-api" in curls[2]] == [
            True
        ] * 3
        await app.workers.wait_for_complete()
        assert puts(sandbox) == []


async def test_a_failure_midway_offers_and_makes_a_partial_revert(
    app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await to_run(app, pilot)
        # The dimension disappears between the plan and the run: step 2 gets a 404.
        sandbox.state._projects[(ACC, PROJ)].dimensions.pop("bot-score")
        app.screen.query_one("#duration").value = "none?"  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.click("#confirm")
        await settle(pilot)
        assert isinstance(app.screen, PlaybookConfirm)  # a bad duration is refused
        assert app.screen.query_one("#confirm").disabled
        said = plain(app.screen.query_one("#duration-line", Static))
        assert said.startswith("Duration not usable: "), said  # beside its field, not a toast
        assert not app._notifications  # nothing covers the Run button
        app.screen.query_one("#duration").value = ""  # type: ignore[attr-defined]
        await until(lambda: not app.screen.query_one("#confirm").disabled, pilot)
        await click_again(pilot, "#confirm")
        # The run ends with the offer of a partial revert.
        await until(lambda: isinstance(app.screen, ConfirmDialog), pilot, timeout=120)
        await settle(pilot)
        assert puts(sandbox) == ["rl-search", "bot-score"]
        assert isinstance(app.screen, ConfirmDialog)
        assert "stopped at step 2" in plain(app.screen.query_one(".dialog-title"))
        await pilot.click("#confirm")
        await until(
            lambda: not isinstance(app.screen, ConfirmDialog) and "revert of run" in summary(app),
            pilot,
            timeout=30,
        )
        await settle(pilot)
        assert puts(sandbox) == ["rl-search", "bot-score", "rl-search"]
        assert sandbox.state.rate_limiter(ACC, PROJ, "rl-search").is_active is False  # type: ignore[union-attr]
        assert states(app)[0] == "reverted" and states(app)[2] == "not sent"
        assert "1 of 3 steps done; step 2 failed" in summary(app)
        assert "revert of run" in summary(app) and ": reverted" in summary(app)


def _snap_app(tmp_path: Path, backend: Any) -> BottuiApp:
    from tests.tui.conftest import SNAP_BASE_URL, fixed_clock

    session = prepare(
        tmp_path / "demo", SNAP_BASE_URL, client_factory=backend.client, clock=fixed_clock
    )
    add_playbooks(session)
    return BottuiApp(session, demo=True, start_mode="playbooks")


async def planned(pilot: Any) -> None:
    """:func:`quiet`, and the plan table filled and its columns measured (on a busy
    machine a snapshot could come before the table had its width)."""
    await quiet(pilot)
    await until(lambda: "limiter rl-search" in "\n".join(screen_lines(pilot.app)), pilot)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def test_snapshot_list_and_plan(
    snap_compare: Callable[..., bool], tmp_path: Path, asgi_backend: Any
) -> None:
    assert snap_compare(
        _snap_app(tmp_path, asgi_backend), terminal_size=SNAP_SIZE, run_before=planned
    )


def test_snapshot_confirmation(
    snap_compare: Callable[..., bool], tmp_path: Path, asgi_backend: Any
) -> None:
    async def open_it(pilot: Any) -> None:
        # The plan table filled and measured first: the dialog covers part of it.
        await planned(pilot)
        await pilot.press("r")
        await settle(pilot)

    app = _snap_app(tmp_path, asgi_backend)
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=open_it)


def test_snapshot_summary(
    snap_compare: Callable[..., bool], tmp_path: Path, asgi_backend: Any
) -> None:
    async def run_it(pilot: Any) -> None:
        await quiet(pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.click("#confirm")
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        # The run scheduled its revert: the header says so (#27), once it has read it.
        services = pilot.app.services
        while "timed change" not in services.timed_text:
            await pilot.pause()
        await settle(pilot)

    app = _snap_app(tmp_path, asgi_backend)
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_it)


def test_snapshot_failure_offer(
    snap_compare: Callable[..., bool], tmp_path: Path, asgi_backend: Any
) -> None:
    async def fail_it(pilot: Any) -> None:
        await quiet(pilot)
        await pilot.press("r")
        await settle(pilot)
        asgi_backend.state._projects[(ACC, PROJ)].dimensions.pop("bot-score")
        await pilot.click("#confirm")
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)

    app = _snap_app(tmp_path, asgi_backend)
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=fail_it)


def test_a_broken_file_shows_file_and_line(
    snap_compare: Callable[..., bool], tmp_path: Path, asgi_backend: Any
) -> None:
    async def pick_it(pilot: Any) -> None:
        await quiet(pilot)
        await pilot.press("down")
        await settle(pilot)
        head = plain(pilot.app.screen.query_one("#playbook-head", Static))
        assert "typo.toml:3: step 1: action must be" in head

    app = _snap_app(tmp_path, asgi_backend)
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=pick_it)


async def test_a_plan_the_inventory_never_saw_is_shown_and_r_refuses(
    flow_session: Session, sandbox: SandboxServer
) -> None:
    """As ``playbook show`` (#27): the plan is shown with its warning; running is refused."""
    folder = library.directory(flow_session.locations)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ghost.toml").write_text(
        '[[steps]]\nlimiter = "rl-ghost"\naction = "enable"\n', encoding="utf-8"
    )
    app = BottuiApp(flow_session, demo=True, start_mode="playbooks")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await quiet(pilot)
        head = plain(app.screen.query_one("#playbook-head", Static))
        assert "never seen limiter rl-ghost" in head and "r refuses it" in head
        table: DataTable[Any] = app.screen.query_one("#playbook-plan", DataTable)
        assert table.row_count == 1
        await pilot.press("r")
        await settle(pilot)
        assert not isinstance(app.screen, PlaybookConfirm)
        (logged,) = list(app.services.errors)
        assert logged.refused and logged.operation == "Run playbook ghost"
    assert puts(sandbox) == []
