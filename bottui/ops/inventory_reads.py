"""Whole lists from the paged inventory, for the faces that show them all.

The :class:`~bottui.store.inventory.inventory_store.SqliteInventoryStore` pages every list;
a screen or a command that shows a project's limiters (or dimensions, or
every project) reads the pages here, awaiting each, so nothing blocks an
event loop and no face repeats the cursor loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from typing import TypeVar

from bottui.api.errors import BottuiError
from bottui.ops.session import Session
from bottui.store.inventory.inventory_records import DimensionEntry, LimiterEntry, ProjectEntry
from bottui.store.paging import Cursor, Page

T = TypeVar("T")

#: Records per page when a face reads a whole list: each page is one range
#: scan and one trip to the store's thread, so big pages mean few trips (a
#: 5,000-row table is one) while memory stays bounded by the list itself.
WHOLE_LIST_PAGE = 5000


#: Records of a list a screen shows before the rest: more than a screenful, and
#: one short range scan, so the first frame does not wait for thousands.
FIRST_PAGE = 100


async def all_pages(
    read: Callable[[Cursor | None], Awaitable[Page[T]]], start: Cursor | None = None
) -> list[T]:
    """Every item of a paged read (after ``start``), in the store's order."""
    items: list[T] = []
    cursor: Cursor | None = start
    while True:
        page = await read(cursor)
        items += page.items
        if page.next is None:
            return items
        cursor = page.next


async def read_all_limiters(
    session: Session, account: str, project: str, *, after: Cursor | None = None
) -> list[LimiterEntry]:
    """The rate limiters the inventory knows for a project (``after``: past that page)."""
    store = session.inventory_store
    return await all_pages(
        lambda cursor: store.limiters(account, project, limit=WHOLE_LIST_PAGE, cursor=cursor),
        after,
    )


async def first_limiters(session: Session, account: str, project: str) -> Page[LimiterEntry]:
    """The first :data:`FIRST_PAGE` rate limiters of a project (the rest: ``read_all_limiters``)."""
    return await session.inventory_store.limiters(account, project, limit=FIRST_PAGE)


async def first_projects(session: Session) -> Page[ProjectEntry]:
    """The first :data:`FIRST_PAGE` projects (the rest: ``read_all_projects``)."""
    return await session.inventory_store.projects(None, limit=FIRST_PAGE)


async def inventory_version(session: Session) -> Hashable | None:
    """The inventory's marker (see ``SqliteInventoryStore.version``): equal, nothing changed.

    With the store it is of: after a switch of profile, markers of two stores never match.
    """
    store = session.inventory_store
    marker = await store.version()
    return None if marker is None else (store, marker)


async def read_all_dimensions(session: Session, account: str, project: str) -> list[DimensionEntry]:
    """The dimensions the inventory knows for a project."""
    store = session.inventory_store
    return await all_pages(
        lambda cursor: store.dimensions(account, project, limit=WHOLE_LIST_PAGE, cursor=cursor)
    )


async def read_all_projects(
    session: Session, account: str | None = None, *, after: Cursor | None = None
) -> list[ProjectEntry]:
    """The projects the inventory knows (of ``account``, or of all; ``after``: past that page)."""
    store = session.inventory_store
    return await all_pages(
        lambda cursor: store.projects(account, limit=WHOLE_LIST_PAGE, cursor=cursor), after
    )


async def first_project(session: Session) -> tuple[str, str] | None:
    """The inventory's first project, if it can be read."""
    try:
        page = await session.inventory_store.projects(limit=1)
    except BottuiError:  # a damaged inventory: the Projects screen says so
        return None
    return (page.items[0].account, page.items[0].project) if page.items else None
