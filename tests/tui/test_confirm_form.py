"""A change is sent only when the operator means it (#24).

A change's confirmation is a form read top to bottom: Enter in a field with
fields after it moves on; the change is sent by the confirm button or by Enter
in the last field of a complete form (the typed project id, on a protected
profile), never from an empty field; keys typed ahead while the dialog closes
never act on the screen below. Each test here failed with the dialogs of #14:
Enter in the typed id sent at once, and what followed landed on the screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from msgspec.structs import replace
from textual import events
from textual.pilot import Pilot
from textual.widgets import Button, Input

from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.screens.bulk_dialogs import BulkRunDialog
from bottui.tui.screens.change_form import ChangeForm, ConfirmDialog, TypedConfirmDialog
from bottui.tui.screens.grants import GrantsScreen
from bottui.tui.screens.journal import JournalScreen
from bottui.tui.screens.limiters import LimitersScreen
from bottui.tui.ui_rules import NOTE, WINDOW, KeyBar
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, sent, settle, until


class Clock:
    """The type-ahead window's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def guarded(app: BottuiApp) -> Clock:
    """The app's type-ahead window as it ships (tests/conftest.py turns it off), on a
    clock the test moves."""
    clock = Clock()
    app.typeahead.clock = clock
    app.typeahead.window = WINDOW
    return clock


def protect(app: BottuiApp) -> Clock:
    session = app.session
    session.settings = replace(session.settings, protected=True)
    return guarded(app)


