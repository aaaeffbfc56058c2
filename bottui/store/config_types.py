"""Every value of ``config.toml`` of the wrong type, and every value the model refuses.

:func:`~bottui.store.config_read.parse_config` stops at the first wrong
value (that is what loading needs); a person fixing the file wants every one
at once, each on its line. :func:`value_problems` walks the whole file with
the types below, then lets the model judge each table whose types are right
(a base URL with a query, ``threshold_min`` above ``threshold_max``, a
``current`` that names no profile), so nothing wrong is passed over and
nothing is said twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from bottui.plaintext import clean
from bottui.store.config_read import Malformed, parse_config, toml_key

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


__all__ = ["PROFILE", "PROJECT", "TOP", "shown_key", "value_problems"]
