"""``bottui help environment``: every ``BOTTUI_*`` variable bottui reads."""

from __future__ import annotations

from typing import Final

#: Every variable bottui reads: name -> what it does (the top-level --help lists them too).
VARIABLES: Final[dict[str, str]] = {
    "BOTTUI_ACCESS_TOKEN": "personal access token (revoke, thresholds); wins over the keyring",
    "BOTTUI_API_KEY": "project API token (limiter); wins over the keyring",
    "BOTTUI_BASE_URL": "API base URL; wins over the profile's, --base-url wins over it",
    "BOTTUI_STORE_URL": "team store (PostgreSQL URL, no password); wins over the profile's",
    "BOTTUI_OPERATOR": "who is journaled as making a change; wins over the profile's operator",
}

SUMMARY: Final = "the BOTTUI_* variables, and what wins over what"

TEXT: Final = (
    "Environment variables (a value that is not valid UTF-8 is refused, exit 2):\n\n"
    + "".join(f"  {name:<23}{meaning}\n" for name, meaning in VARIABLES.items())
    + """
BOTTUI_API_KEY_<PROFILE> and BOTTUI_ACCESS_TOKEN_<PROFILE> hold one profile's
own tokens (its name in upper case, [A-Za-z0-9_] only): see `bottui help tokens`.

Order: a command-line option wins over the environment, which wins over the
profile (config.toml), which wins over the built-in default. `bottui demo`
reads none of them. Files go where platformdirs puts them, so XDG_CONFIG_HOME,
XDG_DATA_HOME and XDG_STATE_HOME move the config, the inventory and the
journal. NO_COLOR makes the TUI show states without colour.
"""
)
