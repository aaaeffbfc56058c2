"""A thresholds change that names only what changes: the rest from the inventory.

The API replaces a dimension's name, block and challenge together (one
``PUT``), so ``bottui thresholds set`` once needed all three to change one
number. Now what is not given is taken from what the inventory knows of that
dimension, and said (which values, known when and from where); a value the
inventory does not know is refused (exit 2), never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from bottui.api.errors import ValidationError
from bottui.ops.session import Session
from bottui.store.errors import InventoryUnavailable
from bottui.store.inventory.records import DimensionEntry


@dataclass(frozen=True)
class FilledThresholds:
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


__all__ = ["FilledThresholds", "fill_thresholds"]
