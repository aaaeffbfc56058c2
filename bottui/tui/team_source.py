"""Whose change taught a known state, in the words the screens show (#13, one inventory).

A state the team's shared inventory brought in has the source
``team:<operator>`` and the server's time as ``known_at``; the Limiters and
Thresholds screens show it as "from bob's change 03:12" (the operator
cleaned and cut short, the time in the local time zone), so a state nobody
here saw is not taken for one this operator learned.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from bottui.plaintext import clean
from bottui.store.inventory.records import taught_by

#: The longest operator name a cell shows (the rest is cut with "…"): the
#: column stays narrow whatever a teammate calls themselves.
NAME_MAX: Final = 16


def local_time(known_at: str) -> str:
    """``HH:MM`` of a stored UTC time, in the local time zone (odd text: as is, cleaned)."""
    try:
        moment = datetime.fromisoformat(known_at.replace("Z", "+00:00"))
    except ValueError:
        return clean(known_at)
    return moment.astimezone().strftime("%H:%M")


def teammate_name(operator: str) -> str:
    """A teammate's name fit for a cell: cleaned, at most :data:`NAME_MAX` characters."""
    name = clean(operator)
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


def taught_words(source: str, known_at: str) -> str | None:
    """``from bob's change 03:12`` for a teammate-taught source, else None."""
    teammate = taught_by(source)
    if teammate is None:
        return None
    return f"from {teammate_name(teammate)}'s change {local_time(known_at)}"


__all__ = ["NAME_MAX", "local_time", "taught_words", "teammate_name"]
