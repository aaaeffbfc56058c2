"""Playbook files: ``playbooks/NAME.toml`` beside ``config.toml``, read, declared and checked.

A playbook is kept as one TOML file per name so a team can keep the
directory in Git. A file is read through :mod:`bottui.store.toml_read`
(bounded in size, kind and nesting) and the line of every key is found
(:func:`~bottui.store.config.config_model.key_lines`, ``config check``'s own
scan), since ``tomllib`` gives none and every refusal must name the file and
the line. A key it cannot place (in an inline table, say) falls back to the
line of the nearest enclosing key or the step's header.

What a file may say is declared once, as msgspec Structs
(:class:`PlaybookDoc`, :class:`LimiterDoc`, :class:`ThresholdsDoc`); msgspec
refuses an unknown key or a wrong type, and this module turns its refusal
into the words and line of a :class:`PlaybookFileError`. The values (ids that
must be one path segment, threshold literals, a duration) are checked after.

The playbooks of a config directory are read off the event loop
(:func:`load`, :func:`load_all`, on the store executor's general lane);
:func:`check_playbooks` is what ``bottui config check`` calls.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any, Final, TypeVar

import msgspec

from bottui.api.errors import ValidationError
from bottui.api.requests import dimension_name, path_id, threshold_literal
from bottui.ops.durations import parse_duration
from bottui.plaintext import clean
from bottui.store.config.config_model import key_lines
from bottui.store.files import Locations
from bottui.store.store_errors import StoreError
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
T = TypeVar("T")


class PlaybookFileError(StoreError):
    """A playbook file that cannot be used: its path, the line when known, and why (exit 2)."""

    def __init__(self, path: Path, reason: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = clean(reason)
        where = f"{clean(str(path))}:{line}" if line is not None else clean(str(path))
        super().__init__(f"Playbook {where}: {self.reason}", "nothing was sent")


class PlaybookFile(msgspec.Struct, frozen=True):
    """One playbook file as read: its name, path, the parsed document and key lines."""

    name: str
    path: Path
    data: dict[str, Any]
    lines: dict[KeyPath, int] = msgspec.field(default_factory=dict)

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


# What a playbook file may say: :class:`PlaybookDoc` and its steps, declared for msgspec.
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
# :class:`PlaybookFileError` naming the file and
# the line. Whether the inventory knows the ids is checked when the playbook
# is planned (:mod:`bottui.ops.playbooks.playbook_plan`), not here: that needs a
# profile.


#: Steps in one playbook: a mitigation, not a bulk run.
MAX_STEPS: Final = 50

#: A description is one line a list shows.
MAX_DESCRIPTION: Final = 200


ACTIONS: Final = {"enable": True, "disable": False}


class PlaybookDoc(msgspec.Struct, forbid_unknown_fields=True):
    """A playbook file's top level, as msgspec reads it (an unknown key is refused)."""

    #: ``[[steps]]`` tables, each read as a :class:`LimiterDoc` or a :class:`ThresholdsDoc`.
    steps: list[dict[str, Any]]
    #: One line a list shows (at most :data:`MAX_DESCRIPTION` characters).
    description: str | None = None
    #: The default of ``--for`` (``90s``, ``30m``, ``2h``, ``1d``, ``1h30m``; at most 7d).
    duration: str | None = None
    #: Account id; else ``--account`` or the profile's.
    account: str | None = None
    #: Project id; else ``--project`` or the profile's.
    project: str | None = None


class LimiterDoc(msgspec.Struct, forbid_unknown_fields=True):
    """A step that switches a rate limiter: ``limiter = "rl-login"``, ``action = "enable"``."""

    limiter: str
    action: str


class ThresholdsDoc(msgspec.Struct, forbid_unknown_fields=True):
    """A step that gives a dimension new thresholds (a number, or a string holding the literal)."""

    dimension: str
    block: int | float | str
    challenge: int | float | str
    name: str | None = None


#: The words for a key of the wrong type (``{n}``: the step's number); else "KEY must be a string".
_WRONG: Final = {
    "steps": "steps must be [[steps]] tables",
    "action": 'step {n}: action must be "enable" or "disable"',
    "block": "step {n}: block must be a number",
    "challenge": "step {n}: challenge must be a number",
}
#: The words for a missing key; else "step N: KEY is missing".
_MISSING: Final = {
    "steps": "has no steps: add [[steps]] tables",
    "action": "step {n}: action is missing (enable or disable)",
}
_UNKNOWN_KEY: Final = re.compile(r"Object contains unknown field `([^`]*)`")
_MISSING_KEY: Final = re.compile(r"Object missing required field `([^`]*)`")
_WRONG_TYPE: Final = re.compile(r"Expected `[^`]*`, got `[^`]*` - at `\$\.(\w+)")


