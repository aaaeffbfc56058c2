"""What can go wrong with a team store, each one clear line and never a traceback.

:class:`StoreUnavailable` is the one error of a database that cannot be
reached or written right now (stopped, network cut, wrong credentials, disk
full): callers warn and go on, as they do for the SQLite journal. The others
are refusals before anything is sent: a URL that carries a password, an
unverified connection off loopback, psycopg missing, a schema this bottui
does not know. None chains to psycopg's exception (raised ``from None``), and
no message carries a password: texts are fixed, or a server message passed
through :func:`~bottui.store.store_errors.reason_text`.
"""

from __future__ import annotations

from typing import Final

from bottui.store.store_errors import DatabaseUnavailable, InvalidValue, StoreError

#: The command that installs team mode's driver.
INSTALL_TEAM: Final = "pip install 'bottui[team]'"


class StoreUnavailable(DatabaseUnavailable):
    """The team store cannot be reached or written right now.

    ``where`` is the store's URL without a password.
    """

    def __init__(self, title: str, details: str = "", *, where: str = "") -> None:
        super().__init__(title, details)
        #: The store's URL, without a password.
        self.where: str = where


class TeamModeNotInstalled(StoreError):
    """A profile names a PostgreSQL store but psycopg is not installed."""

    def __init__(self) -> None:
        super().__init__(
            "Team mode needs the PostgreSQL driver, which is not installed",
            f"Install it with: {INSTALL_TEAM}",
        )


class StoreRefused(InvalidValue):
    """A store URL or connection that bottui will not use (password, TLS, scheme)."""


class SchemaMismatch(StoreError):
    """The shared database's schema is not the one this bottui writes."""


class SchemaTooNew(SchemaMismatch):
    """The shared database was migrated by a newer bottui: nothing is written."""


class SchemaMissing(SchemaMismatch):
    """The shared database has no bottui schema yet, or an older one."""
