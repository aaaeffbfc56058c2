"""What the inventory holds: accounts, projects, rate limiters, dimensions.

Immutable named tuples, shared by the database and the merge of an import
(:mod:`bottui.store.inventory.inventory_file`), the TOML file
(:mod:`bottui.store.inventory.inventory_toml`) and the async store
(:mod:`bottui.store.inventory.inventory_store`). ``to_json`` gives the same keys the
TOML file uses, with ``null`` for what is not known.

``known_at``/``source`` of a rate limiter say when and how its active flag
was learned; while the flag is unknown they say when and how the limiter
itself became known. For a dimension they say the same of its thresholds.
Renaming changes neither.

Named tuples rather than frozen dataclasses: Python 3.11 takes ~0.5 ms to
define a frozen dataclass (it compiles six methods) against ~0.1 ms for a
named tuple, and these are defined before ``bottui demo``'s first frame.

One profile's view: every list pages (``limit`` and a
:class:`~bottui.store.paging.Cursor`, :data:`DEFAULT_INVENTORY_PAGE`), in
the order of its ids. The inventory has one implementation
(:class:`~bottui.store.inventory.inventory_store.SqliteInventoryStore`); the team's
shared inventory teaches it records (:data:`SharedRemoval`), it does not
stand in for it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, NamedTuple

if TYPE_CHECKING:
    from bottui.api.models import DimensionThresholds


class Source(StrEnum):
    """How the inventory learned something."""

    #: The service's answer listed it (a returned project's ``rateLimits``).
    RESPONSE = "response"
    #: A request that succeeded set it (the body did not say otherwise).
    REQUEST = "request"
    #: The user entered it.
    USER = "user"
    #: An inventory file brought it in.
    IMPORT = "import"
    #: A teammate's change taught it, through the team store's shared
    #: inventory; stored as ``team:<operator>`` (see :func:`team_source`).
    TEAM = "team"


#: What starts a teammate-taught source (``team:bob``).
TEAM_PREFIX = "team:"


def team_source(operator: str) -> str:
    """The source of what ``operator``'s change taught (``team:bob``), kept as given."""
    return TEAM_PREFIX + operator


def taught_by(source: str) -> str | None:
    """The teammate a source names (untrusted text: clean it to show), or None."""
    return source[len(TEAM_PREFIX) :] if source.startswith(TEAM_PREFIX) else None


class AccountEntry(NamedTuple):
    """An account of the profile."""

    account: str
    name: str | None
    updated_at: str
    source: str

    def to_json(self) -> dict[str, Any]:
        """The record as in the TOML file (``null`` for unknown)."""
        # The TOML keys are the field names.
        return self._asdict()


class ProjectEntry(NamedTuple):
    """A project: its id and display name."""

    account: str
    project: str
    name: str | None
    updated_at: str
    source: str

    def to_json(self) -> dict[str, Any]:
        """The record as in the TOML file (``null`` for unknown)."""
        # The TOML keys are the field names.
        return self._asdict()


class LimiterEntry(NamedTuple):
    """A rate limiter: id, name when learned, last known active flag."""

    account: str
    project: str
    id: str
    name: str | None
    is_active: bool | None
    known_at: str
    source: str

    def previous(self) -> dict[str, Any] | None:
        """The journal's ``previous`` for a change of this limiter, None if unknown."""
        return None if self.is_active is None else {"isActive": self.is_active}

    def to_json(self) -> dict[str, Any]:
        """The record as in the TOML file (``null`` for unknown)."""
        # The TOML keys are the field names.
        return self._asdict()


class DimensionEntry(NamedTuple):
    """A risk dimension: id, name, last known thresholds (JSON number literals)."""

    account: str
    project: str
    id: str
    name: str | None
    block: str | None
    challenge: str | None
    known_at: str
    source: str

    def thresholds(self) -> DimensionThresholds | None:
        """The last known thresholds as a request body, None if not all known."""
        if self.name is None or self.block is None or self.challenge is None:
            return None
        # Imported here: the API models are not needed to read the inventory
        # (the Rate limiters screen's first frame reads it).
        from bottui.api.models import DimensionThresholds

        return DimensionThresholds(name=self.name, block=self.block, challenge=self.challenge)

    def previous(self) -> dict[str, Any] | None:
        """The journal's ``previous`` for a change of this dimension, None if unknown."""
        known = self.thresholds()
        return known.record() if known is not None else None

    def to_json(self) -> dict[str, Any]:
        """The record as in the TOML file (``null`` for unknown)."""
        # The TOML keys are the field names.
        return self._asdict()


def record_key(record: AccountEntry | ProjectEntry | LimiterEntry | DimensionEntry) -> list[str]:
    """A record's key in listing order: account, project and id, as far as it has them."""
    if isinstance(record, AccountEntry):
        return [record.account]
    if isinstance(record, ProjectEntry):
        return [record.account, record.project]
    return [record.account, record.project, record.id]


class InventorySnapshot(NamedTuple):
    """Everything one profile's inventory holds (or a file brings), sorted by key."""

    accounts: tuple[AccountEntry, ...] = ()
    projects: tuple[ProjectEntry, ...] = ()
    limiters: tuple[LimiterEntry, ...] = ()
    dimensions: tuple[DimensionEntry, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"accounts": [...], "projects": [...], "limiters": [...], "dimensions": [...]}``."""
        return {table: [r.to_json() for r in getattr(self, table)] for table in self._fields}


class MergeReport(NamedTuple):
    """What an import changed: counts of records and one line per change."""

    added: int = 0
    changed: int = 0
    unchanged: int = 0
    lines: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document of ``inventory import``."""
        return {
            "added": self.added,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "lines": list(self.lines),
        }


#: A record the shared inventory removed: (kind, account, project, item), kind
#: ``project`` (item ``""``: with its limiters and dimensions), ``limiter`` or ``dimension``.
SharedRemoval = tuple[str, str, str, str]

#: How many records a page holds unless the caller says.
DEFAULT_INVENTORY_PAGE: Final = 500
