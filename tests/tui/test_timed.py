"""Timed changes in the TUI (#15): the duration field, the executor, the Timed screen.

Flows run against the loopback sandbox with the session's clock moved by
the test (nothing waits: the executor's round is run with ``tick()``);
the sandbox's own state says whether a revert arrived.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from bottui.demo import prepare
from bottui.ops.session import Session
from bottui.ops.timed.schedule import NO_EXECUTOR_WARNING, executor_known, executor_name, list_timed
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens import timed_screen
from bottui.tui.screens.change_form import ConfirmDialog, ExtendDialog, TypedConfirmDialog
from bottui.tui.screens.journal_dialogs import JournalTable
from bottui.tui.screens.timed_screen import TimedScreen
from bottui.tui.ui_rules import ContextBar
from bottui.tui.widgets.limiter_table import LimiterTable
from tests.fixtures import moving_clock
from tests.fixtures.moving_clock import MovingClock
from tests.timed.conftest import PROJ, active, limiter_puts
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, press_closing, settle

Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]

# The fixtures of tests/timed: a demo session on the sandbox with a clock the test moves.
clock = moving_clock.clock
session = moving_clock.session


def bar_text(app: BottuiApp) -> str:
    return app.screen.query_one(ContextBar).render().plain


async def switch_for(pilot: Pilot[Any], limiter_id: str, duration: str) -> ConfirmDialog:
    """Highlight ``limiter_id``, press t, type ``duration`` in the confirmation's field."""
    app: BottuiApp = pilot.app  # type: ignore[assignment]
    grid = app.screen.query_one(LimiterTable)
    grid.move_cursor(row=grid.get_row_index(limiter_id), animate=False)
    await pilot.press("t")
    await settle(pilot)
    dialog = app.screen
    assert isinstance(dialog, ConfirmDialog)
    field = dialog.query_one("#duration", Input)
    field.focus()
    field.value = duration
    await pilot.pause()
    return dialog


async def timed_limiter(pilot: Pilot[Any], limiter_id: str, duration: str) -> None:
    await switch_for(pilot, limiter_id, duration)
    await press_closing(pilot)


# -- the executor: a timed change made in the confirmation reverts on time ---------------


