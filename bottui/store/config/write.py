"""Write ``config.toml`` back: edit the user's text in place, then replace the file atomically.

:func:`render` changes only what changed between two :class:`Config` values
(``tomlkit``, imported only here and only when writing), so comments and
ordering survive, and checks the result parses back to exactly the new
config. :func:`write_atomic` replaces the file (temporary file, fsync,
rename, mode 0o600).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from bottui.store.config.model import Config, Profile, ProjectSettings
from bottui.store.config.parse import parse_config
from bottui.store.files import FILE_MODE, ensure, real_path

if TYPE_CHECKING:
    from tomlkit.container import Container
    from tomlkit.items import Table
    from tomlkit.toml_document import TOMLDocument


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
    if profile.operator is not None:
        table["operator"] = profile.operator
    if profile.require_reason:
        table["require_reason"] = True
    if profile.store is not None:
        table["store"] = profile.store
    if profile.late_limit_minutes is not None:
        table["late_limit_minutes"] = profile.late_limit_minutes
    if profile.token_encoding != "raw":
        table["token_encoding"] = profile.token_encoding
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
    _set(table, "operator", new.operator)
    _set(table, "require_reason", new.require_reason, default=False)
    _set(table, "store", new.store)
    _set(table, "late_limit_minutes", new.late_limit_minutes)
    _set(table, "token_encoding", new.token_encoding, default="raw")
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
    if old.operator != new.operator:
        _set(doc, "operator", new.operator)
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
    import tomllib

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
    import tempfile  # lazily: only writes need it

    if path.is_symlink():
        path = real_path(path)
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


__all__ = [
    "render",
    "write_atomic",
]
