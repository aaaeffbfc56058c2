"""The TUI writes config.toml only on the store executor, never on its event loop (#11).

The theme chosen, a project's threshold settings and the first run's profile
are each written by :mod:`bottui.ops.profiles` through
:class:`~bottui.store.config.async_facade.AsyncConfigStore`. Each test drives the
real app over a real ``config.toml`` in ``tmp_path`` and records the thread
of every file write: none may be the event loop's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Input

import bottui.store.config.config_file
from bottui.ops import profiles
from bottui.ops.session import Session, Settings
from bottui.store.config.config_file import ConfigStore, write_atomic
from bottui.store.config.config_model import ProjectSettings
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenStore
from bottui.tui.app import BottuiApp
from bottui.tui.screens.profile_switcher import ProfileForm
from bottui.tui.screens.threshold_dialogs import ThresholdSettingsDialog
from bottui.tui.screens.thresholds_screen import ThresholdsScreen
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle
from tests.tui.test_thresholds import SHOP, retype

MakeApp = Callable[..., BottuiApp]


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """The thread of each config.toml write from now on (the write itself still happens)."""
    seen: list[threading.Thread] = []

    def recorded(path: Path, text: str) -> None:
        seen.append(threading.current_thread())
        write_atomic(path, text)

    monkeypatch.setattr(bottui.store.config.config_file, "write_atomic", recorded)
    return seen


def assert_off_the_loop(writes: list[threading.Thread], loop_thread: threading.Thread) -> None:
    assert writes, "nothing was written"
    assert all(thread is not loop_thread for thread in writes), writes
    assert all(thread.name.startswith("bottui-store-config-write") for thread in writes), writes


async def test_the_theme_chosen_is_written_off_the_loop(
    make_snap_app: MakeApp, writes: list[threading.Thread]
) -> None:
    holder: list[Session] = []

    async def remember(theme: str) -> None:  # what tui/launch.py hands the app
        await profiles.remember_theme(holder[0].config_store, theme)

    app = make_snap_app(remember_theme=remember)
    holder.append(app.session)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        loop_thread = threading.current_thread()
        app.theme = "gruvbox"
        await settle(pilot)
    assert_off_the_loop(writes, loop_thread)
    assert ConfigStore(app.session.locations).load().theme == "gruvbox"


async def test_threshold_settings_are_written_off_the_loop(
    make_snap_app: MakeApp, writes: list[threading.Thread]
) -> None:
    app = make_snap_app(start_mode="thresholds")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        loop_thread = threading.current_thread()
        await pilot.press("s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ThresholdSettingsDialog)
        await retype(pilot, dialog.query_one("#threshold-max", Input), "100")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ThresholdsScreen)
    assert_off_the_loop(writes, loop_thread)
    expected = ProjectSettings(threshold_min=0, threshold_max=100)
    assert ConfigStore(app.session.locations).load().profiles["demo"].projects[SHOP] == expected
    assert app.session.settings.project_settings(*SHOP) == expected


async def test_the_first_profile_is_written_off_the_loop(
    tmp_path: Path, writes: list[threading.Thread]
) -> None:
    session = Session(
        Locations.under(tmp_path),
        Settings(profile_name=None, base_url=None),
        TokenStore(environ={}),
    )
    app = BottuiApp(session)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        loop_thread = threading.current_thread()
        await pilot.press("a")
        await settle(pilot)
        form: Any = app.screen
        assert isinstance(form, ProfileForm)
        form.query_one("#base-url", Input).value = "https://api.example.com"
        await pilot.pause()
        await pilot.click("#form-submit")
        await settle(pilot)
        assert not isinstance(app.screen, ProfileForm)
        assert app.screen.query_one("#form-submit", Button)  # on to the project form
    assert_off_the_loop(writes, loop_thread)
    config = ConfigStore(session.locations).load()
    assert config.current == "default" and session.settings.profile_name == "default"


async def test_a_damaged_config_closes_the_first_profile_form_and_says_why(
    tmp_path: Path, writes: list[threading.Thread]
) -> None:
    # The names taken are read off the loop after the form opens; a config.toml
    # that cannot be read closes it again and is reported, and nothing is written.
    locations = Locations.under(tmp_path)
    locations.config_dir.mkdir(parents=True)
    locations.config_file.write_text("current = [unclosed\n", encoding="utf-8")
    session = Session(locations, Settings(profile_name=None, base_url=None), TokenStore(environ={}))
    app = BottuiApp(session)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, ProfileForm)
        assert any("config.toml" in f"{n.title} {n.message}" for n in app._notifications)
    assert writes == []
