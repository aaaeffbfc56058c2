"""What shell completion offers from the user's files: profile names and inventory ids.

Synchronous and read-only on purpose: the completion callback
(``bottui __complete``) is a short process that runs no event loop, reads
``config.toml`` once and glances at the inventory through
:func:`~bottui.store.inventory.peek.peek_ids` (SQLite ``mode=ro``). Nothing
here touches the network, a token or the journal, and nothing is written.
No face with an event loop calls this.

The profile, account and project are the ones already on the command line,
else the profile's own (as a command would resolve them, see
:class:`bottui.ops.session.Settings`). Any failure is an empty answer.
"""

from __future__ import annotations

from bottui.api.errors import BottuiError
from bottui.store.config.config_file import ConfigStore
from bottui.store.config.model import Config
from bottui.store.files import Locations
from bottui.store.inventory.peek import Kind, peek_ids

#: The inventory scope of a session with no profile: ``bottui.ops.session.DEFAULT_PROFILE``,
#: not imported (it costs the callback ~30 ms at every Tab); a test checks they agree.
DEFAULT_PROFILE = "default"


def _config(locations: Locations) -> Config | None:
    try:
        return ConfigStore(locations).load()
    except (BottuiError, OSError, ValueError):
        return None


def profile_names(locations: Locations, prefix: str = "") -> list[str]:
    """The profiles of ``config.toml`` starting with ``prefix``, sorted."""
    config = _config(locations)
    if config is None:
        return []
    return sorted(name for name in config.profiles if name.startswith(prefix))


def known_ids(
    locations: Locations,
    kind: Kind,
    prefix: str = "",
    *,
    profile: str | None = None,
    account: str | None = None,
    project: str | None = None,
) -> list[str]:
    """The inventory's ids of ``kind`` starting with ``prefix``, for that profile/account/project.

    An unknown ``profile`` has nothing (the command would refuse it); with no
    ``profile``, the current one (else the inventory's ``default`` scope).
    """
    config = _config(locations) or Config()
    chosen = config.profiles.get(profile) if profile is not None else config.profile()
    if profile is not None and chosen is None:
        return []
    scope = chosen.name if chosen is not None else DEFAULT_PROFILE
    return peek_ids(
        locations.inventory_file,
        scope,
        kind,
        prefix=prefix,
        account=account or (chosen.account if chosen else None),
        project=project or (chosen.project if chosen else None),
    )


__all__ = ["known_ids", "profile_names"]
