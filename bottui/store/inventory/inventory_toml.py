"""The inventory file a team shares: TOML, read strictly, written losslessly.

Format (version 1)::

    format = "bottui-inventory"
    version = 1
    profile = "prod"                     # informational
    exported_at = "2025-06-01T12:00:00.000000Z"

    [[accounts]]
    account = "acc-1"
    name = "Main account"                # optional
    updated_at = "..."                   # optional on import (default: now)
    source = "user"                      # optional on import (default: "import")

    [[projects]]
    account = "acc-1"
    project = "proj-1"
    name = "Shop"

    [[limiters]]
    account = "acc-1"
    project = "proj-1"
    id = "rl-1"
    name = "Login burst"
    is_active = true                     # optional: unknown when absent
    known_at = "..."
    source = "response"

    [[dimensions]]
    account = "acc-1"
    project = "proj-1"
    id = "dim-1"
    name = "Bot score"
    block = "0.8"                        # JSON number literals, as strings
    challenge = "0.5"                    # (both or neither)
    known_at = "..."
    source = "request"

Ids are always values of explicit keys, never table names, so any id (quotes,
dots, slashes, unicode) is just a string. Every string is written as a TOML
basic string with quotes, backslashes and control characters (C0, DEL, C1,
line separators, bidi overrides) escaped, so the file is plain printable
text. Ids must be usable as one path segment (no control characters, not
``.``/``..``, at most 1024 characters), as the API requires.

Reading is all or nothing: a syntax error or a bad record raises
:class:`~bottui.store.store_errors.StoreFileError` naming the file and line,
and nothing is imported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, Final

from bottui.api.errors import ValidationError
from bottui.api.requests import path_id, threshold_literal
from bottui.plaintext import clean
from bottui.store import toml_read
from bottui.store.files import write_atomic
from bottui.store.inventory.inventory_records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    ProjectEntry,
    Source,
    record_key,
    taught_by,
)
from bottui.store.store_errors import StoreFileError
from bottui.store.utc import normalize, stamp

FORMAT: Final = "bottui-inventory"
VERSION: Final = 1
MAX_FILE_BYTES: Final = 32 * 1024 * 1024

#: The arrays of tables, in the snapshot's (and the file's) order.
_TABLES: Final = InventorySnapshot._fields
_TOP_KEYS: Final = frozenset({"format", "version", "profile", "exported_at", *_TABLES})
_SOURCE: Final = re.compile(r"[a-z][a-z0-9-]{0,31}")
_HEADER: Final = re.compile(r"^[ \t]*\[\[[ \t]*(\w+)[ \t]*\]\]", re.MULTILINE)
# What is escaped as \uXXXX beyond TOML's must-escape set: C1, DEL, line and
# paragraph separators, bidi overrides and isolates (see bottui.plaintext).
_ESCAPE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SHORT_ESCAPES: Final = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}

# -- writing -------------------------------------------------------------------------


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string, printable and unambiguous."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    escaped = _ESCAPE.sub(
        lambda m: _SHORT_ESCAPES.get(m.group(), f"\\u{ord(m.group()):04X}"), escaped
    )
    return f'"{escaped}"'


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
    raise TypeError(f"cannot write {type(value).__name__} to an inventory file")


def dumps(snapshot: InventorySnapshot, *, profile: str, exported_at: str) -> str:
    """The TOML text of ``snapshot`` (unknown values are left out)."""
    return "".join(_chunks(snapshot, profile=profile, exported_at=exported_at))


def _chunks(snapshot: InventorySnapshot, *, profile: str, exported_at: str) -> Iterator[str]:
    yield "# bottui inventory: accounts, projects, rate limiters and dimensions of one profile.\n"
    yield "# Merge it into a profile with `bottui inventory import FILE`.\n"
    yield f"format = {toml_string(FORMAT)}\n"
    yield f"version = {VERSION}\n"
    yield f"profile = {toml_string(profile)}\n"
    yield f"exported_at = {toml_string(exported_at)}\n"
    for table in _TABLES:
        for record in getattr(snapshot, table):
            yield f"\n[[{table}]]\n"
            for key, value in record.to_json().items():
                if key == "source" and isinstance(value, str) and taught_by(value) is not None:
                    # A file keeps "team", not the teammate's name: the word stays a word.
                    value = Source.TEAM.value
                if value is not None:
                    yield f"{key} = {_value(value)}\n"


def write(
    path: Path,
    snapshot: InventorySnapshot,
    *,
    profile: str,
    exported_at: str,
    overwrite: bool = False,
) -> None:
    """Write ``snapshot`` to ``path`` atomically (raises StoreFileError; see ``write_atomic``)."""
    write_atomic(
        Path(path),
        _chunks(snapshot, profile=profile, exported_at=exported_at),
        overwrite=overwrite,
    )


# -- reading ------------------------------------------------------------------------------


class _Reader:
    """Turns parsed TOML into a snapshot, failing on the first bad record."""

    def __init__(self, text: str, path: Path, now: str) -> None:
        self.path = path
        self.now = now
        self.headers: dict[str, list[int]] = {}
        # Line numbers counted between matches: no list of every line in memory.
        number, counted = 1, 0
        for match in _HEADER.finditer(text):
            number += text.count("\n", counted, match.start())
            counted = match.start()
            self.headers.setdefault(match.group(1), []).append(number)

    def fail(self, message: str, *, line: int | None = None) -> StoreFileError:
        where = f"{self.path.name}, line {line}" if line is not None else self.path.name
        return StoreFileError(
            f"Cannot import {where}: {message}",
            f"{self.path}: nothing was imported. Fix the file and import it again.",
            path=self.path,
            line=line,
        )

    def line_of(self, table: str, index: int) -> int | None:
        lines = self.headers.get(table, [])
        return lines[index] if index < len(lines) else None

    def snapshot(self, data: Mapping[str, Any]) -> InventorySnapshot:
        fmt = data.get("format")
        if fmt != FORMAT:
            raise self.fail(f"not a bottui inventory file (expected format = {FORMAT!r})")
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise self.fail("'version' must be a positive integer")
        if version > VERSION:
            raise self.fail(
                f"written by a newer bottui (version {version}; this one reads {VERSION})"
            )
        unknown = sorted(set(data) - _TOP_KEYS)
        if unknown:
            raise self.fail(f"unknown key {unknown[0]!r}")
        return InventorySnapshot(**{table: tuple(self.records(table, data)) for table in _TABLES})

    def records(self, table: str, data: Mapping[str, Any]) -> Iterator[Any]:
        items = data.get(table, [])
        if not isinstance(items, list):
            raise self.fail(f"{table!r} must be an array of tables ([[{table}]])")
        seen: dict[tuple[str, ...], int] = {}
        for index, item in enumerate(items):
            line = self.line_of(table, index)
            where = f"{table}[{index + 1}]"
            if not isinstance(item, dict):
                raise self.fail(f"{where} is not a table", line=line)
            unknown = sorted(set(item) - set(_RECORDS[table]._fields))
            if unknown:
                raise self.fail(f"{where}: unknown key {unknown[0]!r}", line=line)
            try:
                record = self.record(table, item)
            except (ValueError, TypeError) as exc:
                raise self.fail(f"{where}: {exc}", line=line) from None
            key = tuple(record_key(record))
            if key in seen:
                raise self.fail(
                    f"{where} repeats {table[:-1]} {list(key)!r} (first given as "
                    f"{table}[{seen[key] + 1}])",
                    line=line,
                )
            seen[key] = index
            # The parsed table is dropped once its record exists: the peak holds
            # one form of each record, not both (memory under 10x the file).
            items[index] = None
            yield record

    def record(self, table: str, item: Mapping[str, Any]) -> Any:
        """One table of the file as its record: each key checked by what it holds."""
        kind = _RECORDS[table]
        values = {key: _CHECKS[key](self, item, key) for key in kind._fields}
        if table == "dimensions" and (values["block"] is None) != (values["challenge"] is None):
            raise ValueError("give both 'block' and 'challenge', or neither")
        return kind(**values)

    # -- what each key holds --

    def ident(self, item: Mapping[str, Any], key: str) -> str:
        if key not in item:
            raise ValueError(f"{key!r} is missing")
        value = item[key]
        if not isinstance(value, str):
            raise ValueError(f"{key!r} must be a string")
        try:
            return path_id(key, value)
        except ValidationError as exc:
            raise ValueError(f"{key!r} {exc.message}") from None

    def name(self, item: Mapping[str, Any], key: str) -> str | None:
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{key!r} must be a string")
        return value

    def flag(self, item: Mapping[str, Any], key: str) -> bool | None:
        value = item.get(key)
        if value is not None and not isinstance(value, bool):
            raise ValueError(f"{key!r} must be true or false")
        return value

    def moment(self, item: Mapping[str, Any], key: str) -> str:
        value = item.get(key)
        if value is None:
            return self.now
        if isinstance(value, datetime):
            return stamp(value)
        if isinstance(value, date | time):
            raise ValueError(f"{key!r} must be a date and time")
        if not isinstance(value, str):
            raise ValueError(f"{key!r} must be an ISO 8601 time")
        return normalize(value)

    def source(self, item: Mapping[str, Any], key: str) -> str:
        value = item.get(key, Source.IMPORT.value)
        if not isinstance(value, str) or not _SOURCE.fullmatch(value):
            raise ValueError(f"{key!r} must be a short lowercase word such as 'response'")
        return value

    def literal(self, item: Mapping[str, Any], key: str) -> str | None:
        value = item.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise ValueError(f'{key!r} must be a number (preferably a string like "0.5")')
        try:
            return threshold_literal(key, value)
        except ValidationError as exc:
            raise ValueError(f"{key!r} {exc.message}") from None


#: The record each array of tables holds.
_RECORDS: Final[dict[str, type[Any]]] = dict(
    zip(_TABLES, (AccountEntry, ProjectEntry, LimiterEntry, DimensionEntry), strict=True)
)
#: How each key of a record is read.
_CHECKS: Final[dict[str, Callable[[_Reader, Mapping[str, Any], str], object]]] = {
    "account": _Reader.ident,
    "project": _Reader.ident,
    "id": _Reader.ident,
    "name": _Reader.name,
    "is_active": _Reader.flag,
    "block": _Reader.literal,
    "challenge": _Reader.literal,
    "updated_at": _Reader.moment,
    "known_at": _Reader.moment,
    "source": _Reader.source,
}


def loads(text: str, *, path: Path, now: str) -> InventorySnapshot:
    """Parse an inventory file's text; missing times default to ``now``.

    Raises:
        StoreFileError: a syntax error, nesting or a key beyond the limits of
            :mod:`bottui.store.toml_read`, or a bad record (file and line named).
    """
    reader, data = _parsed(text, Path(path), now)
    return reader.snapshot(data)


def _parsed(text: str, path: Path, now: str) -> tuple[_Reader, dict[str, Any]]:
    reader = _Reader(text, path, now)
    try:
        return reader, toml_read.parse(text)
    except toml_read.TomlProblem as exc:
        raise reader.fail(_problem_words(exc), line=exc.line) from None


def _problem_words(problem: toml_read.TomlProblem) -> str:
    """The reason as the rest of an import error (the line is said by ``fail``)."""
    reason = problem.reason.removeprefix("is ")
    return reason + (f" (column {problem.column})" if problem.column is not None else "")


def read(path: Path, *, now: str) -> InventorySnapshot:
    """Read and parse an inventory file, or stdin (``-``, ``/dev/stdin``); raises StoreFileError.

    At most :data:`MAX_FILE_BYTES` are read from any kind of file; anything
    but a regular file or this process's stdin (a FIFO, a device) is refused.
    """
    path = Path(path)
    try:
        text = toml_read.decode(toml_read.read_bytes(path, MAX_FILE_BYTES, allow_stdin=True))
    except FileNotFoundError as exc:
        raise StoreFileError(
            f"Cannot read {path.name}", f"{path}: {exc.strerror or exc}", path=path
        ) from None
    except toml_read.TomlProblem as exc:
        where = f", line {exc.line}" if exc.line is not None else ""
        raise StoreFileError(
            f"Cannot import {clean(path.name)}{where}: the file {exc.reason}",
            f"{clean(str(path))}: nothing was imported.",
            path=path,
            line=exc.line,
        ) from None
    reader, data = _parsed(text, path, now)
    del text  # the parsed tables from here on: the text is not needed twice over
    return reader.snapshot(data)
