"""The first run: the first profile, made on the way to the first project, or the demo.

With nothing configured, the Projects screen shows a welcome offering two
ways in. Adding a project with no base URL yet first asks for a profile
(name, base URL, protected): :func:`ask_first_profile` shows the form, saves
the profile in a daemon thread (written to ``config.toml`` and made current)
and posts :class:`ProfileSaved` to the screen, whose handler calls
:func:`use_saved_profile` and then asks for the project. Starting the demo
leaves the app with :data:`~bottui.tui.run.START_DEMO` (the tui layer may
not import :mod:`bottui.demo`; the CLI starts it).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from bottui.ops.session import Settings
from bottui.plaintext import clean
from bottui.store.config import ConfigStore, Profile
from bottui.store.executor import run_blocking
from bottui.store.paths import Locations
from bottui.tui.error_view import EXPECTED_ERRORS
from bottui.tui.run import START_DEMO
from bottui.tui.screens.base import BottuiScreen
from bottui.tui.screens.project_dialogs import ProfileForm


@dataclass
class ProfileSaved(Message):
    """The first profile was saved; ``settings`` are the session's new settings."""

    settings: Settings


def save_profile(locations: Locations, profile: Profile, old: Settings) -> Settings:
    """Add ``profile``, make it current, and resolve the settings it gives (blocking)."""
    store = ConfigStore(locations)
    store.add_profile(profile)
    store.use(profile.name)
    # What came from the command line (--read-only, --account, --project) still holds.
    return Settings.resolve(
        store.load(), account=old.account, project=old.project, read_only=old.read_only
    )


def ask_first_profile(screen: BottuiScreen) -> None:
    """Ask for the profile; once saved, post :class:`ProfileSaved` to ``screen``."""
    services = screen.services
    session = services.session
    try:
        existing = list(ConfigStore(session.locations).load().profiles)
    except EXPECTED_ERRORS as exc:
        services.report(exc)
        return

    def chosen(profile: Profile | None) -> None:
        if profile is None:
            return
        old = session.settings

        async def work() -> Settings:
            return await run_blocking(lambda: save_profile(session.locations, profile, old))

        screen.call(
            work,
            label="saving the profile",
            done=lambda settings: ProfileSaved(settings),
            group="config",
        )

    screen.app.push_screen(ProfileForm(existing=existing), chosen)


def use_saved_profile(screen: BottuiScreen, settings: Settings) -> None:
    """Make the saved profile's settings the session's and say so."""
    services = screen.services
    services.session.update_settings(settings)
    screen.notify(
        clean(
            f"Profile {settings.profile_name} saved ({settings.base_url}) "
            "and made current. Now the project:"
        ),
        title="Profile",
        markup=False,
    )
    services.inventory_changed()


def start_demo(screen: BottuiScreen) -> None:
    """Leave the app so that the CLI starts ``bottui demo`` (not from the demo itself)."""
    if screen.services.demo:
        return
    screen.app.exit(START_DEMO)
