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
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

from bottui.api import validation
from bottui.api.errors import ValidationError
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


# What a playbook file may say, checked key by key: :class:`Playbook` and its steps.
#
# The schema (docs/playbooks.md)::
#
#     description = "..."        # optional, one line
#     duration = "2h"            # optional default of --for (90s, 30m, 2h, 1d, 1h30m; <= 7d)
#     account = "acme"           # optional; else --account or the profile's
#     project = "shop-prod"      # optional; else --project or the profile's
#
#     [[steps]]                  # 1 to MAX_STEPS, run in this order
#     limiter = "rl-login"
#     action = "enable"          # or "disable"
#
#     [[steps]]
#     dimension = "bot-score"
#     block = 0.9                # a number, or a string holding the exact literal
#     challenge = 0.6
#     name = "Bot score"         # optional; else the name the inventory knows
#
# Anything else (an unknown key, a wrong type, an id that cannot be one path
# segment, a bad literal or duration) is refused as a
# :class:`~bottui.store.playbook_files.PlaybookFileError` naming the file and
# the line. Whether the inventory knows the ids is checked when the playbook
# is planned (:mod:`bottui.ops.playbooks.planning`), not here: that needs a
# profile.


#: Steps in one playbook: a mitigation, not a bulk run.
MAX_STEPS: Final = 50


#: A description is one line a list shows.
MAX_DESCRIPTION: Final = 200


TOP_KEYS: Final = frozenset({"description", "duration", "account", "project", "steps"})


LIMITER_KEYS: Final = frozenset({"limiter", "action"})


THRESHOLD_KEYS: Final = frozenset({"dimension", "block", "challenge", "name"})


ACTIONS: Final = {"enable": True, "disable": False}


@dataclass(frozen=True)
class LimiterStep:
    """Switch a rate limiter on (``is_active``) or off."""

    number: int
    limiter_id: str
    is_active: bool
    line: int | None

    @property
    def target_text(self) -> str:
        """``limiter rl-login`` (not cleaned)."""
        return f"limiter {self.limiter_id}"


@dataclass(frozen=True)
class ThresholdsStep:
    """Give a risk dimension new thresholds (``name`` None: keep the known name)."""

    number: int
    dimension_id: str
    name: str | None
    block: str
    challenge: str
    line: int | None

    @property
    def target_text(self) -> str:
        """``dimension bot-score`` (not cleaned)."""
        return f"dimension {self.dimension_id}"


Step = LimiterStep | ThresholdsStep


@dataclass(frozen=True)
class Playbook:
    """A named list of steps, as its file says; ``duration``: the default of ``--for``."""

    name: str
    path: Path
    description: str | None
    duration: timedelta | None
    duration_text: str | None
    account: str | None
    project: str | None
    steps: tuple[Step, ...]
    source: PlaybookFile

    def to_json(self) -> dict[str, Any]:
        """``playbook show --json``."""
        seconds = None if self.duration is None else int(self.duration.total_seconds())
        return {
            "name": self.name,
            "path": str(self.path),
            "description": self.description,
            "duration": self.duration_text,
            "durationSeconds": seconds,
            "account": self.account,
            "project": self.project,
            "steps": [step_json(s) for s in self.steps],
        }


def step_json(step: Step) -> dict[str, Any]:
    """One step as the file says it (``--json``)."""
    if isinstance(step, LimiterStep):
        return {
            "step": step.number,
            "limiter": step.limiter_id,
            "action": "enable" if step.is_active else "disable",
        }
    return {
        "step": step.number,
        "dimension": step.dimension_id,
        "name": step.name,
        "block": step.block,
        "challenge": step.challenge,
    }


def playbook(file: PlaybookFile) -> Playbook:
    """The playbook ``file`` describes.

    Raises:
        PlaybookFileError: the first problem, with the file and its line.
    """
    data = file.data
    _no_unknown(file, data, TOP_KEYS, ())
    description = _optional_text(file, data, "description")
    if description is not None and (len(description) > MAX_DESCRIPTION or "\n" in description):
        raise file.error(f"description is one line of at most {MAX_DESCRIPTION}", "description")
    duration_text = _optional_text(file, data, "duration")
    duration = _duration(file, duration_text) if duration_text is not None else None
    account = _optional_id(file, data, "account", ())
    project = _optional_id(file, data, "project", ())
    raw_steps = data.get("steps")
    if raw_steps is None:
        raise file.error("has no steps: add [[steps]] tables")
    if not isinstance(raw_steps, list) or not all(isinstance(s, dict) for s in raw_steps):
        raise file.error("steps must be [[steps]] tables", "steps")
    if not raw_steps:
        raise file.error("has no steps: add [[steps]] tables", "steps")
    if len(raw_steps) > MAX_STEPS:
        raise file.error(f"has more than {MAX_STEPS} steps", "steps")
    steps = tuple(_step(file, index, raw) for index, raw in enumerate(raw_steps))
    return Playbook(
        name=file.name,
        path=file.path,
        description=description,
        duration=duration,
        duration_text=duration_text,
        account=account,
        project=project,
        steps=steps,
        source=file,
    )


