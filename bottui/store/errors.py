"""The errors of the local store: one base class, one subclass per failure.

:class:`StoreError` is a :class:`~bottui.api.errors.BottuiError`, the one
root of every error bottui reports: each carries a one-line ``title`` (what
went wrong), a ``details`` text (why, and what the user can do), its CLI
``exit_code`` (2, refused; 3 for a keyring that fails) and its ``--json``
document (``"type": "local_error"``). ``str(error)`` is the title. None of
them ever holds a token: messages are built from fixed text and from
backend or parser messages passed through :func:`bottui.plaintext.clean`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar, Final

from bottui.api.errors import EXIT_CREDENTIALS, EXIT_REFUSED, BottuiError

_TOML_POSITION: Final = re.compile(r"\(at line (\d+), column (\d+)\)")


def toml_error_parts(error: ValueError) -> tuple[str, int | None, int | None]:
    """A ``tomllib.TOMLDecodeError`` as (reason without the position, line, column)."""
    message = str(error)
    found = _TOML_POSITION.search(message)
    reason = _TOML_POSITION.sub("", message).strip()
    if found is None:
        return reason, None, None
    return reason, int(found.group(1)), int(found.group(2))


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