async def test_timed_change_reverts_on_time_via_the_tui(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None and runner.running  # started after the first frame
        assert active(sandbox, "rl-login")
        await timed_limiter(pilot, "rl-login", "30m")
        assert not active(sandbox, "rl-login")  # applied now
        await runner.tick()
        assert "1 timed change · next in 30m" in bar_text(app)

        clock.move(minutes=29)
        assert await runner.tick() == []  # not due yet: nothing sent
        assert not active(sandbox, "rl-login")
        assert "next in 1m" in bar_text(app)

        clock.move(minutes=1, seconds=5)
        reports = await runner.tick()
        await settle(pilot)
        assert [r.action for r in reports] == ["reverted"]
        assert active(sandbox, "rl-login")  # the sandbox has it back ON
        assert limiter_puts(sandbox, "rl-login") == [{"isActive": False}, {"isActive": True}]
        assert "timed change" not in bar_text(app)  # the countdown is gone
        done = await list_timed(session, include_done=True)
        assert [(t.state, t.executor) for t in done] == [("reverted", executor_name("tui"))]
        assert await executor_known(session) is not None  # the heartbeat
        # The Journal screen shows the revert: an undo of the change, for the timed change.
        await pilot.press("5")
        await settle(pilot)
        journal = app.screen.query_one(JournalTable)
        rows = [" ".join(c.plain for c in journal.get_row_at(i)) for i in range(journal.row_count)]
        assert len(rows) == 2 and "rl-login" in rows[0]
        assert "(undo #1) rl-login -> ON ok" in rows[0] and "timed change 1" in rows[0]


# -- the duration field ---------------------------------------------------------------------


async def test_a_bad_duration_is_said_inline_and_blocks_confirm(
    session: Session, sandbox: SandboxServer
) -> None:
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        dialog = await switch_for(pilot, "rl-login", "2 hours")
        line = dialog.query_one("#duration-line", Static)
        confirm = dialog.query_one("#confirm", Button)
        assert line.display and "Duration not usable" in plain(line)
        assert "not a duration" in plain(line)
        assert confirm.disabled
        dialog.query_one("#duration", Input).value = "8d"
        await pilot.pause()
        assert confirm.disabled and "longer than 7d" in plain(line)
        dialog.query_one("#duration", Input).value = "1h30m"
        await pilot.pause()
        assert not confirm.disabled
        assert "reverts to ON at 13:30 UTC, in 1h30m" in plain(dialog.query_one("#decision"))
        dialog.query_one("#duration", Input).value = ""
        await pilot.pause()
        assert not confirm.disabled and not line.display
        confirm.press()
        await settle(pilot)
        assert not active(sandbox, "rl-login")
        assert await list_timed(session) == []  # empty: an ordinary change


async def test_a_duration_states_the_value_before_when_it_is_unknown(
    session: Session, sandbox: SandboxServer
) -> None:
    # #24 item 4: a limiter added by id ("?") could never be timed; typing a duration
    # now states its other state as the value to revert to, said and journaled so.
    sandbox.state.add_rate_limiter(DEMO_ACCOUNT, PROJ, "rl-new", active=False)
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")  # a limiter id the inventory never saw: state unknown
        await settle(pilot)
        await pilot.press(*"rl-new", "enter")
        await settle(pilot)
        grid = app.screen.query_one(LimiterTable)
        grid.move_cursor(row=grid.get_row_index("rl-new"), animate=False)
        await pilot.press("o")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        duration = dialog.query_one("#duration", Input)
        assert not duration.disabled
        await pilot.press("tab", "tab", "tab")  # Cancel, Confirm, the reason, the duration
        assert app.focused is duration
        await pilot.press(*"30m")
        await pilot.pause()
        line = plain(dialog.query_one("#duration-line", Static))
        assert "you state it was OFF" in line
        assert "reverts to OFF at" in plain(dialog.query_one("#decision", Static))
        await pilot.press("enter")  # the last field of a complete form
        await settle(pilot)
        assert [r.json for r in sandbox.state.recorder.log] == [{"isActive": True}]
        (change,) = await list_timed(session)
        assert change.revert_to == "OFF" and change.revert_to_stated


async def test_a_revocation_has_no_duration_and_says_why(
    session: Session, sandbox: SandboxServer
) -> None:
    app = BottuiApp(session, demo=True, start_mode="grants")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i", *"vis_7Hq2kP9xLm", "tab", "tab", "enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert not dialog.query("#duration")
        assert "a revocation cannot be timed" in plain(dialog.query_one("#duration-line", Static))


async def test_protected_and_no_executor_notes(session: Session, sandbox: SandboxServer) -> None:
    from msgspec.structs import replace

    session.settings = replace(session.settings, protected=True)
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None
        runner.stop()  # as if this TUI did not run reverts, and none ever ran
        grid = app.screen.query_one(LimiterTable)
        grid.move_cursor(row=grid.get_row_index("rl-login"), animate=False)
        await pilot.press("t")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, TypedConfirmDialog)
        dialog.query_one("#typed", Input).value = PROJ
        dialog.query_one("#duration", Input).value = "2h"
        await pilot.pause()
        words = plain(dialog.query_one("#duration-line", Static))
        assert "confirming now also confirms the scheduled revert" in words
        assert "No executor is known" not in words  # the heartbeat at start counts
        assert not dialog.query_one("#confirm", Button).disabled
        dialog.query_one("#duration", Input).value = "2 h"
        await pilot.pause()
        assert dialog.query_one("#confirm", Button).disabled  # a bad duration blocks it


async def test_the_confirmation_warns_when_no_executor_is_known(
    tmp_path: Path, sandbox: SandboxServer, clock: MovingClock
) -> None:
    from bottui.tui.change_prompt import Timing

    session = prepare(tmp_path / "demo", sandbox.base_url, clock=clock)
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None
        await runner.stop_and_wait()
        # The TUI's heartbeats at start are old: a TUI counts for minutes, and its
        # rounds of run_due are not taken for an installed timer (known for a day).
        clock.move(minutes=10)
        prompt = await app.services.timed_prompt(_prompt_with_timing(Timing(reverts_to="ON")))
        assert prompt.timing is not None
        assert prompt.timing.notes == (NO_EXECUTOR_WARNING,)
    await session.aclose()


def _prompt_with_timing(timing: Any) -> Any:
    from textual.content import Content

    from bottui.tui.change_prompt import ChangePrompt

    return ChangePrompt("t", Content(""), "OK", PROJ, plan=list, timing=timing)


# -- the Timed screen -------------------------------------------------------------------------


async def open_timed(pilot: Pilot[Any]) -> TimedScreen:
    await pilot.press("T")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, TimedScreen)
    return screen


