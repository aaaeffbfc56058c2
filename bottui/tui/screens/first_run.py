"""The first run: the first profile, made on the way to the first project, or the demo.

With nothing configured, the Projects screen shows a welcome offering two
ways in. Adding a project with no base URL yet first asks for a profile
(every option: :mod:`~bottui.tui.screens.profile_switcher`): :func:`ask_first_profile`
reads the profile names taken and shows the form, whose checks are those of
:mod:`bottui.ops.profiles`; :func:`bottui.ops.profiles.create_first_profile`
saves it (written to ``config.toml`` on the store executor, never on the
event loop, and made current) and :class:`ProfileSaved` reaches the screen,
whose handler calls :func:`use_saved_profile` and then asks for the project.
Starting the demo
leaves the app with :data:`~bottui.tui.run_result.START_DEMO` (the tui layer may
not import :mod:`bottui.demo`; the CLI starts it).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from bottui.api.errors import BottuiError
from bottui.ops import profiles
from bottui.ops.session import Settings
from bottui.plaintext import clean
from bottui.store.config.model import Profile
from bottui.tui.error_view import EXPECTED_ERRORS
from bottui.tui.run_result import START_DEMO
from bottui.tui.screens.base import BottuiScreen
from bottui.tui.screens.profile_switcher import ProfileForm


@dataclass
class ProfileSaved(Message):
    """The first profile was saved; ``settings`` are the session's new settings."""

    settings: Settings


def ask_first_profile(screen: BottuiScreen) -> None:
    """Ask for the profile; once saved, post :class:`ProfileSaved` to ``screen``."""
    services = screen.services
    session = services.session

    def chosen(profile: Profile | None) -> None:
        if profile is None:
            return

        async def work() -> Settings:
            return await profiles.create_first_profile(session, profile)

        screen.call(
            work,
            label="saving the profile",
            done=lambda settings: ProfileSaved(settings),
            group="config",
        )

    # The form opens at once; the names taken are read off the loop and
    # reach it a moment later. A damaged config.toml closes it and is reported.
    form = ProfileForm(first=True)
    screen.app.push_screen(form, chosen)

    async def taken() -> list[str] | BottuiError:
        try:
            return list((await profiles.read_config(session.config_store)).profiles)
        except EXPECTED_ERRORS as exc:
            return exc

    def show(found: list[str] | BottuiError) -> None:
        if isinstance(found, list):
            form.know_existing(found)
            return
        if form.is_attached:
            form.dismiss(None)
        services.report(found)

    screen.load(taken, show, group="config-read")


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
