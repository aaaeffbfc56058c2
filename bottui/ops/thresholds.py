"""A threshold update: the rules it is checked against, and the values it does not name.

The spec fixes no range or direction; each project has them in the profile
(``threshold_min``, ``threshold_max``, ``higher_is_riskier``, defaults 0 to 1,
higher is riskier). Two rules follow (:func:`check_rules`):

- each threshold lies within the project's range; outside it the TUI's
  field is invalid and the CLI refuses (exit 2) unless ``--force``;
- the challenge threshold can be reached before the block one; when it
  cannot, both faces warn (the TUI asks "set anyway?", the CLI says so on
  stderr) and send if told to.

Thresholds arrive as JSON number literals (already validated by
:func:`bottui.api.requests.threshold_literal`) and are compared as
``Decimal`` so ``0.1`` is exactly ``0.1``.

A change names only what changes (:func:`fill_thresholds`): the API replaces a
dimension's name, block and challenge together (one ``PUT``), so ``bottui thresholds
set`` once needed all three to change one number. Now what is not given is taken from
what the inventory knows of that dimension, and said (which values, known when and from
where); a value the inventory does not know is refused (exit 2), never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

import msgspec

from bottui.api.errors import RefusedError, ValidationError
from bottui.ops.session import Session
from bottui.plaintext import clean
from bottui.store.inventory.inventory_records import DimensionEntry
from bottui.store.store_errors import InventoryUnavailable

if TYPE_CHECKING:
    from bottui.api.models import DimensionThresholds
    from bottui.store.config.config_model import ProjectSettings

# -- the rules ---------------------------------------------------------------------------


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


def check_rules(
    thresholds: DimensionThresholds, settings: ProjectSettings, *, force: bool
) -> list[str]:
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


# -- filling in what is not given ------------------------------------------------------


class FilledThresholds(msgspec.Struct, frozen=True):
    """The three values to send, and which of them came from the inventory."""

    name: str
    block: str
    challenge: str
    #: ``("name", "challenge")``: the values taken from the inventory, in that order.
    taken: tuple[str, ...] = ()
    #: The inventory's record they came from (None when nothing was taken).
    entry: DimensionEntry | None = None

    def taken_words(self) -> str:
        """``taken from the inventory (known 2026-…, from a change): name 'Bot score', …``."""
        if not self.taken or self.entry is None:
            return ""
        values = {"name": repr(self.name), "block": self.block, "challenge": self.challenge}
        said = ", ".join(f"{key} {values[key]}" for key in self.taken)
        return (
            f"taken from the inventory (known at {self.entry.known_at}, "
            f"from {self.entry.source}): {said}"
        )


async def fill_thresholds(
    session: Session,
    account: str,
    project: str,
    dimension_id: str,
    *,
    name: str | None,
    block: str | None,
    challenge: str | None,
) -> FilledThresholds:
    """The values to send: those given, the others as the inventory knows them.

    Raises:
        ValidationError: nothing given, or a value not given that the
            inventory does not know (the option to give it is named).
    """
    if name is None and block is None and challenge is None:
        raise ValidationError("thresholds", "give what changes: --name, --block and/or --challenge")
    given = {"name": name, "block": block, "challenge": challenge}
    missing = [key for key, value in given.items() if value is None]
    if not missing:
        return FilledThresholds(name or "", block or "", challenge or "")
    entry: DimensionEntry | None = None
    try:
        entry = await session.inventory_store.dimension(account, project, dimension_id)
    except InventoryUnavailable as exc:
        session.warn(f"inventory unavailable: {exc.title}. {exc.details}")
    known = {
        "name": entry.name if entry is not None else None,
        "block": entry.block if entry is not None else None,
        "challenge": entry.challenge if entry is not None else None,
    }
    unknown = [key for key in missing if known[key] is None]
    if unknown:
        flags = ", ".join(f"--{key}" for key in unknown)
        raise ValidationError(
            unknown[0],
            f"give {flags}: the inventory does not know dimension {dimension_id}'s "
            f"{' or '.join(unknown)} in project {project} (the API sets all three at once)",
        )
    filled = {key: given[key] if given[key] is not None else known[key] for key in given}
    return FilledThresholds(
        filled["name"] or "",
        filled["block"] or "",
        filled["challenge"] or "",
        taken=tuple(missing),
        entry=entry,
    )