async def test_extend_keep_and_revert_now_from_the_timed_screen(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None
        await timed_limiter(pilot, "rl-login", "30m")  # ON -> OFF, back at 12:30
        await timed_limiter(pilot, "rl-search", "1h")  # OFF -> ON, back at 13:00
        screen = await open_timed(pilot)
        table = screen.query_one("#timed-table")
        assert table.row_count == 2  # type: ignore[attr-defined]

        # Extend the first (rl-login) by 1h: due 13:30.
        await pilot.press("x")
        await settle(pilot)
        extend = app.screen
        assert isinstance(extend, ExtendDialog)
        await pilot.press(*"1x")
        assert extend.query_one("#confirm", Button).disabled  # said inline
        await pilot.press("backspace", "h")
        assert "at 13:30 UTC" in plain(extend.query_one("#duration-line", Static))
        await pilot.press("enter")
        await settle(pilot)
        [login, search] = sorted(await list_timed(session), key=lambda t: t.what)
        assert login.due_at.strftime("%H:%M") == "13:30"
        assert search.due_at.strftime("%H:%M") == "13:00"  # the other one unchanged

        # Keep rl-search ON: its revert is cancelled (asks first).
        screen.query_one("#timed-table").move_cursor(row=0)  # type: ignore[attr-defined]
        await pilot.press("k")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await press_closing(pilot)
        assert [t.what for t in await list_timed(session)] == [login.what]

        # Revert rl-login now (asks): the sandbox has it ON again.
        screen.query_one("#timed-table").move_cursor(row=0)  # type: ignore[attr-defined]
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await press_closing(pilot)
        assert active(sandbox, "rl-login")
        assert active(sandbox, "rl-search")  # kept
        assert await list_timed(session) == []
        states = {t.what: t.state for t in await list_timed(session, include_done=True)}
        assert sorted(states.values()) == ["cancelled", "reverted"]
        clock.move(hours=2)
        assert await runner.tick() == []  # nothing left to revert


async def test_a_late_revert_asks_before_it_is_sent(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None
        await timed_limiter(pilot, "rl-login", "30m")
        await runner.stop_and_wait()  # as if the TUI had not run meanwhile
        clock.move(hours=3)  # 2h30m late: past the 1h limit
        reports = await runner.tick()
        await settle(pilot)
        assert [r.action for r in reports] == ["late-skipped"]
        assert not active(sandbox, "rl-login")  # not sent blindly
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "late by 2h30m" in plain(dialog.query_one(".dialog-title", Static))
        await runner.tick()
        await settle(pilot)
        assert app.screen is dialog  # asked once, not twice
        await press_closing(pilot)
        assert active(sandbox, "rl-login")
        [done] = await list_timed(session, include_done=True)
        assert done.state == "reverted"


# -- snapshots ---------------------------------------------------------------------------


async def _timed_confirmation(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    dialog = await switch_for(pilot, "rl-login", "30m")
    # When it reverts is on the decision line, beside the buttons (#24).
    assert "reverts to ON at 03:30 UTC, in 30m" in plain(dialog.query_one("#decision", Static))


def test_snapshot_confirmation_with_a_duration(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="limiters")
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=_timed_confirmation)


async def _two_timed(pilot: Pilot[Any]) -> None:
    app: BottuiApp = pilot.app  # type: ignore[assignment]
    await settle(pilot)
    await timed_limiter(pilot, "rl-login", "14m")
    await timed_limiter(pilot, "rl-search", "2h")
    runner = app.services.timed_runner
    assert runner is not None
    await runner.tick(execute=False)
    await settle(pilot)
    assert "2 timed changes · next in 14m" in bar_text(app)


def test_snapshot_header_countdown(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="limiters")
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=_two_timed)


def test_snapshot_timed_screen(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _two_timed(pilot)
        await open_timed(pilot)

    app = make_snap_app(start_mode="limiters")
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_countdown_words() -> None:
    from bottui.tui.timed_changes import countdown_text

    now = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    assert countdown_text([], now) == ""  # hidden when none
    at = [now + timedelta(minutes=14, seconds=20), now + timedelta(hours=2)]
    assert countdown_text(at, now) == "2 timed changes · next in 15m"  # never sooner
    assert countdown_text([now + timedelta(seconds=85)], now) == "1 timed change · next in 1m25s"
    assert countdown_text([now - timedelta(minutes=3)], now) == "1 timed change · next due now"


async def test_a_profile_switch_stops_the_executor_and_starts_it_on_the_new_profile(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    with session.locations.config_file.open("a", encoding="utf-8") as config:
        config.write('\n[profiles.other]\nbase_url = "http://127.0.0.1:9"\n')
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None
        demo_profile = session.settings.profile_name
        await timed_limiter(pilot, "rl-login", "30m")
        await runner.tick(execute=False)
        assert "1 timed change" in bar_text(app)

        app.switch_to_profile("other")
        await settle(pilot)
        assert session.settings.profile_name == "other"
        assert runner.running  # started again, on the new profile
        await runner.tick(execute=False)
        assert "timed change" not in bar_text(app)  # the other profile has none
        clock.move(minutes=31)
        assert await runner.tick() == []  # not this profile's to revert
        assert not active(sandbox, "rl-login")

        app.switch_to_profile(demo_profile or "demo")
        await settle(pilot)
        await runner.tick()  # its first round at start may have done it already
        assert active(sandbox, "rl-login")
        [done] = await list_timed(session, include_done=True)
        assert done.state == "reverted"


async def test_a_profile_switch_waits_for_a_revert_in_flight(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    import asyncio

    with session.locations.config_file.open("a", encoding="utf-8") as config:
        config.write('\n[profiles.other]\nbase_url = "http://127.0.0.1:9"\n')
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None
        demo_profile = session.settings.profile_name
        await timed_limiter(pilot, "rl-login", "30m")
        clock.move(minutes=31)
        sandbox.faults.hold_requests()
        in_flight = asyncio.create_task(runner.tick())
        assert await sandbox.faults.wait_until_held_async(1)
        app.switch_to_profile("other")
        for _ in range(5):
            await pilot.pause()
        assert session.settings.profile_name == demo_profile  # waits for the revert
        assert runner.busy
        sandbox.faults.release()
        [report] = await in_flight
        await settle(pilot)
        assert report.action == "reverted"  # answered and journaled under its profile
        assert session.settings.profile_name == "other"
        assert active(sandbox, "rl-login")


async def test_the_marked_limiters_are_timed_with_one_duration(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        grid = app.screen.query_one(LimiterTable)
        for limiter_id in ("rl-login", "rl-checkout"):
            grid.move_cursor(row=grid.get_row_index(limiter_id), animate=False)
            await pilot.press("space")
        await pilot.press("f")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        dialog.query_one("#duration", Input).value = "45m"
        await pilot.pause()
        await press_closing(pilot)
        assert not active(sandbox, "rl-login") and not active(sandbox, "rl-checkout")
        pending = await list_timed(session)
        assert sorted(t.what for t in pending) == [
            "rate limiter rl-checkout",
            "rate limiter rl-login",
        ]
        assert {t.due_at.strftime("%H:%M") for t in pending} == {"12:45"}
        runner = app.services.timed_runner
        assert runner is not None
        clock.move(minutes=46)
        assert sorted(r.action for r in await runner.tick()) == ["reverted", "reverted"]
        assert active(sandbox, "rl-login") and active(sandbox, "rl-checkout")


# -- a change that supersedes a pending revert (#27 item 6) -----------------------------------


async def test_an_undo_of_a_timed_change_says_it_supersedes_the_revert_everywhere(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        runner = app.services.timed_runner
        assert runner is not None
        await timed_limiter(pilot, "rl-login", "30m")  # ON -> OFF, back at 12:30
        await runner.tick()
        assert "1 timed change · next in 30m" in bar_text(app)

        # Undo it from the Journal: the confirmation says the revert is superseded.
        await pilot.press("5")
        await settle(pilot)
        journal = app.screen.query_one(JournalTable)
        journal.move_cursor(row=0, animate=False)
        await pilot.press("u")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        facts = plain(dialog.query_one("#recent-changes", Static))
        assert "This supersedes timed change 1 (rate limiter rl-login -> ON in 30m)" in facts
        assert "its revert will not be sent" in facts
        await press_closing(pilot)
        assert active(sandbox, "rl-login")  # the undo put it back ON

        # The header no longer counts it; the Timed screen says superseded, not scheduled.
        await runner.tick()
        assert "timed change" not in bar_text(app)
        screen = await open_timed(pilot)
        table = screen.query_one("#timed-table")
        row = " ".join(c.plain for c in table.get_row_at(0))  # type: ignore[attr-defined]
        assert "superseded by #2" in row and "scheduled" not in row

        # When due, the run skips it as the views said: nothing more is sent.
        clock.move(minutes=31)
        reports = await runner.tick()
        assert [r.action for r in reports] == ["superseded"]
        assert limiter_puts(sandbox, "rl-login") == [{"isActive": False}, {"isActive": True}]


async def test_a_read_that_ends_while_the_timed_screen_closes_shows_nothing_and_fails_nothing(
    session: Session, sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The screen's widgets go before Textual cancels its workers: a read that ended in
    # between found "#timed-executor" gone (NoMatches, failed a run under load).
    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        screen = await open_timed(pilot)
        await settle(pilot)
        executor = screen.query_one("#timed-executor", Static)
        read = list_timed

        async def list_once_the_screen_is_going(*args: Any, **kwargs: Any) -> Any:
            rows = await read(*args, **kwargs)
            while executor.is_attached:  # the widgets are removed: the screen is going
                await asyncio.sleep(0)
            return rows

        monkeypatch.setattr(timed_screen, "list_timed", list_once_the_screen_is_going)
        screen.reread()
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, TimedScreen)
    assert app.return_code in (None, 0)  # a worker's failure would have been raised here
