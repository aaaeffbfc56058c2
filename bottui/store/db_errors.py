"""The errors of the two SQLite stores (inventory, journal) and of their files.

A database that is locked past the busy timeout, read-only, missing its
directory, full or damaged raises one :class:`DatabaseUnavailable` subclass
per store. Callers catch it, print its ``title`` as a warning and go on: a
change still goes ahead when it cannot be journaled. None of these errors
chains to the ``sqlite3`` exception (they are raised ``from None``), so no
traceback or SQL text reaches a person.
"""

from __future__ import annotations

from pathlib import Path

from bottui.store.errors import StoreError


class DatabaseUnavailable(StoreError):
    """A store's SQLite file cannot be opened, read or written right now."""

    def __init__(self, title: str, details: str = "", *, path: Path | None = None) -> None:
        super().__init__(title, details)
        #: The database file concerned.
        self.path: Path | None = path


class InventoryUnavailable(DatabaseUnavailable):
    """The inventory database is locked, read-only or damaged."""


class JournalUnavailable(DatabaseUnavailable):
    """The audit journal is locked, read-only or damaged: the change is not journaled."""


class NotInInventory(StoreError, LookupError):
    """An account, project, rate limiter or dimension the inventory does not hold."""


class StoreFileError(StoreError):
    """An import file that cannot be read or parsed, or an export that cannot be written.

    ``line`` is the 1-based line of the problem when it is known (a syntax
    error, or the ``[[table]]`` header of the offending record).
    """

    def __init__(
        self, title: str, details: str = "", *, path: Path | None = None, line: int | None = None
    ) -> None:
        super().__init__(title, details)
        #: The file concerned.
        self.path: Path | None = path
        #: 1-based line of the problem, when known.
        self.line: int | None = line


__all__ = [
    "DatabaseUnavailable",
    "InventoryUnavailable",
    "JournalUnavailable",
    "NotInInventory",
    "StoreFileError",
]
