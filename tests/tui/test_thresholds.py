"""The Thresholds screen: snapshots (in-process sandbox) and flows (loopback sandbox)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from bottui.api.models import DimensionThresholds
from bottui.ops.thresholds import never_reached
from bottui.sandbox.demo_data import (
    DEMO_ACCOUNT,
    HOSTILE_ANSI,
    HOSTILE_BIDI,
    HOSTILE_C1,
    HOSTILE_DIMENSION_IDS,
    HOSTILE_MARKUP,
    HOSTILE_PROJECT_ID,
)
from bottui.sandbox.server import SandboxServer
from bottui.store.config.config_file import ConfigStore
from bottui.store.config.config_model import ProjectSettings
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import DryRunDialog
from bottui.tui.screens.threshold_dialogs import (
    AddDimensionDialog,
    ThresholdEditor,
    ThresholdSettingsDialog,
)
from bottui.tui.screens.thresholds_screen import DimensionTable, ThresholdsScreen, check_words, when
from bottui.tui.widgets.threshold_field import Slider, ThresholdField, check_threshold
from tests.fixtures.stores import inventory_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import keys_closing, plain, settle, until

SMALL = (80, 24)
Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]
SHOP = (DEMO_ACCOUNT, "shop-prod")


def rows(app: BottuiApp) -> dict[str, list[str]]:
    grid = app.screen.query_one(DimensionTable)
    out: dict[str, list[str]] = {}
    for index in range(grid.row_count):
        cells = [cell.plain for cell in grid.get_row_at(index)]
        out[cells[0]] = cells
    return out


def recorder(app: BottuiApp) -> Any:
    """The in-process sandbox's request recorder (``make_snap_app`` sets ``backend``)."""
    return app.backend.state.recorder  # type: ignore[attr-defined]


def editor(app: BottuiApp) -> ThresholdEditor:
    screen = app.screen
    assert isinstance(screen, ThresholdEditor)
    return screen


def field(app: BottuiApp, name: str) -> ThresholdField:
    return editor(app).query_one(f"#{name}", ThresholdField)


async def open_editor(pilot: Pilot[Any], dimension_id: str = "bot-score") -> ThresholdEditor:
    await settle(pilot)
    grid = pilot.app.screen.query_one(DimensionTable)
    grid.move_cursor(row=grid.get_row_index(dimension_id), animate=False)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    return editor(pilot.app)  # type: ignore[arg-type]


async def retype(pilot: Pilot[Any], target: Input, text: str) -> None:
    """Focus an input and replace its text (as a paste would: one Changed).

    Typing key by key costs ~0.1 s a key under Pilot; the keys-only flow
    below types for real.
    """
    target.focus()
    await pilot.pause()
    target.value = text
    await pilot.pause()


def thresholds_app(make_snap_app: MakeApp, **options: Any) -> BottuiApp:
    return make_snap_app(start_mode="thresholds", **options)


# -- pure rules ------------------------------------------------------------------


def test_check_threshold_keeps_the_typed_literal_and_checks_the_range() -> None:
    assert check_threshold("block threshold", "0.123456789", 0, 1) == ("0.123456789", None)
    assert check_threshold("block threshold", " 0.50 ", 0, 1) == ("0.50", None)
    assert check_threshold("block threshold", "1", 0, 1) == ("1", None)
    assert check_threshold("block threshold", "nan", 0, 1)[1] == "must be a finite number"
    assert check_threshold("block threshold", "", 0, 1)[1] == "must not be empty"
    literal, error = check_threshold("block threshold", "1.0000001", 0, 1)
    assert literal is None and error is not None and "between 0 and 1" in error
    assert check_threshold("block threshold", "-5", -10, 10) == ("-5", None)


def test_never_reached_follows_the_direction() -> None:
    assert never_reached("0.8", "0.8", True)
    assert never_reached("0.8", "0.9", True)
    assert not never_reached("0.8", "0.5", True)
    assert never_reached("0.2", "0.1", False)
    assert not never_reached("0.2", "0.3", False)


def test_check_words_and_when() -> None:
    from bottui.store.inventory.inventory_records import DimensionEntry

    def entry(block: str | None, challenge: str | None) -> DimensionEntry:
        return DimensionEntry("a", "p", "d", "n", block, challenge, "", "user")

    settings = ProjectSettings()
    assert check_words(entry("0.8", "0.5"), settings) == ""
    assert check_words(entry("0.8", "0.9"), settings) == "challenge never reached"
    assert check_words(entry("1.5", "0.5"), settings) == "out of range"
    assert check_words(entry(None, "0.5"), settings) == "thresholds unknown"
    assert check_words(entry("0.8", "0.9"), ProjectSettings(higher_is_riskier=False)) == ""
    assert when("2026-11-21T03:00:00.123456Z") == "2026-11-21 03:00 UTC"
    assert when("yesterday") == "yesterday"