def burst(app: BottuiApp, keys: list[str]) -> None:
    """Every key at once, as a terminal delivers what was typed over a slow link."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def disable(pilot: Pilot[Any]) -> ChangeForm:
    """``f`` on the Rate limiters screen: the confirmation it opens."""
    await settle(pilot)
    await pilot.press("f")
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, ChangeForm)
    return dialog


async def test_id_enter_30m_sends_nothing_and_nothing_reaches_the_screen(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    protect(flow_app)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await disable(pilot)
        assert isinstance(dialog, TypedConfirmDialog)
        # The form opens on its first field, never on the typed project id.
        assert flow_app.focused is dialog.query_one("#reason", Input)
        await pilot.press(*"shop-prod", "enter", *"30m")
        await settle(pilot)
        assert flow_app.screen is dialog and sent(sandbox) == []
        assert dialog.query_one("#reason", Input).value == "shop-prod"
        assert dialog.query_one("#duration", Input).value == "30m"


async def test_a_burst_follows_the_focus_and_sends_nothing(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    protect(flow_app)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await disable(pilot)
        assert isinstance(dialog, TypedConfirmDialog)
        burst(flow_app, [*"INC-7", "enter", *"30m", "enter", "3", "t"])
        await settle(pilot)
        fields = {i.id: i.value for i in dialog.query(Input)}
        assert fields == {"reason": "INC-7", "duration": "30m", "typed": "3t"}
        assert flow_app.screen is dialog and sent(sandbox) == []


async def test_enter_in_empty_fields_never_sends(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    protect(flow_app)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await disable(pilot)
        await pilot.press(*["enter"] * 6)
        await settle(pilot)
        assert flow_app.screen is dialog and sent(sandbox) == []
        assert flow_app.focused is dialog.query_one("#typed", Input)
        assert "Type exactly shop-prod" in plain(dialog.query_one("#typed-hint"))


async def test_a_deliberate_confirmation_sends_exactly_once(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    clock = protect(flow_app)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await disable(pilot)
        assert isinstance(dialog, TypedConfirmDialog)
        # Reason, no duration, the project id, Enter; then "30m" and Enter typed ahead.
        await pilot.press(*"INC-7", "enter", "enter", *"shop-prod", "enter")
        await pilot.press(*"30m", "enter", "t")
        await settle(pilot)
        assert isinstance(flow_app.screen, LimitersScreen)  # not Grants: "3" was dropped
        assert [(m, body) for m, _, body in sent(sandbox)] == [("PATCH", {"isActive": False})]
        bar = flow_app.screen.query_one(KeyBar)
        assert bar.note == NOTE and NOTE in bar.render().plain
        assert flow_app.typeahead.dropped == 5
        with journal_of(flow_app.session) as journal:
            (entry,) = journal.entries()
        assert entry.reason == "INC-7"
        # Once the window is over, the same key is a command again.
        clock.now += WINDOW + 0.01
        await until(lambda: bar.note == "", pilot)  # the note goes with the window
        await pilot.press("3")
        await settle(pilot)
        assert isinstance(flow_app.screen, GrantsScreen)


async def test_cancel_by_enter_also_keeps_keys_typed_ahead_off_the_screen(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    guarded(flow_app)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await disable(pilot)
        assert isinstance(dialog, ConfirmDialog)
        assert flow_app.focused is dialog.query_one("#cancel", Button)  # nothing to type
        await pilot.press("enter", "3", "f")
        await settle(pilot)
        assert isinstance(flow_app.screen, LimitersScreen) and sent(sandbox) == []


async def test_undo_id_enter_text_enter_sends_nothing(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    from bottui.ops import mutations
    from bottui.sandbox.demo_data import DEMO_ACCOUNT

    protect(flow_app)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await mutations.set_limiter(
            flow_app.session, DEMO_ACCOUNT, "shop-prod", "rl-login", False, confirmed=True
        )
        await pilot.press("5")
        await settle(pilot)
        assert isinstance(flow_app.screen, JournalScreen)
        await pilot.press("u")
        await settle(pilot)
        dialog = flow_app.screen
        assert isinstance(dialog, TypedConfirmDialog)
        await pilot.press(*"shop-prod", "enter", *"test done", "enter")
        await settle(pilot)
        assert flow_app.screen is dialog and len(sent(sandbox)) == 1  # the change, no undo
        # Deliberately: the id in its field, Enter there.
        typed = dialog.query_one("#typed", Input)
        typed.value = "shop-prod"
        await pilot.press("enter")
        await settle(pilot)
        assert [body for _, _, body in sent(sandbox)] == [{"isActive": False}, {"isActive": True}]


async def test_the_bulk_form_moves_forward_with_enter_and_starts_from_its_last_field(
    grants_app: BottuiApp, sandbox: SandboxServer, tmp_path: Path
) -> None:
    from tests.tui.test_bulk import NOT_STANDING, STANDING, open_bulk

    ids = tmp_path / "ids.txt"
    ids.write_text(f"{STANDING}\n{NOT_STANDING}\n")
    protect(grants_app)
    async with grants_app.run_test(size=SNAP_SIZE) as pilot:
        dialog = await open_bulk(pilot)
        await pilot.press("tab")  # from the pasted ids to the file
        path = dialog.query_one("#bulk-path", Input)
        assert grants_app.focused is path
        path.value = str(ids)
        await pilot.press("enter")  # Enter in the file: on to the concurrency
        concurrency = dialog.query_one("#bulk-concurrency", Input)
        assert grants_app.focused is concurrency
        await settle(pilot)  # the preview has read the file
        await pilot.press("tab")  # Tab from the last field: the Revoke button, not Cancel
        assert grants_app.focused is dialog.query_one("#bulk-start", Button)
        await pilot.press("shift+tab", "enter")  # Enter in the last field starts
        await settle(pilot)
        confirm = grants_app.screen
        assert isinstance(confirm, TypedConfirmDialog) and sent(sandbox) == []
        assert "Revoke 2 grants" in str(confirm.query_one("#confirm", Button).label)
        # The same rule there: reason, then the project id; Enter there sends once.
        await pilot.press(*"INC-3107", "enter", *"shop-prod", "enter")
        await settle(pilot)
        assert isinstance(grants_app.screen, BulkRunDialog)  # the run's progress
        await grants_app.workers.wait_for_complete()
        assert len(sent(sandbox)) == 2


async def test_keys_typed_for_a_refused_change_never_act_on_the_screen(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    # "Cannot undo" is a toast, not a dialog: the "e" of "shop-prod" opened the error log.
    from bottui.tui.screens.dialogs import ErrorLogScreen

    session = flow_app.session
    session.settings = replace(session.settings, read_only=True)
    guarded(flow_app)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f", *"shop-prod", "enter")
        await settle(pilot)
        assert isinstance(flow_app.screen, LimitersScreen)  # not the error log
        assert not isinstance(flow_app.screen, ErrorLogScreen)
        assert flow_app.typeahead.dropped == 10 and sent(sandbox) == []