class LimiterStep(msgspec.Struct, frozen=True):
    """Switch a rate limiter on (``is_active``) or off."""

    number: int
    limiter_id: str
    is_active: bool
    line: int | None

    @property
    def target_text(self) -> str:
        """``limiter rl-login`` (not cleaned)."""
        return f"limiter {self.limiter_id}"


class ThresholdsStep(msgspec.Struct, frozen=True):
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


class Playbook(msgspec.Struct, frozen=True):
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
    doc = _read_as(file, PlaybookDoc, file.data, ())
    description = doc.description
    if description is not None and (len(description) > MAX_DESCRIPTION or "\n" in description):
        raise file.error(f"description is one line of at most {MAX_DESCRIPTION}", "description")
    duration = _duration(file, doc.duration) if doc.duration is not None else None
    account = None if doc.account is None else _id(file, "account", doc.account, ())
    project = None if doc.project is None else _id(file, "project", doc.project, ())
    if not doc.steps:
        raise file.error("has no steps: add [[steps]] tables", "steps")
    if len(doc.steps) > MAX_STEPS:
        raise file.error(f"has more than {MAX_STEPS} steps", "steps")
    return Playbook(
        name=file.name,
        path=file.path,
        description=description,
        duration=duration,
        duration_text=doc.duration,
        account=account,
        project=project,
        steps=tuple(_step(file, index, raw) for index, raw in enumerate(doc.steps)),
        source=file,
    )


def _read_as(file: PlaybookFile, kind: type[T], table: object, where: KeyPath) -> T:
    """``table`` as ``kind``: msgspec checks every key and type; a refusal names the line."""
    try:
        return msgspec.convert(table, kind)
    except msgspec.ValidationError as exc:
        raise _refusal(file, kind, str(exc), where) from None


def _refusal(file: PlaybookFile, kind: type, text: str, where: KeyPath) -> PlaybookFileError:
    n = where[-1] + 1 if where and isinstance(where[-1], int) else 0
    if unknown := _UNKNOWN_KEY.match(text):
        key = unknown[1]
        known = ", ".join(sorted(kind.__struct_fields__))  # type: ignore[attr-defined]
        return file.error(f"unknown key {key!r} (known: {known})", *where, key)
    if missing := _MISSING_KEY.match(text):
        key = missing[1]
        return file.error(
            _MISSING.get(key, "step {n}: {key} is missing").format(n=n, key=key), *where
        )
    wrong = _WRONG_TYPE.match(text)
    key = wrong[1] if wrong else ""
    return file.error(_WRONG.get(key, "{key} must be a string").format(n=n, key=key), *where, key)


def _step(file: PlaybookFile, index: int, raw: dict[str, Any]) -> Step:
    where: KeyPath = ("steps", index)
    line = file.line(*where)
    number = index + 1
    if "limiter" in raw and "dimension" in raw:
        raise file.error(f"step {number} names both a limiter and a dimension", *where)
    if "limiter" in raw:
        limiter = _read_as(file, LimiterDoc, raw, where)
        if limiter.action not in ACTIONS:
            raise file.error(_WRONG["action"].format(n=number), *where, "action")
        limiter_id = _id(file, "limiter", limiter.limiter, where)
        return LimiterStep(number, limiter_id, ACTIONS[limiter.action], line)
    if "dimension" in raw:
        step = _read_as(file, ThresholdsDoc, raw, where)
        dimension_id = _id(file, "dimension", step.dimension, where)
        if step.name is not None:
            _validated(file, lambda: dimension_name(step.name), (*where, "name"))
        literals = [
            _validated(
                file,
                lambda v=value, f=key: threshold_literal(f"{f} threshold", v),
                (*where, key),
            )
            for key, value in (("block", step.block), ("challenge", step.challenge))
        ]
        return ThresholdsStep(number, dimension_id, step.name, literals[0], literals[1], line)
    raise file.error(f"step {number} names neither a limiter nor a dimension", *where)


def _id(file: PlaybookFile, key: str, value: str, where: KeyPath) -> str:
    """``value`` if it can be one path segment of the API (``api.requests.path_id``)."""
    return _validated(file, lambda: path_id(key, value), (*where, key))


def _validated(file: PlaybookFile, check: Any, where: KeyPath) -> str:
    try:
        result: str = check()
    except ValidationError as exc:
        raise file.error(f"{exc.field} {exc.message}", *where) from None
    return result


def _duration(file: PlaybookFile, text: str) -> timedelta:
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


class PlaybookProblem(msgspec.Struct, frozen=True):
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
