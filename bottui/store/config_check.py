"""Check every key of ``config.toml`` and say where each problem is, by line.

:class:`~bottui.store.config.ConfigStore` reads what it knows and stops at
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
from typing import Any, NamedTuple

from bottui.plaintext import clean
from bottui.store.config_model import MAX_CONFIG_BYTES, Config, Profile, ProjectSettings
from bottui.store.config_read import Malformed, parse_config
from bottui.store.config_types import shown_key, value_problems

Key = tuple[str | int, ...]

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
    #: :meth:`ConfigStore.load <bottui.store.config.ConfigStore.load>` reads it:
    #: valid TOML, and no value of a type the model refuses.
    loads: bool


def check_config_file(path: Path) -> ConfigCheck | None:
    """Every problem of the config file at ``path``; None when there is no such file."""
    from bottui.store import toml_read

    try:
        text, data = toml_read.read(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except toml_read.TomlProblem as exc:
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
    """What :meth:`ConfigStore.load <bottui.store.config.ConfigStore.load>` says of ``data``."""
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


__all__ = ["ConfigCheck", "ConfigProblem", "check_config_file", "key_lines", "unknown_keys"]
