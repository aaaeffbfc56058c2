"""Start the TUI on the saved profile (``bottui`` with no command), on a terminal only."""

from __future__ import annotations

from types import SimpleNamespace

from bottui.ops.session import session_from_options
from bottui.store.config.config_file import ConfigStore
from bottui.store.files import Locations


def run_app(args: SimpleNamespace) -> int:
    """Build the session from the common options and the config; run the app."""
    from bottui.ops.profiles import remember_theme
    from bottui.tui.app import BottuiApp, need_terminal

    locations = Locations.default()
    # Read once, before the app (and its event loop) runs; every later
    # config edit is awaited on the store executor (bottui.ops.profiles).
    config = ConfigStore(locations).load()
    session = session_from_options(locations, config, args)
    need_terminal("bottui (the TUI)")  # after the config's own errors, which say more
    store = session.config_store

    async def remember(theme: str) -> None:
        await remember_theme(store, theme)

    app = BottuiApp(session, theme=config.theme, remember_theme=remember, keymap=config.keymap)
    try:
        result = app.run()
    finally:
        # The last changes go to the team store (bounded); the rest waits for the next run.
        app.services.stop_sharing()
    return result if isinstance(result, int) else 0
