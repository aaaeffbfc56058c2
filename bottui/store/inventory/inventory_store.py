"""The inventory as the ops and the TUI await it: the sync inventory, off the loop.

:class:`SqliteInventoryStore` runs :class:`~bottui.store.inventory.inventory_file.Inventory`
on the shared :class:`~bottui.store.executor.StoreExecutor`, its methods made
once from the sync ones (:func:`~bottui.store.executor.reads`,
:func:`~bottui.store.executor.writes`): edits on the file's write lane (one
thread: serialised in this process), reads on its read lane with a
connection of their own, so a read is answered while an edit waits for
another process's lock. Every method may raise
:class:`~bottui.store.store_errors.InventoryUnavailable`; edits of a missing
record raise :class:`~bottui.store.store_errors.NotInInventory`.

Lists page by key (account, project, id): the cursor names the last key
shown, so records added meanwhile never shift a page. A page is one indexed
range scan of the rows after that key (:meth:`Inventory.projects
<bottui.store.inventory.inventory_file.Inventory.projects>`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from bottui.store.executor import OffLoop, StoreExecutor, reads, writes
from bottui.store.files import Locations
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.inventory.inventory_records import (
    DEFAULT_INVENTORY_PAGE,
    AccountEntry,
    DimensionEntry,
    LimiterEntry,
    ProjectEntry,
    record_key,
)
from bottui.store.paging import Cursor, Page
from bottui.store.sqlite_helpers import DEFAULT_BUSY_TIMEOUT
from bottui.store.utc import Clock, system_clock

T = TypeVar("T", AccountEntry, ProjectEntry, LimiterEntry, DimensionEntry)


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


def _page(found: Sequence[T], size: int) -> Page[T]:
    """A page of ``size`` from the ``size + 1`` items read (the one more says: a next page)."""
    chosen = tuple(found[:size])
    more = len(found) > size
    return Page(chosen, Cursor(json.dumps(record_key(chosen[-1]))) if more else None)


class SqliteInventoryStore(OffLoop[Inventory]):
    """One profile's inventory on one SQLite file, every call awaited off the event loop.

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
        self._clock = clock
        super().__init__(
            Inventory(path, profile, clock=clock, busy_timeout=busy_timeout),
            # A connection of its own: the writer's is held while an edit waits.
            Inventory(path, profile, clock=clock, busy_timeout=busy_timeout),
            kind="inventory",
            path=path,
            executor=executor,
        )

    @classmethod
    def at(cls, locations: Locations, profile: str, **options: Any) -> SqliteInventoryStore:
        """The inventory of ``profile`` at ``locations.inventory_file``."""
        return cls(locations.inventory_file, profile, **options)

    @property
    def profile(self) -> str:
        """The profile this store sees."""
        return self._writer.profile

    def now(self) -> datetime:
        """The store's clock (UTC): what it stamps records with. No I/O."""
        return self._clock()

    # -- reads: lists page by key ----------------------------------------------------

    async def _listed(
        self,
        read: Callable[..., list[T]],
        limit: int,
        cursor: Cursor | None,
        *scope: str | None,
    ) -> Page[T]:
        """One page of a listing: the ``size + 1`` items after the cursor's key, read
        by one indexed range scan on the read lane."""
        after, size = _key_of(cursor), max(1, int(limit))
        found = await self._read(lambda: read(*scope, after=after, limit=size + 1))
        return _page(found, size)

    async def accounts(
        self, *, limit: int = DEFAULT_INVENTORY_PAGE, cursor: Cursor | None = None
    ) -> Page[AccountEntry]:
        """The profile's accounts, by id."""
        return await self._listed(self._reader.accounts, limit, cursor)

    async def projects(
        self,
        account: str | None = None,
        *,
        limit: int = DEFAULT_INVENTORY_PAGE,
        cursor: Cursor | None = None,
    ) -> Page[ProjectEntry]:
        """Projects of ``account`` (or of all), by account and id."""
        return await self._listed(self._reader.projects, limit, cursor, account)

    async def limiters(
        self,
        account: str,
        project: str,
        *,
        limit: int = DEFAULT_INVENTORY_PAGE,
        cursor: Cursor | None = None,
    ) -> Page[LimiterEntry]:
        """The rate limiters of a project, by id."""
        read = self._reader.limiters
        return await self._listed(read, limit, cursor, account, project)

    async def dimensions(
        self,
        account: str,
        project: str,
        *,
        limit: int = DEFAULT_INVENTORY_PAGE,
        cursor: Cursor | None = None,
    ) -> Page[DimensionEntry]:
        """The dimensions of a project, by id."""
        read = self._reader.dimensions
        return await self._listed(read, limit, cursor, account, project)

    # -- reads: one record, everything, a marker ---------------------------------------

    project = reads(Inventory.project)
    limiter = reads(Inventory.limiter)
    dimension = reads(Inventory.dimension)
    snapshot = reads(Inventory.snapshot)
    to_dict = reads(Inventory.to_dict)
    #: The read connection's ``PRAGMA data_version`` (it never writes, so every
    #: commit, this process's or another's, changes it); None: no file yet. Equal
    #: markers mean nothing changed in between, so a screen may keep its rows.
    version = reads(Inventory.version)
    #: Writing a TOML file only reads the inventory: the read lane.
    export_toml = reads(Inventory.export_toml)

    # -- edits: what the user enters, what the server said, what a file or the team taught

    add_account = writes(Inventory.add_account)
    remove_account = writes(Inventory.remove_account)
    add_project = writes(Inventory.add_project)
    rename_project = writes(Inventory.rename_project)
    remove_project = writes(Inventory.remove_project)
    add_limiter = writes(Inventory.add_limiter)
    rename_limiter = writes(Inventory.rename_limiter)
    set_limiter_state = writes(Inventory.set_limiter_state)
    remove_limiter = writes(Inventory.remove_limiter)
    add_dimension = writes(Inventory.add_dimension)
    remove_dimension = writes(Inventory.remove_dimension)
    learn_limiter_change = writes(Inventory.learn_limiter_change)
    learn_thresholds = writes(Inventory.learn_thresholds)
    import_toml = writes(Inventory.import_toml)
    import_snapshot = writes(Inventory.import_snapshot)
    apply_shared = writes(Inventory.apply_shared)
