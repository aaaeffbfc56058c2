"""What a playbook file may say, checked key by key: :class:`Playbook` and its steps.

The schema (docs/playbooks.md)::

    description = "..."        # optional, one line
    duration = "2h"            # optional default of --for (90s, 30m, 2h, 1d, 1h30m; <= 7d)
    account = "acme"           # optional; else --account or the profile's
    project = "shop-prod"      # optional; else --project or the profile's

    [[steps]]                  # 1 to MAX_STEPS, run in this order
    limiter = "rl-login"
    action = "enable"          # or "disable"

    [[steps]]
    dimension = "bot-score"
    block = 0.9                # a number, or a string holding the exact literal
    challenge = 0.6
    name = "Bot score"         # optional; else the name the inventory knows

Anything else (an unknown key, a wrong type, an id that cannot be one path
segment, a bad literal or duration) is refused as a
:class:`~bottui.store.playbook_files.PlaybookFileError` naming the file and
the line. Whether the inventory knows the ids is checked when the playbook
is planned (:mod:`bottui.ops.playbooks.planning`), not here: that needs a
profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

from bottui.api import requests as validation
from bottui.api.errors import ValidationError
from bottui.store.playbook_files import PlaybookFile

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


__all__ = [
    "MAX_STEPS",
    "LimiterStep",
    "Playbook",
    "Step",
    "ThresholdsStep",
    "playbook",
    "step_json",
]
