"""The typed model of ``config.toml``: profiles, per-project settings, validation.

Frozen dataclasses that check themselves on construction
(:class:`ProjectSettings`, :class:`Profile`, :class:`Config`) and the
validators of a profile's name and base URL. No file access here:
:mod:`bottui.store.config.parse` parses the file into these,
:mod:`bottui.store.config.write` renders them back.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from bottui.api.tokens import TOKEN_ENCODINGS
from bottui.plaintext import clean, has_control
from bottui.store.errors import InvalidValue

_SCHEMES: Final = ("http", "https")
#: A config file larger than this is refused unread (a real one is a few KB).
MAX_CONFIG_BYTES: Final = 4 * 1024 * 1024


class Unchanged(enum.Enum):
    """The type of :data:`UNCHANGED` (one value)."""

    UNCHANGED = enum.auto()


#: Sentinel for :meth:`ConfigStore.set_defaults`: leave this field as it is.
UNCHANGED: Final = Unchanged.UNCHANGED


def validate_profile_name(name: str) -> str:
    """Return ``name`` if it can name a profile; raise :class:`InvalidValue` if not."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidValue("A profile name cannot be empty")
    if has_control(name):
        raise InvalidValue(
            "A profile name cannot hold control characters", f"Name: {clean(name)!r}"
        )
    return name


def validate_base_url(base_url: str) -> str:
    """Return ``base_url`` if it is an ``http``/``https`` URL with a host; raise if not.

    Refused as well: blanks or control characters, user name or password in
    the URL (a credential must not land in the config file), a query or a
    fragment, a port that is not a number.
    """
    shown = clean(base_url)
    if not isinstance(base_url, str) or not base_url:
        raise InvalidValue("A base URL cannot be empty")
    if has_control(base_url) or any(ch.isspace() for ch in base_url):
        raise InvalidValue("A base URL cannot hold blanks or control characters", shown)
    try:
        parts = urlsplit(base_url)
        _ = parts.port
    except ValueError:
        raise InvalidValue("Not a valid URL", shown) from None
    if parts.scheme.lower() not in _SCHEMES:
        raise InvalidValue("A base URL must start with http:// or https://", shown)
    if not parts.hostname:
        raise InvalidValue("A base URL needs a host", shown)
    if parts.username is not None or parts.password is not None:
        raise InvalidValue(
            "A base URL cannot carry a user name or password",
            "Credentials belong in the keyring or the environment, never in config.toml.",
        )
    if parts.query or parts.fragment or "?" in base_url or "#" in base_url:
        # not echoed: a query may hold a credential
        raise InvalidValue("A base URL cannot have a query or a fragment")
    return base_url


def validate_store_url(store: str) -> str:
    """Return ``store`` if it can name a team store in ``config.toml``; raise if not.

    Only what needs no driver: a ``postgresql://`` URL without a password
    (the full check, TLS included, is :func:`bottui.store.team.target.check_store_url`).
    """
    if not isinstance(store, str) or not store.strip():
        raise InvalidValue("store must be a postgresql:// URL")
    if has_control(store) or any(ch.isspace() for ch in store):
        raise InvalidValue("A store URL cannot hold blanks or control characters")
    try:
        parts = urlsplit(store)
        password = parts.password
    except ValueError:
        raise InvalidValue("store is not a valid URL") from None
    if parts.scheme.lower() not in ("postgresql", "postgres"):
        raise InvalidValue("store must be a postgresql:// URL")
    if password is not None or "password=" in parts.query.lower():
        # not echoed: it holds the password
        raise InvalidValue(
            "A store URL cannot carry a password",
            "Give it through ~/.pgpass, PGPASSWORD, PGSERVICE, a client certificate, "
            "or the keyring: bottui token set store --profile NAME",
        )
    return store


