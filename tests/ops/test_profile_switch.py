"""Profile options and switching, as the TUI's profile switcher uses them (#14 item 2).

On a real config.toml in ``tmp_path``: every option a profile holds is checked
with the store's rules, an edit keeps what the form does not show, the profile
in use cannot be removed, and a switch reads the other profile afresh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bottui.api.errors import RefusedError, ValidationError
from bottui.ops import profiles
from bottui.ops.session import Session, Settings
from bottui.store.config.config_file import ConfigStore
from bottui.store.config.config_model import Profile, ProjectSettings
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenStore

URL = "https://api.example.com"
COMMENTED = """# my profiles
current = "prod"

[profiles.prod]  # the real one
base_url = "https://api.example.com"
account = "acme"
project = "shop"

[[profiles.prod.projects]]
account = "acme"
project = "shop"
threshold_min = 0.0
threshold_max = 100.0
higher_is_riskier = false

[profiles.staging]
base_url = "https://staging.example.com"
read_only = true
"""


@pytest.fixture
def session(tmp_path: Path) -> Session:
    locations = Locations.under(tmp_path)
    locations.config_file.parent.mkdir(parents=True, exist_ok=True)
    locations.config_file.write_text(COMMENTED, encoding="utf-8")
    config = ConfigStore(locations).load()
    return Session(locations, Settings.resolve(config, environ={}), TokenStore(environ={}))


def test_every_option_is_checked_with_the_stores_rules() -> None:
    assert profiles.check_store_url("  ") is None
    assert profiles.check_store_url("postgresql://db.example.com/bottui") == (
        "postgresql://db.example.com/bottui"
    )
    with pytest.raises(ValidationError) as refused:
        profiles.check_store_url("postgresql://bob:secret@db/bottui")
    assert refused.value.field == "store URL" and "secret" not in str(refused.value)
    with pytest.raises(ValidationError):
        profiles.check_store_url("mysql://db/x")
    assert profiles.check_operator("") is None
    assert profiles.check_operator(" alice ") == "alice"
    with pytest.raises(ValidationError):
        profiles.check_operator("al\x1bice")


def test_an_edit_keeps_the_defaults_and_threshold_settings(session: Session) -> None:
    old = ConfigStore(session.locations).load().profiles["prod"]
    edited = profiles.new_profile(
        "prod",
        "https://api2.example.com",
        read_only=True,
        protected=True,
        require_reason=True,
        store="postgresql://db.example.com/team",
        operator="alice",
        keep=old,
    )
    assert edited.account == "acme" and edited.project == "shop"
    assert edited.projects == {("acme", "shop"): ProjectSettings(0.0, 100.0, False)}
    assert (edited.read_only, edited.protected, edited.require_reason) == (True, True, True)
    assert edited.store == "postgresql://db.example.com/team" and edited.operator == "alice"


async def test_edit_and_add_write_every_option_and_keep_comments(session: Session) -> None:
    store = session.config_store
    old = (await store.load()).profiles["prod"]
    edited = profiles.new_profile(
        "prod", URL, require_reason=True, operator="alice", keep=old, read_only=True
    )
    await profiles.add_profile(store, edited, replace=True)
    await profiles.add_profile(
        store, Profile("lab", "http://127.0.0.1:9000", store="postgresql://db/team")
    )
    text = session.locations.config_file.read_text(encoding="utf-8")
    assert "# my profiles" in text and "# the real one" in text
    config = ConfigStore(session.locations).load()
    assert config.profiles["prod"] == edited
    assert config.profiles["lab"].store == "postgresql://db/team"
    assert config.current == "prod"


async def test_the_profile_in_use_cannot_be_removed(session: Session) -> None:
    with pytest.raises(RefusedError):
        await profiles.remove_other_profile(session, "prod")
    config = await profiles.remove_other_profile(session, "staging")
    assert set(config.profiles) == {"prod"}


async def test_a_switch_reads_the_other_profile_and_makes_it_current(session: Session) -> None:
    settings = await profiles.switch_profile(session, "staging")
    assert settings.profile_name == "staging" and settings.read_only
    assert settings.base_url == "https://staging.example.com" and settings.account is None
    assert ConfigStore(session.locations).load().current == "staging"


async def test_a_session_started_read_only_stays_read_only(session: Session) -> None:
    session.pinned_read_only = True
    settings = await profiles.settings_of(session, "prod")
    assert settings.read_only
    session.pinned_read_only = False
    assert not (await profiles.settings_of(session, "prod")).read_only
