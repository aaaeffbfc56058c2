"""The errors of the local store: one base class, one subclass per failure, and their words.

* :class:`StoreError` and the errors of config, keyring and values;
* :class:`DatabaseUnavailable` and its subclasses: the SQLite stores and their files;
* :func:`no_such_profile`: the one refusal of a profile name that names no profile;
* :func:`reason_text`: a backend's or driver's message fit to show (keyring, team store).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar, Final

from bottui.api.errors import EXIT_CREDENTIALS, EXIT_REFUSED, BottuiError
from bottui.plaintext import clean

# The errors of the local store: one base class, one subclass per failure.
#
# :class:`StoreError` is a :class:`~bottui.api.errors.BottuiError`, the one
# root of every error bottui reports: each carries a one-line ``title`` (what
# went wrong), a ``details`` text (why, and what the user can do), its CLI
# ``exit_code`` (2, refused; 3 for a keyring that fails) and its ``--json``
# document (``"type": "local_error"``). ``str(error)`` is the title. None of
# them ever holds a token: messages are built from fixed text and from
# backend or parser messages passed through :func:`bottui.plaintext.clean`.


class StoreError(BottuiError):
    """Base class of every error raised by ``bottui.store``: refused locally (exit 2).

    ``title`` is one line saying what went wrong, fit for a status bar or
    stderr; ``details`` the longer explanation and remedies, possibly
    several lines.
    """

    exit_code: ClassVar[int] = EXIT_REFUSED

    def __init__(self, title: str, details: str = "") -> None:
        super().__init__(title, details)

    def __str__(self) -> str:
        return self.title

    def to_json(self) -> dict[str, Any]:
        """The ``{"error": ...}`` document of ``--json`` output: the title, not the details."""
        return {
            "error": {
                "status": None,
                "message": self.title,
                "code": type(self).__name__,
                "type": "local_error",
                "context": None,
            }
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.title!r})"


class KeyringUnavailable(StoreError):
    """The OS keyring is absent, locked, failing or not answering in time (exit 3)."""

    exit_code: ClassVar[int] = EXIT_CREDENTIALS


class ConfigError(StoreError):
    """The configuration file cannot be read, parsed or written."""

    def __init__(
        self,
        title: str,
        details: str = "",
        *,
        path: Path | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(title, details)
        #: The file concerned, when there is one.
        self.path: Path | None = path
        #: 1-based line of a syntax error, when the parser gave one.
        self.line: int | None = line
        #: 1-based column of a syntax error, when the parser gave one.
        self.column: int | None = column


class InvalidValue(StoreError, ValueError):
    """A profile, URL or setting that the store refuses to hold."""


class ProfileExists(StoreError):
    """A profile of that name exists already (and replacing was not asked for)."""


class ProfileNotFound(StoreError):
    """No profile of that name."""


# The errors of the two SQLite stores (inventory, journal) and of their files.
#
# A database that is locked past the busy timeout, read-only, missing its
# directory, full or damaged raises one :class:`DatabaseUnavailable` subclass
# per store. Callers catch it, print its ``title`` as a warning and go on: a
# change still goes ahead when it cannot be journaled. None of these errors
# chains to the ``sqlite3`` exception (they are raised ``from None``), so no
# traceback or SQL text reaches a person.


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


# The one refusal of a profile name that names no profile: title, closest name, the others.
#
# Every command says it the same way (``No profile named 'prd'`` / ``did you
# mean 'prod'? known profiles: dev, prod``), whether it opens a session, reads
# the journal or edits the config.


def no_such_profile(name: str, known: Iterable[str]) -> tuple[str, str]:
    """(title, details) of the refusal of ``name`` among the ``known`` profile names."""
    names = sorted(known)
    if not names:
        return (
            f"No profile named {clean(name)!r}",
            "there are no profiles yet: bottui profile add NAME --base-url URL",
        )
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    hint = f"did you mean {clean(close[0])!r}? " if close else ""
    return (
        f"No profile named {clean(name)!r}",
        f"{hint}known profiles: {', '.join(clean(n) for n in names)}",
    )


#: The longest backend message a reason carries (the rest is cut, marked with an ellipsis).
MAX_REASON: Final = 300


def reason_text(text: str, *secrets: str | None) -> str:
    """A backend's or driver's message fit to show: one line, cleaned, no secret in it."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    text = clean(" ".join(text.split()))
    if len(text) > MAX_REASON:
        text = text[: MAX_REASON - 1] + "…"
    return text
