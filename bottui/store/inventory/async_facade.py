"""The SQLite :class:`~bottui.store.inventory.protocol.InventoryStore`: the inventory, off the loop.

:class:`SqliteInventoryStore` wraps :class:`~bottui.store.inventory.sync.Inventory`
and awaits every call on the shared
:class:`~bottui.store.executor.StoreExecutor`: edits on the file's write lane
(one thread: serialised in this process), reads on its read lane with a
connection of their own, so a read is answered while an edit waits for
another process's lock.

Lists page by key (account, project, id): the cursor names the last key
shown, so records added meanwhile never shift a page. The page is cut from
the profile's rows after they are read; inventories hold hundreds of rows,
not millions, so one read is cheaper than a query per page.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from bottui.store.executor import StoreExecutor, shared_executor
from bottui.store.files import Locations, real_path
from bottui.store.inventory.protocol import DEFAULT_INVENTORY_PAGE, SharedRemoval
from bottui.store.inventory.records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    MergeReport,
    ProjectEntry,
    Source,
)
from bottui.store.inventory.sync import Inventory
from bottui.store.paging import Cursor, Page
from bottui.store.sqlite_helpers import DEFAULT_BUSY_TIMEOUT
from bottui.store.utc import Clock, system_clock

if TYPE_CHECKING:
    from bottui.api.models import DimensionThresholds, LimiterChange

T = TypeVar("T")
R = TypeVar("R")


def _key_of(cursor: Cursor | None) -> list[str] | None:
    if cursor is None:
        return None
    try:
        key = json.loads(cursor.token)
    except ValueError:
        key = None
    if not isinstance(key, list) or not all(isinstance(part, str) for part in key):
        raise ValueError("not a cursor of this inventory")
    return key


def page_of(
    items: Sequence[T], key: Callable[[T], list[str]], limit: int, cursor: Cursor | None
) -> Page[T]:
    """The page of ``items`` (sorted by ``key``) after ``cursor``, of at most ``limit``."""
    after = _key_of(cursor)
    rest = [item for item in items if after is None or key(item) > after]
    size = max(1, int(limit))
    chosen = tuple(rest[:size])
    more = len(rest) > size
    return Page(chosen, Cursor(json.dumps(key(chosen[-1]))) if more else None)


def _page(found: Sequence[T], key: Callable[[T], list[str]], size: int) -> Page[T]:
    """A page of ``size`` from the ``size + 1`` items read (the one more says: a next page)."""
    chosen = tuple(found[:size])
    more = len(found) > size
    return Page(chosen, Cursor(json.dumps(key(chosen[-1]))) if more else None)


def _account_key(entry: AccountEntry) -> list[str]:
    return [entry.account]


def _project_key(entry: ProjectEntry) -> list[str]:
    return [entry.account, entry.project]


def _record_key(entry: LimiterEntry | DimensionEntry) -> list[str]:
    return [entry.account, entry.project, entry.id]


class SqliteInventoryStore:
    """An :class:`~bottui.store.inventory.protocol.InventoryStore` on one SQLite file.

    Args:
        path: The inventory file (``Locations.inventory_file``).
        profile: The profile whose rows this store reads and writes.
        clock: Source of the current time (UTC).
        busy_timeout: Seconds SQLite waits for another process's lock.
        executor: The executor to run on (the process's shared one unless given).
    """

    def __init__(
        self,
        path: Path,
        profile: str,
        *,
        clock: Clock = system_clock,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        executor: StoreExecutor | None = None,
    ) -> None:
        self._path = Path(path)
        self._clock = clock
        self._executor = executor or shared_executor()
        self._writer = Inventory(self._path, profile, clock=clock, busy_timeout=busy_timeout)
        # A connection of its own: the writer's is held while an edit waits.
        self._reader = Inventory(self._path, profile, clock=clock, busy_timeout=busy_timeout)
        key = str(real_path(self._path))
        self._write_lane = f"inventory-write:{key}"
        self._read_lane = f"inventory-read:{key}"

    @classmethod
    def at(cls, locations: Locations, profile: str, **options: Any) -> SqliteInventoryStore:
        """The inventory of ``profile`` at ``locations.inventory_file``."""
        return cls(locations.inventory_file, profile, **options)

    @property
    def path(self) -> Path:
        """The inventory file."""
        return self._path

    @property
    def profile(self) -> str:
        """The profile this store sees."""
        return self._writer.profile

    def now(self) -> datetime:
        """The store's clock (UTC)."""
        return self._clock()

    async def _write(self, fn: Callable[[], R]) -> R:
        return await self._executor.call(fn, lane=self._write_lane)

    async def _read(self, fn: Callable[[], R]) -> R:
        return await self._executor.call(fn, lane=self._read_lane)

    # -- reads ---------------------------------------------------------------------

    async def accounts(
        self, *, limit: int = DEFAULT_INVENTORY_PAGE, cursor: Cursor | None = None
    ) -> Page[AccountEntry]:
        """The profile's accounts, by id."""
        found = await self._read(self._reader.accounts)
        return page_of(found, _account_key, limit, cursor)

    async def projects(
        self,
        account: str | None = None,
        *,
        limit: int = DEFAULT_INVENTORY_PAGE,
        cursor: Cursor | None = None,
    ) -> Page[ProjectEntry]:
        """Projects of ``account`` (or of all), by account and id."""
        after, size = _key_of(cursor), max(1, int(limit))
        found = await self._read(
            lambda: self._reader.projects(account, after=after, limit=size + 1)
        )
        return _page(found, _project_key, size)

    async def project(self, account: str, project: str) -> ProjectEntry | None:
        """One project, if known."""
        return await self._read(lambda: self._reader.project(account, project))

    async def limiters(
        self,
        account: str,
        project: str,
        *,
        limit: int = DEFAULT_INVENTORY_PAGE,
        cursor: Cursor | None = None,
    ) -> Page[LimiterEntry]:
        """The rate limiters of a project, by id."""
        after, size = _key_of(cursor), max(1, int(limit))
        found = await self._read(
            lambda: self._reader.limiters(account, project, after=after, limit=size + 1)
        )
        return _page(found, _record_key, size)

    async def limiter(self, account: str, project: str, limiter_id: str) -> LimiterEntry | None:
        """One rate limiter, if known."""
        return await self._read(lambda: self._reader.limiter(account, project, limiter_id))

    async def dimensions(
        self,
        account: str,
        project: str,
        *,
        limit: int = DEFAULT_INVENTORY_PAGE,
        cursor: Cursor | None = None,
    ) -> Page[DimensionEntry]:
        """The dimensions of a project, by id."""
        after, size = _key_of(cursor), max(1, int(limit))
        found = await self._read(
            lambda: self._reader.dimensions(account, project, after=after, limit=size + 1)
        )
        return _page(found, _record_key, size)

    async def dimension(
        self, account: str, project: str, dimension_id: str
    ) -> DimensionEntry | None:
        """One dimension, if known."""
        return await self._read(lambda: self._reader.dimension(account, project, dimension_id))

    async def version(self) -> tuple[int, int] | None:
        """The read connection's ``PRAGMA data_version`` (it never writes, so every
        commit, this process's or another's, changes it); None: no file yet."""
        return await self._read(self._reader.version)

    async def snapshot(self) -> InventorySnapshot:
        """Everything of the profile, read in one transaction."""
        return await self._read(self._reader.snapshot)

    async def to_dict(self) -> dict[str, Any]:
        """``inventory list --json``: the profile and every record."""
        return await self._read(self._reader.to_dict)

    # -- what the user enters ------------------------------------------------------

    async def add_account(self, account: str, name: str | None = None) -> None:
        """Add (or name) an account."""
        await self._write(lambda: self._writer.add_account(account, name))

    async def remove_account(self, account: str) -> None:
        """Remove an account and everything under it."""
        await self._write(lambda: self._writer.remove_account(account))

    async def add_project(self, account: str, project: str, name: str | None = None) -> None:
        """Add (or name) a project."""
        await self._write(lambda: self._writer.add_project(account, project, name))

    async def rename_project(self, account: str, project: str, name: str | None) -> None:
        """Name a known project (``None``: no name)."""
        await self._write(lambda: self._writer.rename_project(account, project, name))

    async def remove_project(self, account: str, project: str) -> None:
        """Remove a project and its limiters and dimensions."""
        await self._write(lambda: self._writer.remove_project(account, project))

    async def add_limiter(
        self, account: str, project: str, limiter_id: str, name: str | None = None
    ) -> None:
        """Add (or name) a rate limiter."""
        await self._write(lambda: self._writer.add_limiter(account, project, limiter_id, name))

    async def rename_limiter(
        self, account: str, project: str, limiter_id: str, name: str | None
    ) -> None:
        """Name a known rate limiter."""
        await self._write(lambda: self._writer.rename_limiter(account, project, limiter_id, name))

    async def set_limiter_state(
        self,
        account: str,
        project: str,
        limiter_id: str,
        is_active: bool,
        *,
        source: str = Source.USER,
    ) -> None:
        """Record a limiter's active flag."""
        await self._write(
            lambda: self._writer.set_limiter_state(
                account, project, limiter_id, is_active, source=source
            )
        )

    async def remove_limiter(self, account: str, project: str, limiter_id: str) -> None:
        """Remove a rate limiter."""
        await self._write(lambda: self._writer.remove_limiter(account, project, limiter_id))

    async def add_dimension(
        self, account: str, project: str, dimension_id: str, name: str | None = None
    ) -> None:
        """Add (or name) a dimension."""
        await self._write(lambda: self._writer.add_dimension(account, project, dimension_id, name))

    async def remove_dimension(self, account: str, project: str, dimension_id: str) -> None:
        """Remove a dimension."""
        await self._write(lambda: self._writer.remove_dimension(account, project, dimension_id))

    # -- what the server said ------------------------------------------------------

    async def learn_limiter_change(self, account: str, project: str, change: LimiterChange) -> None:
        """Record what a limiter change's answer says."""
        await self._write(lambda: self._writer.learn_limiter_change(account, project, change))

    async def learn_thresholds(
        self, account: str, project: str, dimension_id: str, thresholds: DimensionThresholds
    ) -> None:
        """Record a dimension's thresholds as set."""
        await self._write(
            lambda: self._writer.learn_thresholds(account, project, dimension_id, thresholds)
        )

    # -- files ---------------------------------------------------------------------

    async def export_toml(self, path: Path, *, overwrite: bool = False) -> InventorySnapshot:
        """Write the profile's inventory to a TOML file (a read: the read lane)."""
        return await self._read(lambda: self._reader.export_toml(path, overwrite=overwrite))

    async def import_toml(self, path: Path) -> MergeReport:
        """Merge a TOML file into the profile's inventory."""
        return await self._write(lambda: self._writer.import_toml(path))

    async def import_snapshot(self, incoming: InventorySnapshot) -> MergeReport:
        """Merge records into the profile's inventory."""
        return await self._write(lambda: self._writer.import_snapshot(incoming))

    async def apply_shared(
        self, writes: InventorySnapshot, removals: Sequence[SharedRemoval]
    ) -> None:
        """Write what the team's shared inventory taught (one transaction)."""
        await self._write(lambda: self._writer.apply_shared(writes, removals))

    async def close(self) -> None:
        """Close both connections, each after the calls queued on its lane."""
        await self._write(self._writer.close)
        await self._read(self._reader.close)


__all__ = ["SqliteInventoryStore", "page_of"]
