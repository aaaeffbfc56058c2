"""Parse the data of ``config.toml`` (as :mod:`tomllib` gives it) into a :class:`Config`.

Every value is type-checked; the first wrong one raises :class:`Malformed`
naming where it is (``profiles."prod".projects[0].threshold_min``), which
:class:`~bottui.store.config.ConfigStore` turns into a ``ConfigError``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bottui.plaintext import clean
from bottui.store.config_model import Config, Profile, ProjectSettings
from bottui.store.errors import InvalidValue


class Malformed(Exception):
    """A value of the wrong type in the parsed file; becomes a ConfigError."""


def _where(*keys: str | int) -> str:
    parts: list[str] = []
    for key in keys:
        if isinstance(key, int):
            parts.append(f"[{key}]")
        else:
            parts.append(("." if parts else "") + toml_key(key))
    return clean("".join(parts))


def toml_key(key: str) -> str:
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
        raise Malformed(f"{_where(*path, key)} must be {names.get(kind, kind.__name__)}")
    return value


def _parse_settings(entry: Any, *path: str | int) -> tuple[tuple[str, str], ProjectSettings]:
    if not isinstance(entry, dict):
        raise Malformed(f"{_where(*path)} must be a table")
    ids = []
    for key in ("account", "project"):
        value = _get(entry, key, str, *path)
        if value is None:
            raise Malformed(f"{_where(*path, key)} is missing")
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
        raise Malformed(f"{_where(*path)}: {exc.title}") from None
    return (ids[0], ids[1]), settings


def _parse_profile(name: str, table: Any) -> Profile:
    path = ("profiles", name)
    if not isinstance(table, dict):
        raise Malformed(f"{_where(*path)} must be a table")
    base_url = _get(table, "base_url", str, *path)
    if base_url is None:
        raise Malformed(f"{_where(*path, 'base_url')} is missing")
    projects: dict[tuple[str, str], ProjectSettings] = {}
    entries = table.get("projects", [])
    if not isinstance(entries, list):
        raise Malformed(f"{_where(*path, 'projects')} must be an array of tables")
    for index, entry in enumerate(entries):
        ids, settings = _parse_settings(entry, *path, "projects", index)
        if ids in projects:
            raise Malformed(
                f"{_where(*path, 'projects', index)} repeats account {clean(ids[0])!r},"
                f" project {clean(ids[1])!r}"
            )
        projects[ids] = settings
    read_only = _get(table, "read_only", bool, *path)
    protected = _get(table, "protected", bool, *path)
    require_reason = _get(table, "require_reason", bool, *path)
    try:
        return Profile(
            name=name,
            base_url=base_url,
            read_only=bool(read_only),
            protected=bool(protected),
            account=_get(table, "account", str, *path),
            project=_get(table, "project", str, *path),
            projects=projects,
            operator=_get(table, "operator", str, *path),
            require_reason=bool(require_reason),
            store=_get(table, "store", str, *path),
            late_limit_minutes=_get(table, "late_limit_minutes", int, *path),
            token_encoding=_get(table, "token_encoding", str, *path) or "raw",
        )
    except InvalidValue as exc:
        detail = f" ({exc.details})" if exc.details else ""
        raise Malformed(f"{_where(*path)}: {exc.title}{detail}") from None


def parse_config(data: Mapping[str, Any]) -> Config:
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
    return Config(
        current=current,
        profiles=profiles,
        theme=_get(data, "theme", str),
        keymap=keymap,
        operator=_get(data, "operator", str),
    )


__all__ = ["Malformed", "parse_config", "toml_key"]
