"""Profiles: the typed model of ``config.toml`` and the store that reads and edits it.

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
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from bottui.plaintext import clean, has_control
from bottui.store.errors import (
    ConfigError,
    InvalidValue,
    ProfileExists,
    ProfileNotFound,
)
from bottui.store.paths import FILE_MODE, Locations, ensure

if TYPE_CHECKING:
    from tomlkit.container import Container
    from tomlkit.items import Table
    from tomlkit.toml_document import TOMLDocument

_SCHEMES: Final = ("http", "https")
#: A config file larger than this is refused unread (a real one is a few KB).
MAX_CONFIG_BYTES: Final = 4 * 1024 * 1024


class _Unchanged(enum.Enum):
    UNCHANGED = enum.auto()


#: Sentinel for :meth:`ConfigStore.set_defaults`: leave this field as it is.
UNCHANGED: Final = _Unchanged.UNCHANGED


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

    def __post_init__(self) -> None:
        validate_profile_name(self.name)
        validate_base_url(self.base_url)
        for flag in ("read_only", "protected"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidValue(f"{flag} must be true or false")
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

    def __post_init__(self) -> None:
        for name, profile in self.profiles.items():
            if profile.name != name:
                raise InvalidValue("a profile is filed under its own name", clean(name))
        if self.current is not None and self.current not in self.profiles:
            raise InvalidValue("current names no profile", clean(self.current))
        if self.theme is not None and not isinstance(self.theme, str):
            raise InvalidValue("theme must be a string")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in self.keymap.items()):
            raise InvalidValue("the keymap maps binding ids to keys, both strings")

    def profile(self, name: str | None = None) -> Profile | None:
        """The profile called ``name``, else the current one; ``None`` if there is none."""
        key = self.current if name is None else name
        return None if key is None else self.profiles.get(key)


# -- reading ----------------------------------------------------------------------


class _Malformed(Exception):
    """A value of the wrong type in the parsed file; becomes a ConfigError."""


def _where(*keys: str | int) -> str:
    parts: list[str] = []
    for key in keys:
        if isinstance(key, int):
            parts.append(f"[{key}]")
        else:
            parts.append(("." if parts else "") + _toml_key(key))
    return clean("".join(parts))


def _toml_key(key: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return key
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _get(table: Mapping[str, Any], key: str, kind: type, *path: str | int) -> Any:
    value = table.get(key)
    if value is None:
        return None
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        names = {str: "a string", bool: "true or false", float: "a number", dict: "a table"}
        raise _Malformed(f"{_where(*path, key)} must be {names.get(kind, kind.__name__)}")
    return value


def _parse_settings(entry: Any, *path: str | int) -> tuple[tuple[str, str], ProjectSettings]:
    if not isinstance(entry, dict):
        raise _Malformed(f"{_where(*path)} must be a table")
    ids = []
    for key in ("account", "project"):
        value = _get(entry, key, str, *path)
        if value is None:
            raise _Malformed(f"{_where(*path, key)} is missing")
        ids.append(value)
    values = {
        key: value
        for key in ("threshold_min", "threshold_max")
        if (value := _get(entry, key, float, *path)) is not None
    }
    riskier = _get(entry, "higher_is_riskier", bool, *path)
    try:
        settings = ProjectSettings(**values, higher_is_riskier=True if riskier is None else riskier)
    except InvalidValue as exc:
        raise _Malformed(f"{_where(*path)}: {exc.title}") from None
    return (ids[0], ids[1]), settings


def _parse_profile(name: str, table: Any) -> Profile:
    path = ("profiles", name)
    if not isinstance(table, dict):
        raise _Malformed(f"{_where(*path)} must be a table")
    base_url = _get(table, "base_url", str, *path)
    if base_url is None:
        raise _Malformed(f"{_where(*path, 'base_url')} is missing")
    projects: dict[tuple[str, str], ProjectSettings] = {}
    entries = table.get("projects", [])
    if not isinstance(entries, list):
        raise _Malformed(f"{_where(*path, 'projects')} must be an array of tables")
    for index, entry in enumerate(entries):
        ids, settings = _parse_settings(entry, *path, "projects", index)
        if ids in projects:
            raise _Malformed(
                f"{_where(*path, 'projects', index)} repeats account {clean(ids[0])!r},"
                f" project {clean(ids[1])!r}"
            )
        projects[ids] = settings
    read_only = _get(table, "read_only", bool, *path)
    protected = _get(table, "protected", bool, *path)
    try:
        return Profile(
            name=name,
            base_url=base_url,
            read_only=bool(read_only),
            protected=bool(protected),
            account=_get(table, "account", str, *path),
            project=_get(table, "project", str, *path),
            projects=projects,
        )
    except InvalidValue as exc:
        detail = f" ({exc.details})" if exc.details else ""
        raise _Malformed(f"{_where(*path)}: {exc.title}{detail}") from None


def _parse_config(data: Mapping[str, Any]) -> Config:
    profiles_table = _get(data, "profiles", dict) or {}
    profiles = {name: _parse_profile(name, table) for name, table in profiles_table.items()}
    current = _get(data, "current", str)
    if current is not None and current not in profiles:
        current = None  # a dangling name: no current profile, the file is left alone
    table = data.get("keymap")
    keymap = (
        {k: v for k, v in table.items() if isinstance(k, str) and isinstance(v, str)}
        if isinstance(table, dict)
        else {}
    )
    return Config(current=current, profiles=profiles, theme=_get(data, "theme", str), keymap=keymap)


# -- writing ----------------------------------------------------------------------


def _settings_table(ids: tuple[str, str], settings: ProjectSettings) -> Table:
    import tomlkit

    table = tomlkit.table()
    table["account"] = ids[0]
    table["project"] = ids[1]
    table["threshold_min"] = settings.threshold_min
    table["threshold_max"] = settings.threshold_max
    table["higher_is_riskier"] = settings.higher_is_riskier
    return table


def _add(table: Table | Container | TOMLDocument, key: str, value: object) -> None:
    """Add the new ``key`` after the last plain key of ``table``, not after its comments."""
    from tomlkit.items import AoT, Table

    container = table.value if isinstance(table, Table) else table
    last = None
    for existing, item in container.body:
        if existing is not None and not isinstance(item, Table | AoT):
            last = existing
    if last is not None:
        try:
            container._insert_after(last, key, value)
            return
        except Exception:  # private tomlkit API: fall back to appending
            if key in table:
                del table[key]
    table[key] = value


def _set(
    table: Table | Container | TOMLDocument, key: str, value: object, default: object = None
) -> None:
    """Set ``key`` to ``value`` unless it holds it already; ``None`` removes it.

    An absent key whose wanted value is ``default`` stays absent.
    """
    if key not in table:
        if value is not None and value != default:
            _add(table, key, value)
        return
    current = table.get(key)
    if value is None:
        del table[key]
        return
    plain = current.unwrap() if hasattr(current, "unwrap") else current  # type: ignore[union-attr]
    if type(plain) is not type(value) or plain != value:
        table[key] = value


def _profile_table(profile: Profile) -> Table:
    import tomlkit

    table = tomlkit.table()
    table["base_url"] = profile.base_url
    table["read_only"] = profile.read_only
    table["protected"] = profile.protected
    if profile.account is not None:
        table["account"] = profile.account
    if profile.project is not None:
        table["project"] = profile.project
    if profile.projects:
        aot = tomlkit.aot()
        for ids, settings in profile.projects.items():
            aot.append(_settings_table(ids, settings))
        table["projects"] = aot
    return table


def _sync_projects(table: Table, old: Profile, new: Profile) -> None:
    import tomlkit
    from tomlkit.items import AoT

    if old.projects == new.projects:
        return
    if not new.projects:
        if "projects" in table:
            del table["projects"]
        return
    existing = table.get("projects")
    if not isinstance(existing, AoT):
        aot = tomlkit.aot()
        for ids, settings in new.projects.items():
            aot.append(_settings_table(ids, settings))
        table["projects"] = aot
        return
    seen: set[tuple[str, str]] = set()
    for index in reversed(range(len(existing))):
        entry = existing[index]
        ids = (str(entry.get("account")), str(entry.get("project")))
        wanted = new.projects.get(ids)
        if wanted is None:
            del existing[index]
            continue
        seen.add(ids)
        _set(entry, "threshold_min", wanted.threshold_min, default=0.0)
        _set(entry, "threshold_max", wanted.threshold_max, default=1.0)
        _set(entry, "higher_is_riskier", wanted.higher_is_riskier, default=True)
    for ids, settings in new.projects.items():
        if ids not in seen:
            existing.append(_settings_table(ids, settings))


def _sync_profile(table: Table, old: Profile, new: Profile) -> None:
    _set(table, "base_url", new.base_url)
    _set(table, "read_only", new.read_only, default=False)
    _set(table, "protected", new.protected, default=False)
    _set(table, "account", new.account)
    _set(table, "project", new.project)
    _sync_projects(table, old, new)


def _sync(doc: TOMLDocument, old: Config, new: Config, *, rebuild: bool = False) -> None:
    """Edit ``doc`` (which holds ``old``) so that it holds ``new``, touching only changes.

    With ``rebuild`` the whole ``profiles`` table is written afresh (comments
    inside it are lost): the fallback for layouts tomlkit cannot edit in place,
    such as profiles written as dotted keys.
    """
    import tomlkit

    if old.current != new.current:
        _set(doc, "current", new.current)
    if old.theme != new.theme:
        _set(doc, "theme", new.theme)
    if old.keymap != new.keymap:
        _sync_keymap(doc, old.keymap, new.keymap)
    before = old.profiles
    if rebuild:
        if "profiles" in doc:
            del doc["profiles"]
        before = {}
    elif before == new.profiles:
        return
    profiles = doc.get("profiles")
    if profiles is None:
        profiles = tomlkit.table(is_super_table=True)
        doc["profiles"] = profiles
    for name in before:
        if name not in new.profiles:
            del profiles[name]
    for name, profile in new.profiles.items():
        previous = before.get(name)
        if previous is None:
            profiles[name] = _profile_table(profile)
        elif previous != profile:
            _sync_profile(profiles[name], previous, profile)
    if not new.profiles and not profiles:
        del doc["profiles"]


def _sync_keymap(doc: TOMLDocument, old: dict[str, str], new: dict[str, str]) -> None:
    """Edit the ``[keymap]`` table key by key (what was not read is left alone)."""
    import tomlkit
    from tomlkit.items import Table

    table = doc.get("keymap")
    if not isinstance(table, Table):  # absent, inline or not a table: written afresh
        if "keymap" in doc:
            del doc["keymap"]
        if new:
            fresh = tomlkit.table()
            fresh.update(new)
            doc["keymap"] = fresh
        return
    for key in old.keys() - new.keys():
        del table[key]
    for key, keys in new.items():
        _set(table, key, keys)
    if not table:
        del doc["keymap"]


def _render(text: str | None, old: Config, new: Config) -> str | None:
    """The text of the edited file, or ``None`` if no edit reproduces ``new`` exactly."""
    import tomllib

    import tomlkit

    for rebuild in (False, True):
        try:
            doc = tomlkit.parse(text) if text is not None else tomlkit.document()
            _sync(doc, old, new, rebuild=rebuild)
            output = tomlkit.dumps(doc)
            if _parse_config(tomllib.loads(output)) == new:
                return output
        except Exception:  # tomlkit trouble or an unfaithful result: try the next way
            continue
    return None


def _write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` by ``text``: temp file in the same directory, fsync, rename.

    A symlinked config file (dotfile managers) is written through: the link
    stays and its target is replaced.
    """
    import tempfile  # lazily: only writes need it

    if path.is_symlink():
        path = path.resolve()
    ensure(path.parent)
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, FILE_MODE)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


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
        account: str | _Unchanged | None = UNCHANGED,
        project: str | _Unchanged | None = UNCHANGED,
    ) -> None:
        """Set the default account and/or project of ``profile``; ``None`` clears one."""
        text, old = self._read()
        current = self._need(old, profile)
        updated = current
        if not isinstance(account, _Unchanged):
            updated = dataclasses.replace(updated, account=account)
        if not isinstance(project, _Unchanged):
            updated = dataclasses.replace(updated, project=project)
        self._store(text, old, _with_profile(old, updated))

    # -- internals ------------------------------------------------------------

    @staticmethod
    def _need(config: Config, name: str) -> Profile:
        profile = config.profiles.get(name)
        if profile is None:
            raise ProfileNotFound(f"No profile named {clean(name)!r}")
        return profile

    def _error(self, title: str, details: str = "", **where: int | None) -> ConfigError:
        shown = clean(str(self.path))
        return ConfigError(f"{shown}: {title}", details, path=self.path, **where)

    def _read(self) -> tuple[str | None, Config]:
        """The file's text (``None`` if absent) and the config it holds.

        Read through :mod:`bottui.store.toml_read`: a regular file of at most
        :data:`MAX_CONFIG_BYTES`, nesting and dotted keys bounded.
        """
        from bottui.store import toml_read  # here: the demo never reads the file back

        try:
            text, data = toml_read.read(self.path, MAX_CONFIG_BYTES)
        except FileNotFoundError:
            return None, Config()
        except toml_read.TomlProblem as exc:
            raise ConfigError(
                f"{clean(str(self.path))} {exc.reason}{toml_read.where(exc)}",
                "Fix it, or move it aside to start afresh (commands that use a profile read it).",
                path=self.path,
                line=exc.line,
                column=exc.column,
            ) from None
        try:
            return text, _parse_config(data)
        except _Malformed as exc:
            raise self._error(str(exc)) from None

    def _store(self, text: str | None, old: Config, new: Config) -> None:
        if text is not None and old == new:
            return
        output = _render(text, old, new)
        if output is None:
            raise self._error(
                "could not be edited faithfully; left unchanged",
                "Write each profile as a [profiles.NAME] table, or edit the file by hand.",
            )
        try:
            _write_atomic(self.path, output)
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
    "UNCHANGED",
    "Config",
    "ConfigError",
    "ConfigStore",
    "InvalidValue",
    "Profile",
    "ProfileExists",
    "ProfileNotFound",
    "ProjectSettings",
    "validate_base_url",
    "validate_profile_name",
]
