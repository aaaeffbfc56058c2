"""The rules a threshold update is checked against, for both faces.

The spec fixes no range or direction; each project has them in the profile
(``threshold_min``, ``threshold_max``, ``higher_is_riskier``, defaults 0 to 1,
higher is riskier). Two rules follow:

- each threshold lies within the project's range; outside it the TUI's
  field is invalid and the CLI refuses (exit 2) unless ``--force``;
- the challenge threshold can be reached before the block one; when it
  cannot, both faces warn (the TUI asks "set anyway?", the CLI says so on
  stderr) and send if told to.

Thresholds arrive as JSON number literals (already validated by
:func:`bottui.api.requests.threshold_literal`) and are compared as
``Decimal`` so ``0.1`` is exactly ``0.1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from bottui.api.errors import RefusedError
from bottui.plaintext import clean

if TYPE_CHECKING:
    from bottui.api.models import DimensionThresholds
    from bottui.store.config.model import ProjectSettings


class OutOfRange(RefusedError):
    """A threshold outside the project's configured range, without ``--force`` (exit 2)."""


def _bound(value: float) -> Decimal:
    # repr is the shortest literal of the float: 0.1 is Decimal("0.1"), not its binary value.
    return Decimal(repr(value))


def number_words(value: float | Decimal) -> str:
    """A number without float noise or trailing zeros: 0.30 -> ``0.3``, 10 -> ``10``."""
    number = (value if isinstance(value, Decimal) else _bound(value)).normalize()
    text = format(number, "f")
    return "0" if text in ("-0", "") else text


def within(literal: str, minimum: float, maximum: float) -> bool:
    """True when the threshold ``literal`` lies from ``minimum`` to ``maximum`` (ends included)."""
    return _bound(minimum) <= Decimal(literal) <= _bound(maximum)


def in_range(literal: str, settings: ProjectSettings) -> bool:
    """True when the threshold ``literal`` lies within the project's range (ends included)."""
    return within(literal, settings.threshold_min, settings.threshold_max)


def range_words(settings: ProjectSettings) -> str:
    """``between LOW and HIGH``, the project's range."""
    low, high = number_words(settings.threshold_min), number_words(settings.threshold_max)
    return f"between {low} and {high}"


def never_reached(block: str, challenge: str, higher_is_riskier: bool) -> bool:
    """True when no score could ever trigger the challenge before the block.

    Higher is riskier: a score at or above the challenge threshold that is
    also at or above the block threshold is blocked, so ``challenge >= block``
    leaves no score for the challenge. Lower is riskier: the mirror image.
    """
    b, c = Decimal(block), Decimal(challenge)
    return c >= b if higher_is_riskier else c <= b


def warning_words(settings: ProjectSettings) -> str:
    """Why the challenge would never be reached."""
    sign = ">=" if settings.higher_is_riskier else "<="
    return (
        f"challenge {sign} block, so every score that reaches the challenge threshold "
        "is blocked: the challenge is never reached."
    )


def out_of_range(thresholds: DimensionThresholds, settings: ProjectSettings) -> Sequence[str]:
    """``block threshold 5`` for each threshold outside the range (empty when none)."""
    return [
        f"{label} threshold {clean(value)}"
        for label, value in (("block", thresholds.block), ("challenge", thresholds.challenge))
        if not in_range(value, settings)
    ]


def check(thresholds: DimensionThresholds, settings: ProjectSettings, *, force: bool) -> list[str]:
    """Apply both rules before sending; the warnings to show (stderr on the CLI).

    Raises:
        OutOfRange: a threshold is outside the project's range and ``force``
            is false. Nothing has been sent.
    """
    warnings: list[str] = []
    outside = out_of_range(thresholds, settings)
    if outside:
        what = " and ".join(outside)
        if not force:
            raise OutOfRange(
                "Threshold outside the project's range",
                f"{what}: the project's thresholds lie {range_words(settings)} (threshold_min "
                "and threshold_max of this project in config.toml). Nothing was sent; "
                "--force sends it anyway.",
            )
        warnings.append(f"{what} outside the project's range ({range_words(settings)}): --force")
    if never_reached(thresholds.block, thresholds.challenge, settings.higher_is_riskier):
        warnings.append(warning_words(settings))
    return warnings


__all__ = [
    "OutOfRange",
    "check",
    "in_range",
    "never_reached",
    "number_words",
    "out_of_range",
    "range_words",
    "warning_words",
    "within",
]
