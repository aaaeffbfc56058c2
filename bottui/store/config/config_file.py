"""``config.toml`` on disk: read, edited in place, written atomically, and checked.

The file is read through :mod:`bottui.store.toml_read` (a regular file of at
most :data:`~bottui.store.config.config_model.MAX_CONFIG_BYTES`, nesting and dotted
keys bounded) into the model of :mod:`bottui.store.config.config_model`. It is
edited with ``tomlkit`` (imported only when writing), changing only what
changed, so the user's comments and ordering survive (:func:`render`). Writes
are atomic (temporary file in the same directory, fsync, ``os.replace``) and
leave the file at mode 0o600 (:func:`write_atomic`).

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

:func:`check_config_file` is ``bottui config check``'s view of the file:
every problem, each on its line (:func:`key_lines`, since ``tomllib`` gives
none). :class:`ConfigStore` blocks (file I/O, fsync): code on an event loop
awaits it through :class:`~bottui.store.config.async_facade.AsyncConfigStore`.
The demo never reads the file back, so its first frame never imports this.
"""

from __future__ import annotations

import contextlib
import difflib
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import msgspec
from msgspec.structs import fields

from bottui.plaintext import clean, has_control
from bottui.store import toml_read
from bottui.store.config.config_model import (
    MAX_CONFIG_BYTES,
    UNCHANGED,
    Config,
    ConfigReader,
    Key,
    Malformed,
    Profile,
    ProjectSettings,
    Unchanged,
    key_lines,
    parse_config,
    shown_key,
)
from bottui.store.files import (
    FILE_MODE,
    AtomicText,
    Locations,
    ensure,
    real_path,
    sync_directory,
)
from bottui.store.store_errors import (
    ConfigError,
    InvalidValue,
    ProfileExists,
    ProfileNotFound,
    StoreFileError,
    no_such_profile,
)

if TYPE_CHECKING:
    from tomlkit.container import Container
    from tomlkit.items import AoT, Table
    from tomlkit.toml_document import TOMLDocument


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

    def close(self) -> None:
        """Nothing to let go: every call reads and writes the file afresh."""

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
        self._store(
            text, old, _with_profile(old, msgspec.structs.replace(current, projects=projects))
        )

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
            updated = msgspec.structs.replace(updated, account=account)
        if not isinstance(project, Unchanged):
            updated = msgspec.structs.replace(updated, project=project)
        self._store(text, old, _with_profile(old, updated))

    # -- internals ------------------------------------------------------------

    @staticmethod
    def _need(config: Config, name: str) -> Profile:
        profile = config.profiles.get(name)
        if profile is None:
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
        except StoreFileError as exc:
            raise self._error("cannot be written", exc.details) from None
        except OSError as exc:
            raise self._error(
                "cannot be written", clean(exc.strerror or type(exc).__name__)
            ) from None


def _with(config: Config, **changes: Any) -> Config:
    try:
        return msgspec.structs.replace(config, **changes)
    except InvalidValue:
        raise
    except (TypeError, ValueError) as exc:  # pragma: no cover - defensive
        raise InvalidValue(clean(str(exc))) from None


def _with_profile(config: Config, profile: Profile) -> Config:
    profiles = dict(config.profiles)
    profiles[profile.name] = profile
    return _with(config, profiles=profiles)


# Write ``config.toml`` back: edit the user's text in place, then replace the file atomically.
#
# :func:`render` changes only what changed between two :class:`Config` values
# (``tomlkit``, imported only here and only when writing), so comments and
# ordering survive, and checks the result parses back to exactly the new
# config. :func:`write_atomic` replaces the file (:class:`~bottui.store.files.AtomicText`,
# as every file bottui writes; mode 0o600).


#: The keys a new profile's table always shows, even at their defaults.
_ALWAYS_WRITTEN: Final = frozenset({"base_url", "read_only", "protected"})
#: The model's fields a profile's table holds as plain keys.
_PROFILE_KEYS: Final = tuple(f for f in fields(Profile) if f.name not in ("name", "projects"))


def _settings_table(ids: tuple[str, str], settings: ProjectSettings) -> Table:
    import tomlkit

    table = tomlkit.table()
    table["account"], table["project"] = ids
    for f in fields(ProjectSettings):
        table[f.name] = getattr(settings, f.name)
    return table


def _projects_table(projects: Mapping[tuple[str, str], ProjectSettings]) -> AoT:
    import tomlkit

    aot = tomlkit.aot()
    for ids, settings in projects.items():
        aot.append(_settings_table(ids, settings))
    return aot


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
    for f in _PROFILE_KEYS:
        value = getattr(profile, f.name)
        if f.name in _ALWAYS_WRITTEN or (value is not None and value != f.default):
            table[f.name] = value
    if profile.projects:
        table["projects"] = _projects_table(profile.projects)
    return table


