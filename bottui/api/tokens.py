"""The two kinds of access token, wrapped so that they never print.

A token lives in memory only inside one of these wrappers. ``repr`` and
``str`` are masked, and the value is kept out of ``__dict__`` (slots) so
that crash reports which dump locals and attributes see only the mask.
The one way to the clear value is :meth:`Secret.reveal`, called by the HTTP
client when it builds the ``X-Api-Key`` header and by the token store when it
hands the value to the keyring.
"""

from __future__ import annotations

from typing import ClassVar, Final

MASK: Final = "***"
#: The environment variable that holds each kind of token (CONVENTIONS.md).
TOKEN_ENV: Final[dict[str, str]] = {
    "project": "BOTTUI_API_KEY",
    "personal": "BOTTUI_ACCESS_TOKEN",
}


class Secret:
    """A string that never shows itself in ``repr``, ``str`` or ``format``."""

    __slots__ = ("_value",)
    kind: ClassVar[str] = "secret"

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError("a token is a string")
        value = value.strip()
        if not value:
            raise ValueError("a token cannot be empty")
        object.__setattr__(self, "_value", value)

    def reveal(self) -> str:
        """The clear value. Call only where it leaves for the keyring or the wire."""
        value: str = object.__getattribute__(self, "_value")
        return value

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("tokens are immutable")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({MASK})"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return MASK

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Secret)
            and type(other) is type(self)
            and other.reveal() == self.reveal()
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.reveal()))

    def __reduce__(self) -> tuple[object, ...]:
        # Pickling would write the clear value somewhere; refuse.
        raise TypeError("tokens cannot be pickled")


class ProjectToken(Secret):
    """A project API token: authorises the rate limiter operation of one project."""

    __slots__ = ()
    kind: ClassVar[str] = "project"


class StorePassword(Secret):
    """The team store's database password, from the keyring (never a URL or a file)."""

    __slots__ = ()
    kind: ClassVar[str] = "store"


class AccessToken(Secret):
    """A personal access token bound to one account: revocation and thresholds."""

    __slots__ = ()
    kind: ClassVar[str] = "personal"
