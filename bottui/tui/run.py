"""Start the TUI on the saved profile (``bottui`` with no command)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Final

from bottui.ops.session import session_from_options
from bottui.store.config import ConfigStore
from bottui.store.paths import Locations

#: What :func:`run_app` returns when the operator chose "Start the demo" on the
#: first-run welcome: the CLI then runs ``bottui demo`` (the tui layer may not
#: import :mod:`bottui.demo`). Never a process exit code.
START_DEMO: Final = -1


def read_keymap(locations: Locations) -> dict[str, str]:
    """The ``[keymap]`` table of config.toml: binding id -> keys (e.g. ``"limiters.toggle" = "t"``).

    Only string pairs are kept; anything else in the table is ignored, so a
    typo never stops the app from starting.
    """
    import tomllib

    try:
        with locations.config_file.open("rb") as handle:
            table = tomllib.load(handle).get("keymap", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {k: v for k, v in table.items() if isinstance(k, str) and isinstance(v, str)}


def run_app(args: SimpleNamespace) -> int:
    """Build the session from the common options and the config; run the app."""
    from bottui.tui.app import BottuiApp

    locations = Locations.default()
    store = ConfigStore(locations)
    config = store.load()
    session = session_from_options(locations, config, args)
    app = BottuiApp(
        session,
        theme=config.theme,
        remember_theme=store.set_theme,
        keymap=read_keymap(locations),
    )
    result = app.run()
    return result if isinstance(result, int) else 0