# -- snapshots ---------------------------------------------------------------------


def test_snapshot_table(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        assert set(rows(pilot.app)) == {"bot-score", "velocity", "ip-reputation"}  # type: ignore[arg-type]

    assert snap_compare(
        thresholds_app(make_snap_app), terminal_size=SNAP_SIZE, run_before=run_before
    )


def test_snapshot_table_small(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)

    assert snap_compare(thresholds_app(make_snap_app), terminal_size=SMALL, run_before=run_before)


def test_snapshot_editor(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await open_editor(pilot)
        block = screen.query_one("#block", ThresholdField)
        assert pilot.app.focused is block.slider
        assert block.text == "0.8" and screen.query_one("#challenge", ThresholdField).text == "0.5"

    assert snap_compare(
        thresholds_app(make_snap_app), terminal_size=SNAP_SIZE, run_before=run_before
    )


def test_snapshot_editor_small(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_editor(pilot)
        await pilot.press("right")  # the block slider moves, its input follows
        await pilot.pause()
        assert field(pilot.app, "block").text == "0.81"  # type: ignore[arg-type]

    assert snap_compare(thresholds_app(make_snap_app), terminal_size=SMALL, run_before=run_before)


def test_snapshot_validation_errors(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_editor(pilot)
        app: BottuiApp = pilot.app  # type: ignore[assignment]
        await retype(pilot, field(app, "block").input, "nan")
        await retype(pilot, field(app, "challenge").input, "1.5")
        block, challenge = field(app, "block"), field(app, "challenge")
        assert block.error == "must be a finite number"
        assert challenge.error is not None and "between 0 and 1" in challenge.error
        submit = editor(app).query_one("#submit", Button)
        assert submit.disabled
        assert "Fix" in str(submit.label)

    assert snap_compare(
        thresholds_app(make_snap_app), terminal_size=SNAP_SIZE, run_before=run_before
    )


def test_snapshot_never_reached_warning(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_editor(pilot)
        app: BottuiApp = pilot.app  # type: ignore[assignment]
        await retype(pilot, field(app, "challenge").input, "0.9")
        warning = editor(app).query_one("#editor-warning", Static)
        assert warning.display and "never reached" in plain(warning)
        assert not editor(app).query_one("#submit", Button).disabled

    assert snap_compare(
        thresholds_app(make_snap_app), terminal_size=SNAP_SIZE, run_before=run_before
    )


def test_snapshot_confirmation_old_to_new(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_editor(pilot)
        app: BottuiApp = pilot.app  # type: ignore[assignment]
        await retype(pilot, field(app, "challenge").input, "0.123456789")
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        assert "block:     0.8 -> 0.8  (unchanged)" in body
        assert "challenge: 0.5 -> 0.123456789" in body
        assert "name:      Bot score -> Bot score  (unchanged)" in body
        assert "Warning" not in body
        assert str(dialog.query_one("#confirm", Button).label) == "Set thresholds"
        assert app.focused is not None and app.focused.id == "cancel"

    assert snap_compare(
        thresholds_app(make_snap_app), terminal_size=SNAP_SIZE, run_before=run_before
    )


def test_snapshot_never_reached_confirmation_small(
    snap_compare: Snap, make_snap_app: MakeApp
) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_editor(pilot)
        app: BottuiApp = pilot.app  # type: ignore[assignment]
        await retype(pilot, field(app, "challenge").input, "0.8")
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "anyway" in plain(dialog.query_one("#confirm-body", Static))
        assert str(dialog.query_one("#confirm", Button).label) == "Set anyway"

    assert snap_compare(thresholds_app(make_snap_app), terminal_size=SMALL, run_before=run_before)


def _seed_hostile(app: BottuiApp) -> None:
    inventory = inventory_of(app.session)
    assert inventory is not None
    names = (HOSTILE_MARKUP, HOSTILE_C1)
    for dimension_id, name in zip(HOSTILE_DIMENSION_IDS, names, strict=True):
        inventory.learn_thresholds(
            DEMO_ACCOUNT,
            HOSTILE_PROJECT_ID,
            dimension_id,
            DimensionThresholds(name=name, block="0.9", challenge="0.6"),
        )
    inventory.add_dimension(DEMO_ACCOUNT, HOSTILE_PROJECT_ID, "[/]", HOSTILE_ANSI + HOSTILE_BIDI)


def test_snapshot_hostile_table(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = thresholds_app(make_snap_app, hostile=True, current=(DEMO_ACCOUNT, HOSTILE_PROJECT_ID))
    _seed_hostile(app)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        assert set(rows(app)) == {*HOSTILE_DIMENSION_IDS, "[/]"}
        assert app.is_running

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_hostile_editor(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = thresholds_app(make_snap_app, hostile=True, current=(DEMO_ACCOUNT, HOSTILE_PROJECT_ID))
    _seed_hostile(app)

    async def run_before(pilot: Pilot[Any]) -> None:
        await open_editor(pilot, HOSTILE_DIMENSION_IDS[1])
        # A C1 control character in the known name: never put in an input; retype it.
        name = editor(app).query_one("#name", Input)
        assert name.value == "" and "control characters" in name.placeholder
        assert "must not be empty" in plain(editor(app).query_one("#name-error", Static))
        assert app.is_running

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


async def test_hostile_names_stay_literal_in_the_confirmation(make_snap_app: MakeApp) -> None:
    app = thresholds_app(make_snap_app, hostile=True, current=(DEMO_ACCOUNT, HOSTILE_PROJECT_ID))
    _seed_hostile(app)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_editor(pilot, HOSTILE_DIMENSION_IDS[0])
        assert editor(app).query_one("#name", Input).value == HOSTILE_MARKUP
        await pilot.press("enter")  # the focused slider: Enter reviews too
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = plain(dialog.query_one("#confirm-body", Static))
        assert HOSTILE_DIMENSION_IDS[0] in body and HOSTILE_PROJECT_ID in body
        assert f"name:      {HOSTILE_MARKUP} -> {HOSTILE_MARKUP}  (unchanged)" in body
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, ThresholdsScreen)


# -- flows against the loopback sandbox -------------------------------------------------


async def test_keys_only_edit_sends_the_typed_value_verbatim(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert isinstance(flow_app.screen, ThresholdsScreen)
        await pilot.press("enter")  # the first row: bot-score
        await pilot.pause()
        assert editor(flow_app).dimension_id == "bot-score"
        assert isinstance(flow_app.focused, Slider)
        await pilot.press("tab", "ctrl+a", "ctrl+k", *"0.123456789")
        await pilot.press("tab")  # the challenge slider
        assert flow_app.focused is field(flow_app, "challenge").slider
        await pilot.press("right", "right", "right", "left")
        await pilot.pause()
        assert field(flow_app, "block").text == "0.123456789"
        assert field(flow_app, "challenge").text == "0.52"
        # Tab to the challenge input; Tab from it (the last field) skips Cancel
        # to the review button (#14: Cancel would drop what was typed).
        await pilot.press("tab", "tab")
        submit: object = editor(flow_app).query_one("#submit", Button)
        assert flow_app.focused is submit
        await pilot.press("enter")
        await until(lambda: isinstance(flow_app.screen, ConfirmDialog), pilot)
        assert sandbox.stats.requests == 0  # nothing sent before the confirmation
        await keys_closing(pilot, "tab", "enter")
        assert isinstance(flow_app.screen, ThresholdsScreen)
        assert sandbox.stats.requests == 1
        record = sandbox.state.recorder.log[-1]
        assert record.method == "PUT"
        assert record.segments[-1] == "bot-score"
        assert b'"blockThreshold":0.123456789' in record.body
        assert b'"challengeThreshold":0.52' in record.body
        assert json.loads(record.body)["name"] == "Bot score"
        dimension = sandbox.state.dimension(DEMO_ACCOUNT, "shop-prod", "bot-score")
        assert dimension is not None and dimension.block_threshold_raw == "0.123456789"
        # The ops layer taught the inventory; the table shows it.
        assert rows(flow_app)["bot-score"][2:4] == ["0.123456789", "0.52"]
        panel = flow_app.screen.query_one("#thresholds-result")
        assert plain(panel.query_one(".attempt-headline", Static)) == "Set: dimension bot-score"
        # Another project: its own latest attempt (none).
        flow_app.services.choose_project(DEMO_ACCOUNT, "shop-staging")
        await settle(pilot)
        assert not panel.display


async def test_cancel_in_the_confirmation_keeps_the_edit_and_sends_nothing(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await open_editor(pilot, "velocity")
        await retype(pilot, field(flow_app, "block").input, "0.95")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter")  # focus starts on Cancel
        await until(lambda: isinstance(flow_app.screen, ThresholdEditor), pilot)
        assert field(flow_app, "block").text == "0.95"
        await pilot.press("escape")  # an edit unsent: asks first (#14), then discarded
        await pilot.pause()
        await pilot.click("#discard")
        await settle(pilot)
        assert isinstance(flow_app.screen, ThresholdsScreen)
        assert sandbox.stats.requests == 0
        assert rows(flow_app)["velocity"][2] == "0.9"


async def test_dry_run_shows_the_request_and_sends_nothing(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4", "D")
        await open_editor(pilot)
        await pilot.press("tab", "enter")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, DryRunDialog)
        shown = plain(dialog.query_one("#dry-run", Static))
        assert "PUT " in shown and '"blockThreshold":0.8' in shown
        assert sandbox.stats.requests == 0


async def test_service_error_is_reported_and_the_inventory_unchanged(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    # The sandbox has no such dimension: the update fails; nothing is learned.
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4", "a")
        await until(lambda: isinstance(flow_app.screen, AddDimensionDialog), pilot)
        await pilot.press(*"ghost", "tab", *"Ghost", "enter")
        await pilot.pause()
        assert editor(flow_app).dimension_id == "ghost"
        await retype(pilot, field(flow_app, "block").input, "0.9")
        await retype(pilot, field(flow_app, "challenge").input, "0.5")
        await pilot.press("enter")
        await pilot.pause()
        await keys_closing(pilot, "tab", "enter")
        assert sandbox.stats.requests == 1
        assert sandbox.state.recorder.log[-1].status not in (200, 204)
        assert flow_app.services.last_error is not None
        # The result panel is this latest attempt: failed, with what and why (#14).
        panel = flow_app.screen.query_one("#thresholds-result")
        assert panel.display
        assert plain(panel.query_one(".attempt-headline", Static)).startswith("FAILED: Not found")
        assert "dimension ghost" in plain(panel.query_one(".attempt-body", Static))
        logged = flow_app.services.errors.latest
        assert logged is not None and logged.operation == "Set thresholds"
        assert logged.target.startswith("acme / shop-prod · dimension ghost")
        inventory = inventory_of(flow_app.session)
        assert inventory is not None
        ghost = inventory.dimension(DEMO_ACCOUNT, "shop-prod", "ghost")
        assert ghost is not None and ghost.name == "Ghost" and ghost.block is None
        # What was confirmed but not accepted is not lost: the editor reopens with it.
        grid = flow_app.screen.query_one(DimensionTable)
        grid.move_cursor(row=grid.get_row_index("ghost"), animate=False)
        await pilot.press("enter")
        await pilot.pause()
        assert field(flow_app, "block").text == "0.9"
        assert field(flow_app, "challenge").text == "0.5"
        assert "failed" in plain(editor(flow_app).query_one("#editor-draft", Static))


# -- profiles that refuse or guard changes (in-process) ------------------------------------


async def test_read_only_refuses_and_keeps_the_editor(make_snap_app: MakeApp) -> None:
    from msgspec.structs import replace

    app = thresholds_app(make_snap_app)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_editor(pilot)
        # Made read-only while the editor is open: its submit is refused, edits kept.
        app.session.settings = replace(app.session.settings, read_only=True)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ThresholdEditor)
        assert any("Read-only" in str(n.title) for n in app._notifications)
        assert recorder(app).stats().requests == 0


async def test_protected_profile_wants_the_project_id_typed(make_snap_app: MakeApp) -> None:
    from msgspec.structs import replace

    from bottui.tui.screens.change_form import TypedConfirmDialog

    app = thresholds_app(make_snap_app)
    app.session.settings = replace(app.session.settings, protected=True)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_editor(pilot, "velocity")
        await retype(pilot, field(app, "challenge").input, "0.65")
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, TypedConfirmDialog)
        confirm = dialog.query_one("#confirm", Button)
        assert confirm.disabled
        dialog.query_one("#typed", Input).value = "shop-prod"
        await pilot.pause()
        assert not confirm.disabled
        confirm.press()
        await settle(pilot)
        body = recorder(app).last().body
        assert body == b'{"name":"Request velocity","blockThreshold":0.9,"challengeThreshold":0.65}'
        assert rows(app)["velocity"][2:4] == ["0.9", "0.65"]


# -- add, forget, settings, no project (in-process) --------------------------------------


async def test_enter_in_the_add_dialog_moves_from_id_to_name(make_snap_app: MakeApp) -> None:
    app = thresholds_app(make_snap_app)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a", *"geo", "enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, AddDimensionDialog)
        assert app.focused is dialog.query_one("#dimension-name", Input)
        assert not dialog.query_one("#dimension-name-error", Static).display
        await pilot.press("enter")
        await pilot.pause()
        assert "must not be empty" in plain(dialog.query_one("#dimension-name-error", Static))
        await pilot.press("escape")
        await pilot.pause()
        assert "geo" not in rows(app)


async def test_add_validates_then_opens_the_editor(make_snap_app: MakeApp) -> None:
    app = thresholds_app(make_snap_app)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, AddDimensionDialog)
        save = dialog.query_one("#save", Button)
        assert save.disabled
        await retype(pilot, dialog.query_one("#dimension-id", Input), "bot-score")
        assert "in the list already" in plain(dialog.query_one("#dimension-id-error", Static))
        await retype(pilot, dialog.query_one("#dimension-id", Input), "..")
        assert "path segment" in plain(dialog.query_one("#dimension-id-error", Static))
        await retype(pilot, dialog.query_one("#dimension-id", Input), "geo/[b]risk[/b]")
        assert save.disabled  # the name is still empty
        await retype(pilot, dialog.query_one("#dimension-name", Input), "Geo risk")
        assert not save.disabled
        await pilot.press("enter")
        await pilot.pause()
        screen = editor(app)
        assert screen.dimension_id == "geo/[b]risk[/b]"
        assert screen.query_one("#name", Input).value == "Geo risk"
        assert field(app, "block").text == "" and field(app, "block").error == "must not be empty"
        await pilot.press("escape")
        await settle(pilot)
        row = rows(app)["geo/[b]risk[/b]"]
        assert row[1:4] == ["Geo risk", "unknown", "unknown"]
        assert row[4] == "thresholds unknown"


async def test_forget_asks_and_removes_locally(make_snap_app: MakeApp) -> None:
    app = thresholds_app(make_snap_app)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        grid = app.screen.query_one(DimensionTable)
        grid.move_cursor(row=grid.get_row_index("velocity"), animate=False)
        await pilot.press("x")
        await until(lambda: isinstance(app.screen, ConfirmDialog), pilot)
        await pilot.press("enter")  # Cancel has focus
        await pilot.pause()
        assert "velocity" in rows(app)
        await pilot.press("x")
        await pilot.pause()
        await keys_closing(pilot, "tab", "enter")
        assert "velocity" not in rows(app)
        assert recorder(app).stats().requests == 0


async def test_settings_change_range_and_direction(make_snap_app: MakeApp) -> None:
    app = thresholds_app(make_snap_app)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ThresholdSettingsDialog)
        await retype(pilot, dialog.query_one("#threshold-max", Input), "-1")
        assert dialog.query_one("#save", Button).disabled
        assert "greater than the minimum" in plain(dialog.query_one("#threshold-max-error", Static))
        await retype(pilot, dialog.query_one("#threshold-max", Input), "100")
        dialog.query_one("#threshold-direction").value = "lower"  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ThresholdsScreen)
        expected = ProjectSettings(threshold_min=0, threshold_max=100, higher_is_riskier=False)
        assert app.session.settings.project_settings(*SHOP) == expected
        saved = ConfigStore(app.session.locations).load().profiles["demo"].projects[SHOP]
        assert saved == expected
        assert "Range 0 to 100" in plain(app.screen.query_one("#thresholds-hint", Static))
        # Lower is riskier now: 0.8 / 0.5 leaves the challenge unreachable.
        assert rows(app)["bot-score"][4] == "challenge never reached"
        screen = await open_editor(pilot)
        assert screen.query_one("#block", ThresholdField).slider.maximum == 100


async def test_settings_need_a_profile(make_snap_app: MakeApp) -> None:
    from msgspec.structs import replace

    app = thresholds_app(make_snap_app)
    app.session.settings = replace(app.session.settings, profile_name=None)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await until(lambda: isinstance(app.screen, ThresholdsScreen), pilot)
        assert any("profile" in str(n.message) for n in app._notifications)


async def test_no_project_points_to_projects(make_snap_app: MakeApp) -> None:
    app = thresholds_app(make_snap_app)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        app.services.choose_project(None, None)
        await settle(pilot)
        empty = app.screen.query_one("#thresholds-empty", Static)
        assert empty.display and "Press 1" in plain(empty)
        assert not app.screen.query_one(DimensionTable).display
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ThresholdsScreen), pilot)


async def test_help_lists_the_screen_keys(make_snap_app: MakeApp) -> None:
    app = thresholds_app(make_snap_app)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ThresholdsScreen)
        help_rows = dict(screen.key_help_rows())
        descriptions = set(help_rows.values())
        assert {"Edit thresholds", "Add dimension", "Forget", "Range/direction"} <= descriptions
        await open_editor(pilot)
        ids = {active.binding.id for active in app.screen.active_bindings.values()}
        assert {"slider.increase", "slider.decrease_coarse", "thresholds.editor.cancel"} <= ids