def _step(file: PlaybookFile, index: int, raw: dict[str, Any]) -> Step:
    where: tuple[str | int, ...] = ("steps", index)
    line = file.line(*where)
    number = index + 1
    if "limiter" in raw and "dimension" in raw:
        raise file.error(f"step {number} names both a limiter and a dimension", *where)
    if "limiter" in raw:
        _no_unknown(file, raw, LIMITER_KEYS, where)
        limiter_id = _required_id(file, raw, "limiter", where)
        action = raw.get("action")
        if action is None:
            raise file.error(f"step {number}: action is missing (enable or disable)", *where)
        if not isinstance(action, str) or action not in ACTIONS:
            raise file.error(
                f'step {number}: action must be "enable" or "disable"', *where, "action"
            )
        return LimiterStep(number, limiter_id, ACTIONS[action], line)
    if "dimension" in raw:
        _no_unknown(file, raw, THRESHOLD_KEYS, where)
        dimension_id = _required_id(file, raw, "dimension", where)
        name = _optional_text(file, raw, "name", where)
        if name is not None:
            _validated(file, lambda: validation.dimension_name(name), (*where, "name"))
        literals = []
        for key in ("block", "challenge"):
            if key not in raw:
                raise file.error(f"step {number}: {key} is missing", *where)
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, int | float | str):
                raise file.error(f"step {number}: {key} must be a number", *where, key)
            field = f"{key} threshold"
            literals.append(
                _validated(
                    file, lambda v=value, f=field: validation.threshold_literal(f, v), (*where, key)
                )
            )
        return ThresholdsStep(number, dimension_id, name, literals[0], literals[1], line)
    raise file.error(f"step {number} names neither a limiter nor a dimension", *where)


def _no_unknown(
    file: PlaybookFile, table: dict[str, Any], allowed: frozenset[str], where: tuple[str | int, ...]
) -> None:
    for key in table:
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            raise file.error(f"unknown key {key!r} (known: {known})", *where, key)


def _optional_text(
    file: PlaybookFile, table: dict[str, Any], key: str, where: tuple[str | int, ...] = ()
) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise file.error(f"{key} must be a string", *where, key)
    return value


def _optional_id(
    file: PlaybookFile, table: dict[str, Any], key: str, where: tuple[str | int, ...]
) -> str | None:
    value = _optional_text(file, table, key, where)
    if value is None:
        return None
    return _validated(file, lambda: validation.path_id(key, value), (*where, key))


def _required_id(
    file: PlaybookFile, table: dict[str, Any], key: str, where: tuple[str | int, ...]
) -> str:
    value = _optional_id(file, table, key, where)
    if value is None:  # present (the caller checked), so only a wrong type gets here
        raise file.error(f"{key} must be a string", *where, key)
    return value


def _validated(file: PlaybookFile, check: Any, where: tuple[str | int, ...]) -> str:
    try:
        result: str = check()
    except ValidationError as exc:
        raise file.error(f"{exc.field} {exc.message}", *where) from None
    return result


def _duration(file: PlaybookFile, text: str) -> timedelta:
    from bottui.ops.durations import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise file.error(f"duration {exc}", "duration") from None


# The playbooks of a session's config directory, read off the event loop.
#
# Reading a file is blocking work: every read here is awaited on the store
# executor's general lane, so the TUI never waits on a slow disk. Both faces
# use these; :func:`check_playbooks` is what ``bottui config check`` calls,
# and every CLI command's start: so the executor (and asyncio) is imported
# only where a read is awaited.


@dataclass(frozen=True)
class PlaybookProblem:
    """A problem ``check`` found: the file, its line when known, and what is wrong."""

    path: Path
    line: int | None
    message: str

    def text(self) -> str:
        """``FILE:LINE: message`` (not cleaned)."""
        where = f"{self.path}:{self.line}" if self.line is not None else str(self.path)
        return f"{where}: {self.message}"


def directory(locations: Locations) -> Path:
    """Where the playbooks of ``locations`` live."""
    return playbook_dir(locations)


def read_playbook(locations: Locations, name: str) -> Playbook:
    """Read and check ``NAME.toml`` (blocking: call from a thread or before a loop).

    Raises:
        PlaybookFileError: with the file and line of the first problem.
    """
    return playbook(read(directory(locations), name))


async def load(locations: Locations, name: str) -> Playbook:
    """:func:`read_playbook`, awaited off the event loop."""
    from bottui.store.executor import shared_executor

    return await shared_executor().call(lambda: read_playbook(locations, name))


async def load_all(locations: Locations) -> list[Playbook | PlaybookFileError]:
    """Every playbook in the directory, by name; one that cannot be used is its error."""
    from bottui.store.executor import shared_executor

    def read_all() -> list[Playbook | PlaybookFileError]:
        found: list[Playbook | PlaybookFileError] = []
        for name in list_names(directory(locations)):
            try:
                found.append(read_playbook(locations, name))
            except PlaybookFileError as exc:
                found.append(exc)
        return found

    return await shared_executor().call(read_all)


def check_playbooks(locations: Locations) -> list[PlaybookProblem]:
    """Every problem of every playbook file of ``locations`` (blocking; ``config check``).

    A file whose name cannot be a playbook name is a problem too. Whether
    the ids are known to the inventory is not checked here (that needs a
    profile): ``playbook show`` and ``run`` do it.
    """
    where = directory(locations)
    problems = [
        PlaybookProblem(path, None, "the name is not a playbook name (letters, digits, . _ -)")
        for path in invalid_file_names(where)
    ]
    for name in list_names(where):
        try:
            read_playbook(locations, name)
        except PlaybookFileError as exc:
            problems.append(PlaybookProblem(exc.path, exc.line, exc.reason))
    return problems


__all__ = [
    "MAX_BYTES",
    "MAX_STEPS",
    "PLAYBOOK_DIR",
    "KeyPath",
    "LimiterStep",
    "Playbook",
    "PlaybookFile",
    "PlaybookFileError",
    "PlaybookProblem",
    "Step",
    "ThresholdsStep",
    "check_playbooks",
    "directory",
    "invalid_file_names",
    "key_lines",
    "list_names",
    "load",
    "load_all",
    "playbook",
    "playbook_dir",
    "read",
    "read_playbook",
    "step_json",
    "valid_name",
]