def _sync_projects(table: Table, old: Profile, new: Profile) -> None:
    from tomlkit.items import AoT

    if old.projects == new.projects:
        return
    if not new.projects:
        if "projects" in table:
            del table["projects"]
        return
    existing = table.get("projects")
    if not isinstance(existing, AoT):
        table["projects"] = _projects_table(new.projects)
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
        for f in fields(ProjectSettings):
            _set(entry, f.name, getattr(wanted, f.name), default=f.default)
    for ids, settings in new.projects.items():
        if ids not in seen:
            existing.append(_settings_table(ids, settings))


def _sync_profile(table: Table, old: Profile, new: Profile) -> None:
    for f in _PROFILE_KEYS:
        _set(table, f.name, getattr(new, f.name), default=f.default)
    _sync_projects(table, old, new)


def _sync(doc: TOMLDocument, old: Config, new: Config, *, rebuild: bool = False) -> None:
    """Edit ``doc`` (which holds ``old``) so that it holds ``new``, touching only changes.

    With ``rebuild`` the whole ``profiles`` table is written afresh (comments
    inside it are lost): the fallback for layouts tomlkit cannot edit in place,
    such as profiles written as dotted keys.
    """
    import tomlkit

    for key in ("current", "theme", "operator"):  # the top level's plain keys
        if getattr(old, key) != getattr(new, key):
            _set(doc, key, getattr(new, key))
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


def render(text: str | None, old: Config, new: Config) -> str | None:
    """The text of the edited file, or ``None`` if no edit reproduces ``new`` exactly."""
    import tomlkit

    for rebuild in (False, True):
        try:
            doc = tomlkit.parse(text) if text is not None else tomlkit.document()
            _sync(doc, old, new, rebuild=rebuild)
            output = tomlkit.dumps(doc)
            if parse_config(tomllib.loads(output)) == new:
                return output
        except Exception:  # tomlkit trouble or an unfaithful result: try the next way
            continue
    return None


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` by ``text``: temp file in the same directory, fsync, rename.

    A symlinked config file (dotfile managers) is written through: the link
    stays and its target is replaced.
    """

    if path.is_symlink():
        path = real_path(path)
    ensure(path.parent)
    with AtomicText(path, overwrite=True, newline="", mode=FILE_MODE) as out:
        out.write(text)
    with contextlib.suppress(OSError):
        sync_directory(path.parent)


# -- config check: every problem of the file, each on its line ------------------------


class ConfigProblem(NamedTuple):
    """One problem of the file: its line (None when not known) and what is wrong."""

    line: int | None
    message: str


class ConfigCheck(NamedTuple):
    """What :func:`check_config_file` found."""

    problems: list[ConfigProblem]
    #: The ``[keymap]`` table as written (values of any type).
    keymap: dict[str, Any]
    #: The line of each ``[keymap]`` entry.
    keymap_lines: dict[str, int]
    #: :meth:`ConfigStore.load <bottui.store.config.config_file.ConfigStore.load>` reads it:
    #: valid TOML, and no value of a type the model refuses.
    loads: bool


def check_config_file(path: Path) -> ConfigCheck | None:
    """Every problem of the config file at ``path``; None when there is no such file."""
    try:
        text, data = toml_read.read(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except toml_read.TomlProblem as exc:
        return ConfigCheck([ConfigProblem(exc.line, clean(exc.reason))], {}, {}, loads=False)
    lines = key_lines(text)
    reader = ConfigReader(collect=True)
    reader.config(data)
    problems = [_unknown(key, known, lines) for key, known in reader.unknown]
    for key, message in reader.problems:
        line = _line_of_message(message, lines) or _line(lines, key)
        problems.append(ConfigProblem(line, clean(message)))
    table = data.get("keymap")
    keymap = dict(table) if isinstance(table, dict) else {}
    keymap_lines = {k: lines.get(("keymap", k), lines.get(("keymap",), 0)) for k in keymap}
    problems.sort(key=lambda p: p.line or 0)
    return ConfigCheck(problems, keymap, keymap_lines, loads=_loads(data))


def _loads(data: Mapping[str, Any]) -> bool:
    """What :meth:`~bottui.store.config.config_file.ConfigStore.load` says of ``data``."""
    try:
        parse_config(data)
    except Malformed:
        return False
    return True


def _unknown(key: Key, known: frozenset[str], lines: Mapping[Key, int]) -> ConfigProblem:
    close = difflib.get_close_matches(str(key[-1]), sorted(known), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ConfigProblem(_line(lines, key), f"unknown key {clean(shown_key(key))}{hint}")


def _line(lines: Mapping[Key, int], key: Key) -> int | None:
    """The line of ``key``, else of the nearest table above it that has one."""
    while key:
        if key in lines:
            return lines[key]
        key = key[:-1]
    return None


def _line_of_message(message: str, lines: Mapping[Key, int]) -> int | None:
    # A problem names its key first ("profiles.prod.read_only must be ..."):
    # the key written that way with the longest match gives the line.
    best: tuple[int, int] | None = None
    for key, line in lines.items():
        shown = shown_key(key)
        if message.startswith(shown) and (best is None or len(shown) > best[0]):
            best = (len(shown), line)
    return None if best is None else best[1]


__all__ = [
    "ConfigCheck",
    "ConfigProblem",
    "ConfigStore",
    "check_config_file",
    "render",
    "write_atomic",
]
