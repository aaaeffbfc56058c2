"""Reading ``config.toml``'s data strictly: the first problem (loading) or every one (checking).

Parse the data of ``config.toml`` (as :mod:`tomllib` gives it) into a :class:`Config`.

Every value is type-checked; the first wrong one raises :class:`Malformed`
naming where it is (``profiles."prod".projects[0].threshold_min``), which
:class:`~bottui.store.config.sync.ConfigStore` turns into a ``ConfigError``.

Every value of ``config.toml`` of the wrong type, and every value the model refuses.

:func:`~bottui.store.config.parse.parse_config` stops at the first wrong
value (that is what loading needs); a person fixing the file wants every one
at once, each on its line. :func:`value_problems` walks the whole file with
the types below, then lets the model judge each table whose types are right
(a base URL with a query, ``threshold_min`` above ``threshold_max``, a
``current`` that names no profile), so nothing wrong is passed over and
nothing is said twice.

Check every key of ``config.toml`` and say where each problem is, by line.

:class:`~bottui.store.config.sync.ConfigStore` reads what it knows and stops at
the first value of the wrong type; an unknown key (``protect = true`` for
``protected``) it never sees. Here every key of the file is compared with
the keys the model has (the fields of :class:`Config`, :class:`Profile`,
:class:`ProjectSettings`, so a field added there is known here at once),
and each problem carries the line of the key. The ``[keymap]`` table is
returned with the line of each entry, for the keymap check
(:mod:`bottui.ops.keymap_check`), which needs the TUI's bindings.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any, Final, NamedTuple

from bottui.plaintext import clean
from bottui.store.config.model import MAX_CONFIG_BYTES, Config, Profile, ProjectSettings
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


Key = tuple[str | int, ...]

#: The type of each key, per table (``float``: any number, not a boolean).
#: ``tests/cli/test_config_check_all.py`` checks these are the model's fields.
TOP: Final[dict[str, type]] = {
    "current": str,
    "theme": str,
    "operator": str,
    "profiles": dict,
    "keymap": dict,
}
PROFILE: Final[dict[str, type]] = {
    "base_url": str,
    "read_only": bool,
    "protected": bool,
    "account": str,
    "project": str,
    "operator": str,
    "require_reason": bool,
    "store": str,
    "late_limit_minutes": int,
    "token_encoding": str,
    "projects": list,
}
PROJECT: Final[dict[str, type]] = {
    "account": str,
    "project": str,
    "threshold_min": float,
    "threshold_max": float,
    "higher_is_riskier": bool,
}
_NAMES: Final = {
    str: "a string",
    bool: "true or false",
    float: "a number",
    int: "a whole number",
    dict: "a table",
    list: "an array of tables ([[...]])",
}
_REQUIRED_PROFILE: Final = ("base_url",)
_REQUIRED_PROJECT: Final = ("account", "project")


def shown_key(key: Key) -> str:
    """``profiles.prod.projects[0].threshold_min``: a key as config check names it."""
    parts: list[str] = []
    for part in key:
        parts.append(
            f"[{part}]" if isinstance(part, int) else ("." if parts else "") + toml_key(part)
        )
    return "".join(parts)


def _kind_ok(value: object, kind: type) -> bool:
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:  # TOML's true is not a number of minutes
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _typed(
    table: Mapping[str, Any], where: Key, types: Mapping[str, type]
) -> list[tuple[Key, str]]:
    wrong: list[tuple[Key, str]] = []
    for key, kind in types.items():
        if key in table and not _kind_ok(table[key], kind):
            wrong.append(((*where, key), f"{shown_key((*where, key))} must be {_NAMES[kind]}"))
    return wrong


def _missing(table: Mapping[str, Any], where: Key, keys: Iterable[str]) -> list[tuple[Key, str]]:
    return [((*where,), f"{shown_key((*where, k))} is missing") for k in keys if k not in table]


def value_problems(data: Mapping[str, Any]) -> list[tuple[Key, str]]:
    """(key, message) of every wrong value of the parsed file, in the file's order."""
    found = _typed(data, (), TOP)
    profiles = data.get("profiles")
    for name, profile in profiles.items() if isinstance(profiles, dict) else ():
        where: Key = ("profiles", name)
        if not isinstance(profile, dict):
            found.append((where, f"{shown_key(where)} must be a table"))
            continue
        own = _typed(profile, where, PROFILE) + _missing(profile, where, _REQUIRED_PROFILE)
        entries = profile.get("projects")
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            at: Key = (*where, "projects", index)
            if not isinstance(entry, dict):
                own.append((at, f"{shown_key(at)} must be a table"))
                continue
            own += _typed(entry, at, PROJECT) + _missing(entry, at, _REQUIRED_PROJECT)
        if not own:  # the types are right: the model judges the values
            own = _judged({"profiles": {name: profile}}, where)
        found += own
    if not any(len(key) <= 1 for key, _ in found):
        found += _judged({k: v for k, v in data.items() if k != "profiles"}, ())
        current = data.get("current")
        if isinstance(current, str) and current not in (profiles or {}):
            found.append(
                (("current",), f"current = {clean(current)!r} names no profile: it is ignored")
            )
    return found


def _judged(data: Mapping[str, Any], where: Key) -> list[tuple[Key, str]]:
    """The model's own refusal of ``data`` (types known right), if any."""
    try:
        parse_config(data)
    except Malformed as exc:
        return [(where, str(exc))]
    return []


_TOP = {f.name for f in fields(Config)}
_PROFILE = {f.name for f in fields(Profile)} - {"name"}
_PROJECT = {f.name for f in fields(ProjectSettings)} | {"account", "project"}


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
    #: :meth:`ConfigStore.load <bottui.store.config.sync.ConfigStore.load>` reads it:
    #: valid TOML, and no value of a type the model refuses.
    loads: bool


