"""The profile edits both faces share (``bottui.ops.profiles``), on a real config.toml.

Each op is awaited on :class:`AsyncConfigStore` over a file in ``tmp_path``
and the file is read back. A refused value is the one
:class:`ValidationError` (exit 2, the field named, the check's own words
kept); a name taken or unknown at write time is the store's error.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import bottui.store.config.config_file
from bottui.api.errors import EXIT_REFUSED, RefusedError, ValidationError
from bottui.ops import profiles
from bottui.ops.session import Session, Settings
from bottui.store.config.async_facade import AsyncConfigStore
from bottui.store.config.config_file import ConfigStore, write_atomic
from bottui.store.config.config_model import ProjectSettings
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenStore
from bottui.store.store_errors import ProfileExists, ProfileNotFound

URL = "https://api.example.com"


@pytest.fixture
def locations(tmp_path: Path) -> Locations:
    return Locations.under(tmp_path)


@pytest.fixture
def store(locations: Locations) -> AsyncConfigStore:
    return AsyncConfigStore(locations)


def on_disk(locations: Locations) -> ConfigStore:
    return ConfigStore(locations)


# -- checks ---------------------------------------------------------------------------------


def test_a_checked_profile_keeps_the_url_the_cli_would_use() -> None:
    profile = profiles.new_profile(
        "prod", "https://API.example.com/v1/", protected=True, account="acme", project="shop"
    )
    assert profile.base_url == "https://api.example.com/v1"
    assert (profile.name, profile.protected, profile.read_only) == ("prod", True, False)
    assert (profile.account, profile.project) == ("acme", "shop")


@pytest.mark.parametrize(
    ("name", "url", "field", "title", "words"),
    [
        ("", URL, "profile name", "A profile name cannot be empty", ""),
        ("a\x1b[2Jb", URL, "profile name", "A profile name cannot hold control", "Name: "),
        ("taken", URL, "profile name", "Invalid profile name", profiles.NAME_TAKEN),
        ("p", "http://example.com", "base URL", "Refused plain http", "not a loopback host"),
        ("p", "ftp://x", "base URL", "Invalid base URL", "not an http(s) URL"),
        ("p", "https://u:pw@example.com", "base URL", "Invalid base URL", "credentials"),
        ("p", "http://127.0.0.1:99999", "base URL", "Invalid base URL", "1..65535"),
        ("p", "https://example.com/?k=v", "base URL", "Invalid base URL", "no query"),
    ],
)
def test_what_a_profile_cannot_be_is_one_validation_error(
    name: str, url: str, field: str, title: str, words: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        profiles.new_profile(name, url, existing={"taken"})
    error = caught.value
    assert error.field == field and error.exit_code == EXIT_REFUSED
    assert error.title.startswith(title)
    assert words in error.details
    assert "pw" not in str(error)  # a password typed into the URL is never echoed


def test_plain_http_to_loopback_is_a_profile() -> None:
    assert profiles.check_profile_url(" http://127.0.0.1:8765/ ") == "http://127.0.0.1:8765"


# -- edits ----------------------------------------------------------------------------------


async def test_the_first_profile_becomes_current_the_next_only_when_asked(
    store: AsyncConfigStore, locations: Locations
) -> None:
    first = await profiles.add_profile(store, profiles.new_profile("one", URL))
    assert first.current == "one"
    second = await profiles.add_profile(store, profiles.new_profile("two", URL))
    assert second.current == "one" and set(second.profiles) == {"one", "two"}
    third = await profiles.add_profile(store, profiles.new_profile("three", URL), make_current=True)
    assert third.current == "three"
    assert on_disk(locations).load() == third


async def test_a_taken_name_needs_replace(store: AsyncConfigStore, locations: Locations) -> None:
    await profiles.add_profile(store, profiles.new_profile("prod", URL))
    with pytest.raises(ProfileExists):
        await profiles.add_profile(store, profiles.new_profile("prod", "https://other.example"))
    assert on_disk(locations).load().profiles["prod"].base_url == URL
    replaced = profiles.new_profile("prod", "https://other.example", read_only=True)
    await profiles.add_profile(store, replaced, replace=True)
    assert on_disk(locations).load().profiles["prod"] == replaced


async def test_use_and_remove(store: AsyncConfigStore, locations: Locations) -> None:
    for name in ("one", "two"):
        await profiles.add_profile(store, profiles.new_profile(name, URL))
    await profiles.use_profile(store, "two")
    assert on_disk(locations).load().current == "two"
    await profiles.remove_profile(store, "two")
    config = await profiles.read_config(store)
    assert config.current is None and list(config.profiles) == ["one"]
    with pytest.raises(ProfileNotFound):
        await profiles.use_profile(store, "two")
    with pytest.raises(ProfileNotFound):
        await profiles.remove_profile(store, "two")


async def test_edits_keep_the_users_comments(store: AsyncConfigStore, locations: Locations) -> None:
    locations.config_dir.mkdir(parents=True)
    text = f'# mine\n[profiles.one]  # the first\nbase_url = "{URL}"\n'
    locations.config_file.write_text(text, encoding="utf-8")
    await profiles.add_profile(store, profiles.new_profile("two", URL))
    await profiles.remember_theme(store, "nord")
    written = locations.config_file.read_text(encoding="utf-8")
    assert "# mine" in written and "# the first" in written
    assert on_disk(locations).load().theme == "nord"


async def test_edits_run_on_the_config_write_lane(
    store: AsyncConfigStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []

    def recorded(path: Path, text: str) -> None:
        threads.append(threading.current_thread().name)
        write_atomic(path, text)

    monkeypatch.setattr(bottui.store.config.config_file, "write_atomic", recorded)
    await profiles.add_profile(store, profiles.new_profile("one", URL))
    await profiles.remember_theme(store, "nord")
    assert threads and all(name.startswith("bottui-store-config-write") for name in threads)


# -- the TUI's own ----------------------------------------------------------------------------


@pytest.fixture
async def first_run(locations: Locations) -> AsyncIterator[Session]:
    session = Session(
        locations,
        Settings(profile_name=None, base_url=None, account="acme", read_only=True),
        TokenStore(environ={}),
    )
    yield session
    await session.aclose()


async def test_the_first_profile_is_made_current_and_the_flags_still_hold(
    first_run: Session, locations: Locations
) -> None:
    profile = profiles.new_profile("work", "https://API.example.com/", protected=True)
    settings = await profiles.create_first_profile(first_run, profile)
    assert (settings.profile_name, settings.base_url) == ("work", URL)
    assert settings.protected
    assert settings.read_only and settings.account == "acme"  # from the command line
    assert on_disk(locations).load().current == "work"


async def test_project_settings_are_saved_in_the_profile_and_used_at_once(
    first_run: Session, locations: Locations
) -> None:
    settings = await profiles.create_first_profile(first_run, profiles.new_profile("work", URL))
    first_run.update_settings(settings)
    wanted = ProjectSettings(threshold_min=0, threshold_max=100, higher_is_riskier=False)
    updated = await profiles.save_project_settings(first_run, "acme", "shop", wanted)
    assert updated.project_settings("acme", "shop") == wanted
    assert first_run.settings.project_settings("acme", "shop") == wanted
    assert on_disk(locations).load().profiles["work"].projects[("acme", "shop")] == wanted


async def test_project_settings_need_a_profile(first_run: Session, locations: Locations) -> None:
    with pytest.raises(RefusedError, match="No profile"):
        await profiles.save_project_settings(first_run, "acme", "shop", ProjectSettings())
    assert not locations.config_file.exists()
