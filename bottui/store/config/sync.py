"""Profiles: the store that reads and edits ``config.toml``.

The file is read with :mod:`tomllib` and edited with ``tomlkit`` (imported
only when writing), changing only what changed, so the user's comments and
ordering survive. Writes are atomic (temporary file in the same directory,
fsync, ``os.replace``) and leave the file at mode 0o600.

Layout::

    current = "prod"
    theme = "textual-dark"

    [profiles.prod]
    base_url = "https://api.example.com"
    read_only = false
    protected = true
    account = "acc-1"
    project = "web"

    [[profiles.prod.projects]]
    account = "acc-1"
    project = "web"
    threshold_min = 0.0
    threshold_max = 1.0
    higher_is_riskier = true

Ids are TOML strings and profile names quoted TOML keys, so hostile ids
(quotes, dots, brackets, slashes) round-trip unchanged. There is no token
field: tokens live in the keyring or the environment only.

The model lives in :mod:`bottui.store.config.model`, parsing in
:mod:`bottui.store.config.parse`, rendering in :mod:`bottui.store.config.write`;
their public names are importable from here as before. :class:`ConfigStore`
blocks (file I/O, fsync): code on an event loop awaits it through
:class:`~bottui.store.config.async_facade.AsyncConfigStore` instead.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from bottui.plaintext import clean, has_control
from bottui.store.config.model import (
    MAX_CONFIG_BYTES,
    UNCHANGED,
    Config,
    Profile,
    ProjectSettings,
    Unchanged,
)
from bottui.store.config.parse import Malformed, parse_config
from bottui.store.config.write import render, write_atomic
from bottui.store.errors import ConfigError, InvalidValue, ProfileExists, ProfileNotFound
from bottui.store.files import Locations

# -- the store ----------------------------------------------------------------------


class ConfigStore:
    """Reads and edits the profiles in ``locations.config_file``.

    Each edit reads the file afresh, validates it, changes what the edit
    changes and writes atomically. A malformed file is never overwritten:
    the edit raises :class:`ConfigError` instead.
    """

    def __init__(self, locations: Locations) -> None:
        self._locations = locations

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path!r})"

    @property
    def path(self) -> Path:
        """The configuration file."""
        return self._locations.config_file

    def load(self) -> Config:
        """The configuration; an empty one when the file does not exist.

        Raises:
            ConfigError: the file cannot be read, is not valid TOML (line and
                column given), or holds a value of the wrong type.
        """
        return self._read()[1]

    def save(self, config: Config) -> None:
        """Make the file hold ``config``, keeping comments on everything that stays."""
        text, old = self._read()
        self._store(text, old, config)

    def add_profile(self, profile: Profile, *, replace: bool = False) -> None:
        """Add ``profile``; replace one of the same name only if ``replace``.

        Raises:
            ProfileExists: the name is taken and ``replace`` is false.
        """
        text, old = self._read()
        if profile.name in old.profiles and not replace:
            raise ProfileExists(
                f"A profile named {clean(profile.name)!r} exists already",
                "Remove it first, or replace it.",
            )
        profiles = dict(old.profiles)
        profiles[profile.name] = profile
        self._store(text, old, _with(old, profiles=profiles))

    def remove_profile(self, name: str) -> None:
        """Remove the profile ``name`` (and unset it as current if it was)."""
        text, old = self._read()
        self._need(old, name)
        profiles = {key: value for key, value in old.profiles.items() if key != name}
        current = None if old.current == name else old.current
        self._store(text, old, _with(old, profiles=profiles, current=current))

    def use(self, name: str) -> None:
        """Make ``name`` the current profile."""
        text, old = self._read()
        self._need(old, name)
        self._store(text, old, _with(old, current=name))

    def set_theme(self, name: str | None) -> None:
        """Remember the Textual theme ``name``; ``None`` returns to the default."""
        if name is not None and (not name.strip() or has_control(name)):
            raise InvalidValue("A theme name cannot be blank or hold control characters")
        text, old = self._read()
        self._store(text, old, _with(old, theme=name))

    def set_project_settings(
        self, profile: str, account: str, project: str, settings: ProjectSettings | None
    ) -> None:
        """Set (or with ``None`` remove) the threshold settings of one project."""
        text, old = self._read()
        current = self._need(old, profile)
        projects = dict(current.projects)
        if settings is None:
            projects.pop((account, project), None)
        else:
            projects[(account, project)] = settings
        self._store(text, old, _with_profile(old, dataclasses.replace(current, projects=projects)))

    def set_defaults(
        self,
        profile: str,
        *,
        account: str | Unchanged | None = UNCHANGED,
        project: str | Unchanged | None = UNCHANGED,
    ) -> None:
        """Set the default account and/or project of ``profile``; ``None`` clears one."""
        text, old = self._read()
        current = self._need(old, profile)
        updated = current
        if not isinstance(account, Unchanged):
            updated = dataclasses.replace(updated, account=account)
        if not isinstance(project, Unchanged):
            updated = dataclasses.replace(updated, project=project)
        self._store(text, old, _with_profile(old, updated))

    # -- internals ------------------------------------------------------------

    @staticmethod
    def _need(config: Config, name: str) -> Profile:
        profile = config.profiles.get(name)
        if profile is None:
            from bottui.store.errors import no_such_profile

            raise ProfileNotFound(*no_such_profile(name, config.profiles))
        return profile

    def _error(self, title: str, details: str = "", **where: int | None) -> ConfigError:
        shown = clean(str(self.path))
        return ConfigError(f"{shown}: {title}", details, path=self.path, **where)

    def _read(self) -> tuple[str | None, Config]:
        """The file's text (``None`` if absent) and the config it holds.

        Read through :mod:`bottui.store.files`: a regular file of at most
        :data:`MAX_CONFIG_BYTES`, nesting and dotted keys bounded.
        """
        from bottui.store import files  # here: the demo never reads the file back

        try:
            text, data = files.read(self.path, MAX_CONFIG_BYTES)
        except FileNotFoundError:
            return None, Config()
        except files.TomlProblem as exc:
            raise ConfigError(
                f"{clean(str(self.path))} {exc.reason}{files.where(exc)}",
                "Fix it, or move it aside to start afresh (commands that use a profile read it).",
                path=self.path,
                line=exc.line,
                column=exc.column,
            ) from None
        try:
            return text, parse_config(data)
        except Malformed as exc:
            raise self._error(str(exc)) from None

    def _store(self, text: str | None, old: Config, new: Config) -> None:
        if text is not None and old == new:
            return
        output = render(text, old, new)
        if output is None:
            raise self._error(
                "could not be edited faithfully; left unchanged",
                "Write each profile as a [profiles.NAME] table, or edit the file by hand.",
            )
        try:
            write_atomic(self.path, output)
        except OSError as exc:
            raise self._error(
                "cannot be written", clean(exc.strerror or type(exc).__name__)
            ) from None


def _with(config: Config, **changes: Any) -> Config:
    try:
        return dataclasses.replace(config, **changes)
    except InvalidValue:
        raise
    except (TypeError, ValueError) as exc:  # pragma: no cover - defensive
        raise InvalidValue(clean(str(exc))) from None


def _with_profile(config: Config, profile: Profile) -> Config:
    profiles = dict(config.profiles)
    profiles[profile.name] = profile
    return _with(config, profiles=profiles)


__all__ = [
    "ConfigStore",
]
