"""Whole lists from the paged inventory, for the faces that show them all.

The :class:`~bottui.store.inventory_store.InventoryStore` pages every list;
a screen or a command that shows a project's limiters (or dimensions, or
every project) reads the pages here, awaiting each, so nothing blocks an
event loop and no face repeats the cursor loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from bottui.ops.session import Session
from bottui.store.inventory_records import DimensionEntry, LimiterEntry, ProjectEntry
from bottui.store.paging import Cursor, Page

T = TypeVar("T")

#: Records per page when a face reads a whole list: each page is one range
#: scan and one trip to the store's thread, so big pages mean few trips (a
#: 5,000-row table is one) while memory stays bounded by the list itself.
WHOLE_LIST_PAGE = 5000


async def all_pages(read: Callable[[Cursor | None], Awaitable[Page[T]]]) -> list[T]:
    """Every item of a paged read, in the store's order."""
    items: list[T] = []
    cursor: Cursor | None = None
    while True:
        page = await read(cursor)
        items += page.items
        if page.next is None:
            return items
        cursor = page.next


async def read_all_limiters(session: Session, account: str, project: str) -> list[LimiterEntry]:
    """The rate limiters the inventory knows for a project."""
    store = session.inventory_store
    return await all_pages(
        lambda cursor: store.limiters(account, project, limit=WHOLE_LIST_PAGE, cursor=cursor)
    )


async def read_all_dimensions(session: Session, account: str, project: str) -> list[DimensionEntry]:
    """The dimensions the inventory knows for a project."""
    store = session.inventory_store
    return await all_pages(
        lambda cursor: store.dimensions(account, project, limit=WHOLE_LIST_PAGE, cursor=cursor)
    )


async def read_all_projects(session: Session, account: str | None = None) -> list[ProjectEntry]:
    """The projects the inventory knows (of ``account``, or of all)."""
    store = session.inventory_store
    return await all_pages(
        lambda cursor: store.projects(account, limit=WHOLE_LIST_PAGE, cursor=cursor)
    )


__all__ = ["all_pages", "read_all_dimensions", "read_all_limiters", "read_all_projects"]