def check_config_file(path: Path) -> ConfigCheck | None:
    """Every problem of the config file at ``path``; None when there is no such file."""
    from bottui.store import files

    try:
        text, data = files.read(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except files.TomlProblem as exc:
        return ConfigCheck([ConfigProblem(exc.line, clean(exc.reason))], {}, {}, loads=False)
    lines = key_lines(text)
    problems = list(unknown_keys(data, lines))
    for key, message in value_problems(data):
        line = _line_of_message(message, lines) or _line(lines, key)
        problems.append(ConfigProblem(line, clean(message)))
    table = data.get("keymap")
    keymap = dict(table) if isinstance(table, dict) else {}
    keymap_lines = {k: lines.get(("keymap", k), lines.get(("keymap",), 0)) for k in keymap}
    problems.sort(key=lambda p: p.line or 0)
    return ConfigCheck(problems, keymap, keymap_lines, loads=_loads(data))


def _loads(data: Mapping[str, Any]) -> bool:
    """What :meth:`~bottui.store.config.sync.ConfigStore.load` says of ``data``."""
    try:
        parse_config(data)
    except Malformed:
        return False
    return True


def unknown_keys(data: Mapping[str, Any], lines: Mapping[Key, int]) -> Iterable[ConfigProblem]:
    """A problem for each key of ``data`` the config model does not have."""
    yield from _unknown(data, (), _TOP, lines)
    profiles = data.get("profiles")
    if not isinstance(profiles, dict):
        return
    for name, profile in profiles.items():
        if not isinstance(profile, dict):
            continue
        yield from _unknown(profile, ("profiles", name), _PROFILE, lines)
        entries = profile.get("projects")
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            if isinstance(entry, dict):
                where = ("profiles", name, "projects", index)
                yield from _unknown(entry, where, _PROJECT, lines)


def _unknown(
    table: Mapping[str, Any], where: Key, known: set[str], lines: Mapping[Key, int]
) -> Iterable[ConfigProblem]:
    for key in table:
        if key in known:
            continue
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        shown = clean(shown_key((*where, key)))
        yield ConfigProblem(_line(lines, (*where, key)), f"unknown key {shown}{hint}")


def _line(lines: Mapping[Key, int], key: Key) -> int | None:
    """The line of ``key``, else of the nearest table above it that has one."""
    while key:
        if key in lines:
            return lines[key]
        key = key[:-1]
    return None


def _line_of_message(message: str, lines: Mapping[Key, int]) -> int | None:
    # Malformed names its key first ("profiles.prod.read_only must be ..."):
    # the key written that way with the longest match gives the line.
    best: tuple[int, int] | None = None
    for key, line in lines.items():
        shown = shown_key(key)
        if message.startswith(shown) and (best is None or len(shown) > best[0]):
            best = (len(shown), line)
    return None if best is None else best[1]


# -- where each key is: a scan of the lines (the file is valid TOML by then) ----------

_PART = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_DOTTED = re.compile(rf"\s*({_PART}(?:\s*\.\s*{_PART})*)\s*")
_PARTS = re.compile(_PART)


def _key_parts(text: str) -> tuple[str, ...]:
    parts: list[str] = []
    for token in _PARTS.findall(text):
        if token.startswith('"'):
            try:
                parts.append(json.loads(token))
            except ValueError:
                parts.append(token[1:-1])
        elif token.startswith("'"):
            parts.append(token[1:-1])
        else:
            parts.append(token)
    return tuple(parts)


def key_lines(text: str) -> dict[Key, int]:
    """The 1-based line of each table header and each ``key =`` of the file.

    Array-of-tables entries are keyed by index (``profiles, prod, projects,
    0``). Keys inside inline tables and multi-line values are not scanned:
    their problems are reported on the line of the key holding them.
    """
    lines: dict[Key, int] = {}
    counts: dict[Key, int] = {}
    table: Key = ()
    skip_until: str | None = None  # the closing quotes of a multi-line string
    depth = 0  # of brackets of a multi-line array
    for number, line in enumerate(text.splitlines(), start=1):
        if skip_until is not None:
            if skip_until in line:
                skip_until = None
            continue
        if depth > 0:
            depth = max(0, depth + _brackets(line))
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[["):
            path = _key_parts(stripped[2 : stripped.index("]]")])
            index = counts.get(path, 0)
            counts[path] = index + 1
            table = (*path, index)
            lines.setdefault(path, number)
            lines[table] = number
            continue
        if stripped.startswith("["):
            table = _key_parts(stripped[1 : stripped.index("]")])
            lines.setdefault(table, number)
            continue
        match = _DOTTED.match(line)
        if match is None or "=" not in line[match.end() : match.end() + 1]:
            continue
        parts = _key_parts(match.group(1))
        for n in range(1, len(parts) + 1):  # a.b.c = 1 defines a and a.b as well
            lines.setdefault((*table, *parts[:n]), number)
        value = line[match.end() + 1 :]
        for quotes in ('"""', "'''"):
            if value.count(quotes) == 1:
                skip_until = quotes
        if skip_until is None:
            depth = max(0, _brackets(value))
    return lines


def _brackets(text: str) -> int:
    """Opened minus closed ``[`` outside strings and comments (roughly: ids hold none)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", text).split("#", 1)[0]
    return text.count("[") - text.count("]")


__all__ = [
    "PROFILE",
    "PROJECT",
    "TOP",
    "ConfigCheck",
    "ConfigProblem",
    "Malformed",
    "check_config_file",
    "key_lines",
    "parse_config",
    "shown_key",
    "toml_key",
    "unknown_keys",
    "value_problems",
]
