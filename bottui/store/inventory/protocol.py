"""What the inventory is to its callers: the async :class:`InventoryStore` protocol.

One profile's view of what bottui knows of accounts, projects, rate limiters
and dimensions. SQLite implements it today
(:mod:`bottui.store.inventory.async_facade`); a team server will implement the same
protocol, so nothing here names SQLite. Lists page (``limit`` and a
:class:`~bottui.store.paging.Cursor`), in the order of their ids.

Every method may raise :class:`~bottui.store.errors.InventoryUnavailable`;
edits of a missing record raise :class:`~bottui.store.errors.NotInInventory`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from bottui.store.inventory.records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    MergeReport,
    ProjectEntry,
)
from bottui.store.paging import Cursor, Page

#: A record the shared inventory removed: (kind, account, project, item), kind
#: ``project`` (item ``""``: with its limiters and dimensions), ``limiter`` or ``dimension``.
SharedRemoval = tuple[str, str, str, str]

if TYPE_CHECKING:
    from bottui.api.models import DimensionThresholds, LimiterChange

#: How many records a page holds unless the caller says.
DEFAULT_INVENTORY_PAGE: Final = 500


@runtime_checkable
class InventoryStore(Protocol):
    """One profile's inventory (see :mod:`bottui.store.inventory`)."""

    @property
    def profile(self) -> str:
        """The profile this store sees."""
        ...

    def now(self) -> datetime:
        """The store's clock (UTC): what it stamps records with. No I/O."""
        ...

    # -- reads ---------------------------------------------------------------------

    async def accounts(
        self, *, limit: int = DEFAULT_INVENTORY_PAGE, cursor: Cursor | None = None
    ) -> Page[AccountEntry]:
        """The profile's accounts, by id."""
        ...

    async def projects(
        self,
        account: str | None = None,
        *,
        limit: int = DEFAULT_INVENTORY_PAGE,
        cursor: Cursor | None = None,
    ) -> Page[ProjectEntry]:
        """Projects of ``account`` (or of all), by account and id."""
        ...

    async def project(self, account: str, project: str) -> ProjectEntry | None:
        """One project, if known."""
        ...

    async def limiters(
        self,
        account: str,
        project: str,
        *,
        limit: int = DEFAULT_INVENTORY_PAGE,
        cursor: Cursor | None = None,
    ) -> Page[LimiterEntry]:
        """The rate limiters of a project, by id."""
        ...

    async def limiter(self, account: str, project: str, limiter_id: str) -> LimiterEntry | None:
        """One rate limiter, if known (its ``previous()`` is the journal's ``previous``)."""
        ...

    async def dimensions(
        self,
        account: str,
        project: str,
        *,
        limit: int = DEFAULT_INVENTORY_PAGE,
        cursor: Cursor | None = None,
    ) -> Page[DimensionEntry]:
        """The dimensions of a project, by id."""
        ...

    async def dimension(
        self, account: str, project: str, dimension_id: str
    ) -> DimensionEntry | None:
        """One dimension, if known."""
        ...

    async def snapshot(self) -> InventorySnapshot:
        """Everything of the profile, read at once (export, ``inventory list``)."""
        ...

    async def version(self) -> Hashable | None:
        """A cheap marker of the inventory's state: it differs after any change.

        Equal markers mean nothing changed in between (by anyone), so a screen
        may keep the rows it shows; ``None`` means the store cannot tell (read
        again). Compare only markers of the same store object.
        """
        ...

    async def to_dict(self) -> dict[str, Any]:
        """``inventory list --json``: the profile and every record."""
        ...

    # -- what the user enters ------------------------------------------------------

    async def add_account(self, account: str, name: str | None = None) -> None:
        """Add (or name) an account."""
        ...

    async def remove_account(self, account: str) -> None:
        """Remove an account and everything under it."""
        ...

    async def add_project(self, account: str, project: str, name: str | None = None) -> None:
        """Add (or name) a project."""
        ...

    async def rename_project(self, account: str, project: str, name: str | None) -> None:
        """Name a known project (``None``: no name)."""
        ...

    async def remove_project(self, account: str, project: str) -> None:
        """Remove a project and its limiters and dimensions."""
        ...

    async def add_limiter(
        self, account: str, project: str, limiter_id: str, name: str | None = None
    ) -> None:
        """Add (or name) a rate limiter."""
        ...

    async def rename_limiter(
        self, account: str, project: str, limiter_id: str, name: str | None
    ) -> None:
        """Name a known rate limiter."""
        ...

    async def set_limiter_state(
        self, account: str, project: str, limiter_id: str, is_active: bool, *, source: str
    ) -> None:
        """Record a limiter's active flag."""
        ...

    async def remove_limiter(self, account: str, project: str, limiter_id: str) -> None:
        """Remove a rate limiter."""
        ...

    async def add_dimension(
        self, account: str, project: str, dimension_id: str, name: str | None = None
    ) -> None:
        """Add (or name) a dimension."""
        ...

    async def remove_dimension(self, account: str, project: str, dimension_id: str) -> None:
        """Remove a dimension."""
        ...

    # -- what the server said ------------------------------------------------------

    async def learn_limiter_change(self, account: str, project: str, change: LimiterChange) -> None:
        """Record what a limiter change's answer says."""
        ...

    async def learn_thresholds(
        self, account: str, project: str, dimension_id: str, thresholds: DimensionThresholds
    ) -> None:
        """Record a dimension's thresholds as set."""
        ...

    async def apply_shared(
        self, writes: InventorySnapshot, removals: Sequence[SharedRemoval]
    ) -> None:
        """Write what the team's shared inventory taught: whole records (their
        ``known_at``/``source`` as given, accounts only ensured) and removals."""
        ...

    # -- files ---------------------------------------------------------------------

    async def export_toml(self, path: Path, *, overwrite: bool = False) -> InventorySnapshot:
        """Write the inventory to a TOML file (``overwrite``: replace one); what it wrote."""
        ...

    async def import_toml(self, path: Path) -> MergeReport:
        """Merge a TOML file into the profile's inventory."""
        ...

    async def import_snapshot(self, incoming: InventorySnapshot) -> MergeReport:
        """Merge records into the profile's inventory."""
        ...

    async def close(self) -> None:
        """Release connections (a later call opens them again)."""
        ...


__all__ = ["DEFAULT_INVENTORY_PAGE", "InventoryStore", "SharedRemoval"]
