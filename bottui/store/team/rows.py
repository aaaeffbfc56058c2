"""A shared journal row as a :class:`TeamEntry`, or why it cannot be one.

The row is untrusted (any role with INSERT wrote it): :func:`read_entry`
checks what the readers rely on (the JSON columns are JSON objects, the
times load and are :func:`~bottui.store.team.times.sane`) and gives an
:class:`~bottui.store.team.unreadable.Unreadable` instead of raising. An
entry whose *outcome* is unreadable is kept without it (the outcome is an
event of its own, maybe another writer's): a bad outcome never hides a good
entry.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any, Final

from bottui.store.team.records import TeamEntry
from bottui.store.team.times import sane
from bottui.store.team.unreadable import Unreadable

#: The columns of :data:`~bottui.store.team.query.SELECT`, in order.
NAMES: Final = (
    "id", "origin", "local_id", "db_role", "received_at", "started_at", "operator", "host",
    "profile", "reason", "base_url", "account", "project", "operation", "target",
    "request_body", "previous", "undo_of", "run_id", "item_key", "finished_at", "outcome",
    "status", "result", "error", "duration_ms", "outcome_db_role", "outcome_received_at",
)  # fmt: skip
_OUTCOME: Final = NAMES[NAMES.index("finished_at") :]


class NotJson(ValueError):
    """A stored JSON text that does not parse (or nests too deep to)."""


def load_json(value: str | None) -> Any:
    """A stored JSON text back as a value (``None`` stays ``None``); :class:`NotJson` if not one."""
    if value is None:
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        raise NotJson("not JSON") from None


def json_object(value: str | None, *, optional: bool = True) -> dict[str, Any] | None:
    """A stored JSON object (``None`` when ``optional``); :class:`NotJson` for anything else."""
    found = load_json(value)
    if found is None and optional:
        return None
    if not isinstance(found, dict):
        raise NotJson("not a JSON object")
    return found


def _outcome(values: dict[str, Any]) -> str | None:
    """Why the outcome half cannot be read (None: it can, or there is none)."""
    if values["outcome"] is None:
        return None
    try:
        for name in ("result", "error"):
            values[name] = json_object(values[name])
    except NotJson as exc:
        return f"its {name} is {exc}"
    if not sane(values["finished_at"]):
        return "its finish time is outside any sane range"
    duration = values["duration_ms"]
    if duration is not None and not math.isfinite(duration):
        return "its duration is not a number"
    return None


def read_entry(row: Sequence[Any]) -> TeamEntry | Unreadable:
    """The entry of a :data:`~bottui.store.team.query.SELECT` row, or why it is unreadable.

    Its unreadable outcome, if any, is dropped and said apart
    (:func:`outcome_skipped`).
    """
    values = dict(zip(NAMES, row, strict=True))
    event = f"{values['origin']}:{values['local_id']}"
    operator = str(values["operator"])
    try:
        values["target"] = json_object(values["target"], optional=False)
        values["request_body"] = json_object(values["request_body"])
        values["previous"] = json_object(values["previous"])
    except NotJson as exc:
        return Unreadable("journal_entries", event, operator, f"a JSON column is {exc}")
    if not sane(values["started_at"]) or not sane(values["received_at"]):
        return Unreadable(
            "journal_entries", event, operator, "its start time is outside any sane range"
        )
    if _outcome(values) is not None:
        for name in _OUTCOME:
            values[name] = None
    return TeamEntry(**values)


def outcome_skipped(row: Sequence[Any]) -> Unreadable | None:
    """The outcome of this row when it is unreadable (said apart; the entry stays)."""
    values = dict(zip(NAMES, row, strict=True))
    why = _outcome(values)
    if why is None:
        return None
    event = f"{values['origin']}:{values['local_id']}"
    return Unreadable("journal_outcomes", event, str(values["operator"]), why)


__all__ = ["NAMES", "NotJson", "json_object", "load_json", "outcome_skipped", "read_entry"]
