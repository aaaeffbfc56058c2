"""Where bottui keeps its files: config, inventory and journal locations.

Nothing here touches the file system at import time. Directories are made
lazily, by :func:`ensure`, when something is about to write.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final, NamedTuple

APP_NAME: Final = "bottui"
DIR_MODE: Final = 0o700
FILE_MODE: Final = 0o600


class Locations(NamedTuple):
    """The three directories bottui writes to, and the files inside them."""

    #: Holds ``config.toml`` (profiles, theme).
    config_dir: Path
    #: Holds the inventory database.
    data_dir: Path
    #: Holds the audit journal.
    state_dir: Path

    @classmethod
    def default(cls) -> Locations:
        """The user's directories from platformdirs (XDG variables honoured)."""
        import platformdirs

        return cls(
            config_dir=Path(platformdirs.user_config_dir(APP_NAME)),
            data_dir=Path(platformdirs.user_data_dir(APP_NAME)),
            state_dir=Path(platformdirs.user_state_dir(APP_NAME)),
        )

    @classmethod
    def under(cls, root: Path) -> Locations:
        """Three subdirectories of ``root``: for the demo and for tests."""
        root = Path(root)
        return cls(config_dir=root / "config", data_dir=root / "data", state_dir=root / "state")

    @property
    def config_file(self) -> Path:
        """The TOML file with the profiles."""
        return self.config_dir / "config.toml"

    @property
    def inventory_file(self) -> Path:
        """The SQLite inventory (accounts, projects, rate limiters, ...)."""
        return self.data_dir / "inventory.sqlite3"

    @property
    def journal_file(self) -> Path:
        """The SQLite audit journal."""
        return self.state_dir / "journal.sqlite3"


def ensure(directory: Path) -> Path:
    """Create ``directory`` (and missing parents) if needed; return it.

    A directory made here gets mode 0o700 (less whatever the umask removes).
    An existing directory is left as it is.
    """
    directory = Path(directory)
    if not directory.is_dir():
        directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    return directory


def real_path(path: Path | str) -> Path:
    """``path`` with its symbolic links followed, as far as they go; never raises.

    ``Path.resolve()`` raises ``RuntimeError`` (Python 3.11) or ``OSError``
    for a link that points at itself; a store that names its file (a lock
    lane, a URI) must not crash on one: opening the file then fails with a
    clear error instead.
    """
    return Path(os.path.realpath(path))


__all__ = ["APP_NAME", "DIR_MODE", "FILE_MODE", "Locations", "ensure", "real_path"]
