"""Durations an operator types: ``90s``, ``30m``, ``2h``, ``1d``, ``1h30m``.

:func:`parse_duration` reads one (a timed change's ``--for``, ``timed extend
ID 1h``, a playbook's default); :func:`duration_text` writes one back in the
same shape, largest unit first, so what is shown can be typed again.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Final

#: The longest a timed change may run before it reverts.
MAX_DURATION: Final = timedelta(days=7)
_UNITS: Final = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}
_PART: Final = re.compile(r"(\d{1,7})([dhms])")
_EXAMPLES: Final = "e.g. 90s, 30m, 2h, 1d or 1h30m"


def parse_duration(text: str, *, maximum: timedelta = MAX_DURATION) -> timedelta:
    """``text`` as a duration: whole numbers with units d, h, m, s, largest first.

    Raises:
        ValueError: not such a duration, zero, or longer than ``maximum``
            (the message names the value and says what is accepted).
    """
    raw = text.strip().lower()
    parts = _PART.findall(raw)
    order = [u for _, u in parts]
    well_formed = (
        bool(parts)
        and "".join(n + u for n, u in parts) == raw
        and len(set(order)) == len(order)
        and order == sorted(order, key=lambda u: -_UNITS[u])
    )
    if not well_formed:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise ValueError(f"{shown!r} is not a duration ({_EXAMPLES}; units d, h, m, s)")
    seconds = sum(int(n) * _UNITS[u] for n, u in parts)
    if seconds <= 0:
        raise ValueError(f"{raw!r} is no time at all: give a duration above zero ({_EXAMPLES})")
    duration = timedelta(seconds=seconds)
    if duration > maximum:
        raise ValueError(
            f"{raw!r} is longer than {duration_text(maximum)}: a timed change reverts "
            f"within {duration_text(maximum)} at most"
        )
    return duration


def duration_text(duration: timedelta) -> str:
    """``1h30m``, ``90s`` -> ``1m30s``, ``2d``; ``0s`` for nothing; a leading ``-`` when negative.

    Whole seconds (a fraction is dropped); what :func:`parse_duration` reads back.
    """
    seconds = int(duration.total_seconds())
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    if seconds == 0:
        return "0s"
    out = []
    for unit, size in _UNITS.items():
        count, seconds = divmod(seconds, size)
        if count:
            out.append(f"{count}{unit}")
    return sign + "".join(out)
