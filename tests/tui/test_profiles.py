"""Profiles inside the app (#14 item 2): the switcher, switching, create / edit / remove.

In-process sandboxes (one per base URL) and a real config.toml in ``tmp_path``:
a switch changes the header, and a change made after it goes to the new
profile's base URL and is journaled under its name; profiles are created,
edited and removed through the form and the file is read back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, DataTable, Input

from bottui.api.tokens import AccessToken, ProjectToken
from bottui.demo import prepare
from bottui.sandbox import demo_data
from bottui.store.config.config_file import ConfigStore
from bottui.tui import key_registry
from bottui.tui.app import BottuiApp
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.profile_switcher import ProfileForm, ProfileSwitcher
from bottui.tui.ui_rules import ContextBar
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_BASE_URL, SNAP_SIZE, AsgiBackend, fixed_clock
from tests.tui.helpers import keys_closing, settle

Snap = Callable[..., bool]
LAB_URL = "http://127.0.0.1:8766"
LAB = f"""
# the lab, kept by hand
[profiles.lab]
base_url = "{LAB_URL}"
protected = true
require_reason = true
account = "acme"
project = "shop-prod"

[profiles.staging]
base_url = "https://staging.example.com"
read_only = true
store = "postgresql://db.example.com/bottui"
"""


class Backends:
    """One in-process sandbox per base URL: which one a request reached is known."""

    def __init__(self) -> None:
        self.demo = AsgiBackend()
        self.lab = AsgiBackend()

    def client(self, base_url: str) -> Any:
        return (self.lab if base_url == LAB_URL else self.demo).client(base_url)


@pytest.fixture
def backends() -> Backends:
    return Backends()


@pytest.fixture
def app(tmp_path: Path, backends: Backends) -> BottuiApp:
    session = prepare(
        tmp_path / "demo", SNAP_BASE_URL, client_factory=backends.client, clock=fixed_clock
    )
    with session.locations.config_file.open("a", encoding="utf-8") as config:
        config.write(LAB)
    session.tokens.set_personal(
        LAB_URL, demo_data.DEMO_ACCOUNT, AccessToken(demo_data.DEMO_ACCESS_TOKEN)
    )
    for project, value in demo_data.project_tokens().items():
        session.tokens.set_project(LAB_URL, demo_data.DEMO_ACCOUNT, project, ProjectToken(value))
    return BottuiApp(session, demo=True)


def header(app: BottuiApp) -> str:
    return app.screen.query_one(ContextBar).where


def config_file(app: BottuiApp) -> str:
    return app.session.locations.config_file.read_text(encoding="utf-8")


async def open_switcher(pilot: Pilot[Any]) -> ProfileSwitcher:
    await settle(pilot)
    await pilot.press("P")
    await settle(pilot)
    switcher = pilot.app.screen
    assert isinstance(switcher, ProfileSwitcher)
    return switcher


async def highlight(pilot: Pilot[Any], name: str) -> None:
    table = pilot.app.screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index(name), animate=False)
    await pilot.pause()


def rows(switcher: ProfileSwitcher) -> list[list[str]]:
    table = switcher.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def test_snapshot_switcher(snap_compare: Snap, app: BottuiApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        switcher = await open_switcher(pilot)
        assert [row[1] for row in rows(switcher)] == ["demo", "lab", "staging"]

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_profile_form_edit(snap_compare: Snap, app: BottuiApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_switcher(pilot)
        await highlight(pilot, "staging")
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ProfileForm)

    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


async def test_the_switcher_lists_every_profile_and_its_flags(app: BottuiApp) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        switcher = await open_switcher(pilot)
        assert rows(switcher) == [
            ["▶ in use", "demo", SNAP_BASE_URL, "-"],
            ["", "lab", LAB_URL, "protected, reason required"],
            ["", "staging", "https://staging.example.com", "read-only, team store"],
        ]
        # The header stays on screen over the dialog.
        assert switcher.query_one(ContextBar).where.startswith(" demo · ")


async def test_a_switch_repoints_the_header_the_client_and_the_journal(
    app: BottuiApp, backends: Backends
) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_switcher(pilot)
        await highlight(pilot, "lab")
        await pilot.press("enter")
        await settle(pilot)
        assert header(app) == f" lab · {LAB_URL} · acme / shop-prod"
        assert "PROTECTED" in str(app.screen.query_one(ContextBar).render())
        assert ConfigStore(app.session.locations).load().current == "lab"
        # A change now goes to the lab's URL, journaled under the lab's name.
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("i", *"vis_7Hq2kP9xLm", "enter", "enter")
        await settle(pilot)
        app.screen.query_one("#reason", Input).value = "INC-1 lab"  # the first field (#24)
        await pilot.press("enter", *"shop-prod", "enter")  # the project id, last
        await settle(pilot)
        assert backends.lab.state.recorder.stats().requests == 1
        assert backends.demo.state.recorder.stats().requests == 0
    with journal_of(app.session) as journal:
        [entry] = journal.entries()
    assert (entry.profile, entry.base_url, entry.reason) == ("lab", LAB_URL, "INC-1 lab")


async def test_a_switch_to_a_read_only_profile_refuses_changes(app: BottuiApp) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_switcher(pilot)
        await highlight(pilot, "staging")
        await pilot.press("enter")
        await settle(pilot)
        assert header(app).startswith(" staging · https://staging.example.com · ")
        assert app.screen.query_one("#readonly-banner").display
        await app.screen.run_action("disable")
        await settle(pilot)
        assert any(n.title == "Read-only profile" for n in app._notifications)


async def test_the_leave_hook_can_keep_the_profile(app: BottuiApp) -> None:
    async def refuse() -> bool:
        return False

    app.confirm_leave_profile = refuse  # type: ignore[method-assign]
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_switcher(pilot)
        await highlight(pilot, "lab")
        await pilot.press("enter")
        await settle(pilot)
        assert header(app).startswith(" demo · ")
        assert app.session.settings.profile_name == "demo"


async def test_create_a_profile_with_every_option(app: BottuiApp) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_switcher(pilot)
        await pilot.press("n")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, ProfileForm)
        form.query_one("#profile", Input).value = "eu"
        form.query_one("#base-url", Input).value = "https://eu.example.com/"
        form.query_one("#store", Input).value = "postgresql://bob:pw@db/x"
        await pilot.pause()
        assert form.query_one("#form-submit").disabled  # a store URL with a password
        form.query_one("#store", Input).value = "postgresql://db.example.com/team"
        form.query_one("#operator", Input).value = "alice"
        for flag in ("read-only", "protected", "require-reason"):
            form.query_one(f"#{flag}", Checkbox).value = True
        await pilot.pause()
        assert "Read-only (on)" in str(form.query_one("#read-only", Checkbox).label)
        await pilot.click("#form-submit")
        await settle(pilot)
        assert isinstance(app.screen, ProfileSwitcher)
        assert [
            "",
            "eu",
            "https://eu.example.com",
            "read-only, protected, reason required, team store",
        ] in rows(app.screen)
    profile = ConfigStore(app.session.locations).load().profiles["eu"]
    assert (profile.read_only, profile.protected, profile.require_reason) == (True, True, True)
    assert (profile.store, profile.operator) == ("postgresql://db.example.com/team", "alice")
    assert "# the lab, kept by hand" in config_file(app)
    assert app.session.settings.profile_name == "demo"  # created, not switched to


async def test_edit_keeps_the_name_and_the_comments(app: BottuiApp) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_switcher(pilot)
        await highlight(pilot, "lab")
        await pilot.press("e")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, ProfileForm) and not form.query("#profile")
        form.query_one("#require-reason", Checkbox).value = False
        form.query_one("#base-url", Input).value = "http://127.0.0.1:8767"
        await pilot.pause()
        await pilot.click("#form-submit")
        await settle(pilot)
    lab = ConfigStore(app.session.locations).load().profiles["lab"]
    assert lab.base_url == "http://127.0.0.1:8767" and not lab.require_reason
    assert lab.protected and (lab.account, lab.project) == ("acme", "shop-prod")
    assert "# the lab, kept by hand" in config_file(app)


async def test_editing_the_profile_in_use_applies_at_once(app: BottuiApp) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await open_switcher(pilot)
        await pilot.press("e")  # the highlighted row is the profile in use
        await settle(pilot)
        app.screen.query_one("#read-only", Checkbox).value = True
        await pilot.pause()
        await pilot.click("#form-submit")
        await settle(pilot)
        assert app.session.settings.read_only
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.query_one("#readonly-banner").display


async def test_remove_asks_first_and_never_the_profile_in_use(app: BottuiApp) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        switcher = await open_switcher(pilot)
        await pilot.press("x")  # the profile in use: refused, nothing asked
        await settle(pilot)
        assert app.screen is switcher
        assert any(n.title == "This is the profile in use" for n in app._notifications)
        await highlight(pilot, "staging")
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("enter")  # Cancel has the focus: nothing removed
        await settle(pilot)
        assert "staging" in ConfigStore(app.session.locations).load().profiles
        await pilot.press("x")
        await settle(pilot)
        await keys_closing(pilot, "tab", "enter")
        assert [row[1] for row in rows(switcher)] == ["demo", "lab"]
    assert set(ConfigStore(app.session.locations).load().profiles) == {"demo", "lab"}
    assert "# the lab, kept by hand" in config_file(app)


async def test_the_palette_has_switch_profile(app: BottuiApp) -> None:
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        titles = [command.title for command in key_registry.commands(app)]
        assert "Switch profile" in titles


async def test_a_flag_box_is_drawn_empty_when_off(app: BottuiApp) -> None:
    """Not ``▐X▌ Read-only (off)``: the X read as checked (#27)."""
    async with app.run_test(size=SNAP_SIZE) as pilot:
        switcher = await open_switcher(pilot)
        assert switcher is pilot.app.screen
        await pilot.press("n")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, ProfileForm)
        box = form.query_one("#read-only", Checkbox)
        assert not box.value
        drawn = box.render().plain
        assert drawn.startswith("[ ]") and "X" not in drawn and "▐" not in drawn, drawn
        box.value = True
        await pilot.pause()
        assert box.render().plain.startswith("[x]")