@dataclass(frozen=True)
class ProjectSettings:
    """How the thresholds of one project are shown and checked."""

    #: Lowest value a score threshold can take.
    threshold_min: float = 0.0
    #: Highest value a score threshold can take; greater than ``threshold_min``.
    threshold_max: float = 1.0
    #: True when a higher score means a riskier request.
    higher_is_riskier: bool = True

    def __post_init__(self) -> None:
        for name in ("threshold_min", "threshold_max"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidValue(f"{name} must be a number")
            if not math.isfinite(value):
                raise InvalidValue(f"{name} must be a finite number")
            object.__setattr__(self, name, float(value))
        if not self.threshold_min < self.threshold_max:
            raise InvalidValue(
                "threshold_min must be lower than threshold_max",
                f"threshold_min = {self.threshold_min:g}, threshold_max = {self.threshold_max:g}",
            )
        if not isinstance(self.higher_is_riskier, bool):
            raise InvalidValue("higher_is_riskier must be true or false")


@dataclass(frozen=True)
class Profile:
    """One API endpoint the user works with, and how carefully."""

    #: Unique name of the profile: not blank, no control characters.
    name: str
    #: ``http``/``https`` URL of the API, with a host (no credentials, query, fragment).
    base_url: str
    #: Refuse every operation that changes something.
    read_only: bool = False
    #: Ask for confirmation (``--yes`` on the CLI) before any change.
    protected: bool = False
    #: Account id used when none is given.
    account: str | None = None
    #: Project id used when none is given.
    project: str | None = None
    #: Threshold settings per ``(account id, project id)``.
    projects: dict[tuple[str, str], ProjectSettings] = field(default_factory=dict)
    #: Who makes this profile's changes, as journaled (over the config's ``operator``).
    operator: str | None = None
    #: Refuse a change without a reason (``--reason``, the TUI's reason field).
    require_reason: bool = False
    #: The team store: a ``postgresql://`` URL without a password, or ``None``.
    store: str | None = None
    #: Minutes a timed change's revert may be late and still be sent by
    #: ``bottui run-due`` without ``--late-ok`` (None: 60).
    late_limit_minutes: int | None = None
    #: How tokens travel in ``X-Api-Key``: ``"raw"`` (the contract) or
    #: ``"base64"`` (the real service's documentation): :mod:`bottui.api.tokens`.
    token_encoding: str = "raw"

    def __post_init__(self) -> None:
        validate_profile_name(self.name)
        validate_base_url(self.base_url)
        if self.operator is not None and not isinstance(self.operator, str):
            raise InvalidValue("operator must be a string")
        if self.store is not None:
            validate_store_url(self.store)
        for flag in ("read_only", "protected", "require_reason"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidValue(f"{flag} must be true or false")
        limit = self.late_limit_minutes
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_080
        ):
            raise InvalidValue("late_limit_minutes must be a whole number from 1 to 10080")
        if self.token_encoding not in TOKEN_ENCODINGS:
            raise InvalidValue('token_encoding must be "raw" or "base64"')
        for key in ("account", "project"):
            if getattr(self, key) is not None and not isinstance(getattr(self, key), str):
                raise InvalidValue(f"{key} must be a string")
        for ids, settings in self.projects.items():
            if (
                not isinstance(ids, tuple)
                or len(ids) != 2
                or not all(isinstance(part, str) for part in ids)
            ):
                raise InvalidValue("project settings are keyed by (account id, project id)")
            if not isinstance(settings, ProjectSettings):
                raise InvalidValue("project settings must be ProjectSettings")


@dataclass(frozen=True)
class Config:
    """Everything in ``config.toml``."""

    #: Name of the profile used when none is given, or ``None``.
    current: str | None = None
    #: Profiles by name; each key equals its profile's ``name``.
    profiles: dict[str, Profile] = field(default_factory=dict)
    #: Name of the Textual theme, or ``None`` for the default.
    theme: str | None = None
    #: The ``[keymap]`` table: binding id -> keys (``"limiters.toggle" = "t"``).
    #: Only string pairs are read; anything else in the table is left alone,
    #: so a typo never stops the app from starting.
    keymap: dict[str, str] = field(default_factory=dict)
    #: Who makes the changes, as journaled, unless the profile or
    #: ``BOTTUI_OPERATOR`` says otherwise (``None``: ``user@host``).
    operator: str | None = None

    def __post_init__(self) -> None:
        for name, profile in self.profiles.items():
            if profile.name != name:
                raise InvalidValue("a profile is filed under its own name", clean(name))
        if self.current is not None and self.current not in self.profiles:
            raise InvalidValue("current names no profile", clean(self.current))
        if self.theme is not None and not isinstance(self.theme, str):
            raise InvalidValue("theme must be a string")
        if self.operator is not None and not isinstance(self.operator, str):
            raise InvalidValue("operator must be a string")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in self.keymap.items()):
            raise InvalidValue("the keymap maps binding ids to keys, both strings")

    def profile(self, name: str | None = None) -> Profile | None:
        """The profile called ``name``, else the current one; ``None`` if there is none."""
        key = self.current if name is None else name
        return None if key is None else self.profiles.get(key)


__all__ = [
    "MAX_CONFIG_BYTES",
    "UNCHANGED",
    "Config",
    "Profile",
    "ProjectSettings",
    "Unchanged",
    "validate_base_url",
    "validate_profile_name",
    "validate_store_url",
]
