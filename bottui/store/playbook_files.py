"""Playbook files: ``playbooks/NAME.toml`` beside ``config.toml``, read safely, with line numbers.

A playbook is kept as one TOML file per name so a team can keep the
directory in Git. This module only *reads*: it lists the names, reads one
file through :mod:`bottui.store.files` (bounded in size, kind and
nesting) and finds the line of every key, since ``tomllib`` gives none and
every refusal must name the file and the line. What the keys mean is
:mod:`bottui.ops.playbooks.schema`'s business.

The line finder is ``config check``'s
(:func:`bottui.store.config.config_file.key_lines`): a scan of table headers and
``key =`` lines, ``[[steps]]`` keyed by index. A key it cannot place (in an
inline table, say) falls back to the line of the nearest enclosing key or
the step's header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from bottui.plaintext import clean
from bottui.store.config.config_file import key_lines
from bottui.store.errors import StoreError
from bottui.store.files import Locations
from bottui.store.toml_read import TomlProblem, decode, parse, read_bytes

#: The directory under the config directory.
PLAYBOOK_DIR: Final = "playbooks"
SUFFIX: Final = ".toml"
#: A playbook file is small; anything larger is a mistake or hostile.
MAX_BYTES: Final = 256 * 1024
#: A name is one path segment a person types: letters, digits, ``.``, ``_``, ``-``.
NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

#: A key's place in the document: ``("duration",)`` or ``("steps", 2, "limiter")``.
KeyPath = tuple[str | int, ...]


class PlaybookFileError(StoreError):
    """A playbook file that cannot be used: its path, the line when known, and why (exit 2)."""

    def __init__(self, path: Path, reason: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = clean(reason)
        where = f"{clean(str(path))}:{line}" if line is not None else clean(str(path))
        super().__init__(f"Playbook {where}: {self.reason}", "nothing was sent")


@dataclass(frozen=True)
class PlaybookFile:
    """One playbook file as read: its name, path, the parsed document and key lines."""

    name: str
    path: Path
    data: dict[str, Any]
    lines: dict[KeyPath, int] = field(default_factory=dict)

    def line(self, *path: str | int) -> int | None:
        """The line of ``path``, or of its nearest enclosing key that has one."""
        key: KeyPath = tuple(path)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return None

    def error(self, reason: str, *path: str | int) -> PlaybookFileError:
        """A refusal of this file at the line of ``path``."""
        return PlaybookFileError(self.path, reason, self.line(*path))


def playbook_dir(locations: Locations) -> Path:
    """``playbooks/`` in the config directory (XDG honoured by platformdirs)."""
    return locations.config_dir / PLAYBOOK_DIR


def valid_name(name: str) -> bool:
    """True when ``name`` can be a playbook's file name (one safe path segment)."""
    return NAME_PATTERN.fullmatch(name) is not None


def list_names(directory: Path) -> list[str]:
    """The names of the playbook files in ``directory``, sorted; none when it is absent.

    A file whose name is not a valid playbook name is left out (``check``
    reports it): it could not be asked for by name.
    """
    if not directory.is_dir():
        return []
    names = [
        p.name[: -len(SUFFIX)]
        for p in directory.iterdir()
        if p.name.endswith(SUFFIX) and p.name != SUFFIX
    ]
    return sorted(n for n in names if valid_name(n))


def invalid_file_names(directory: Path) -> list[Path]:
    """``*.toml`` files in ``directory`` whose names are no valid playbook name."""
    if not directory.is_dir():
        return []
    return sorted(
        p for p in directory.iterdir() if p.name.endswith(SUFFIX) and not valid_name(p.stem)
    )


def read(directory: Path, name: str) -> PlaybookFile:
    """Read ``directory/NAME.toml``.

    Raises:
        PlaybookFileError: a name that is not one path segment, a missing
            file, or a file that is not small UTF-8 TOML (with its line).
    """
    path = directory / f"{name}{SUFFIX}"
    if not valid_name(name):
        raise PlaybookFileError(
            path, "a playbook name is letters, digits, '.', '_' and '-' (at most 64)"
        )
    if not path.is_file():
        raise PlaybookFileError(path, f"no playbook named {name}")
    try:
        text = decode(read_bytes(path, MAX_BYTES))
        data = parse(text)
    except TomlProblem as problem:
        raise PlaybookFileError(path, problem.reason, problem.line) from None
    return PlaybookFile(name, path, data, key_lines(text))


__all__ = [
    "MAX_BYTES",
    "PLAYBOOK_DIR",
    "KeyPath",
    "PlaybookFile",
    "PlaybookFileError",
    "invalid_file_names",
    "key_lines",
    "list_names",
    "playbook_dir",
    "read",
    "valid_name",
]
