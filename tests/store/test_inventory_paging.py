"""Reading a long inventory list page by page reads each record once (#12).

Every page used to read the whole list and drop what came before the cursor:
20 pages of a 2,000-limiter project read 40,000 records, and the Projects and
Rate limiters screens (which read every page) slowed down quadratically. Now
a page is an index range scan after the cursor: its ``limit`` records, plus
one to know whether another page follows.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bottui.ops.inventory_reads import all_pages
from bottui.store.executor import StoreExecutor
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.inventory.inventory_records import (
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    ProjectEntry,
    Source,
)
from bottui.store.inventory.inventory_store import SqliteInventoryStore
from bottui.store.paging import Cursor

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = "2026-01-01T00:00:00.000000Z"
COUNT = 2000
PAGE = 100


@pytest.fixture
def store(tmp_path: Path) -> SqliteInventoryStore:
    path = tmp_path / "inventory.sqlite3"
    seed = Inventory(path, "prod", clock=lambda: T0)
    try:
        seed.import_snapshot(
            InventorySnapshot(
                projects=tuple(
                    ProjectEntry(acc, f"p{i:04d}", None, NOW, Source.IMPORT)
                    for acc in ("a", "b")
                    for i in range(COUNT // 2)
                ),
                limiters=tuple(
                    LimiterEntry(acc, pid, f"rl-{i:04d}", None, None, NOW, Source.IMPORT)
                    for acc, pid in (("a", "p0001"), ("a", "p0002"))
                    for i in range(COUNT)
                ),
                dimensions=tuple(
                    DimensionEntry("a", "p0001", f"d-{i:04d}", None, "1", "2", NOW, Source.IMPORT)
                    for i in range(COUNT)
                ),
            )
        )
    finally:
        seed.close()
    return SqliteInventoryStore(path, "prod", clock=lambda: T0, executor=StoreExecutor())


def count_reads(
    monkeypatch: pytest.MonkeyPatch, store: SqliteInventoryStore, name: str
) -> list[int]:
    """The number of records each call of the reader's ``name`` returned."""
    reader = store._reader
    method: Callable[..., list[Any]] = getattr(reader, name)
    sizes: list[int] = []

    def counted(*args: Any, **options: Any) -> list[Any]:
        found = method(*args, **options)
        sizes.append(len(found))
        return found

    monkeypatch.setattr(reader, name, counted)
    return sizes


async def test_limiter_pages_read_each_record_once(
    store: SqliteInventoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = count_reads(monkeypatch, store, "limiters")
    items = await all_pages(lambda c: store.limiters("a", "p0001", limit=PAGE, cursor=c))
    assert [e.id for e in items] == [f"rl-{i:04d}" for i in range(COUNT)]
    assert len(sizes) == COUNT // PAGE
    assert sum(sizes) <= COUNT + len(sizes)  # it was COUNT per page
    await store.close()


async def test_project_pages_across_accounts_read_each_record_once(
    store: SqliteInventoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = count_reads(monkeypatch, store, "projects")
    items = await all_pages(lambda c: store.projects(limit=PAGE, cursor=c))
    assert [(p.account, p.project) for p in items] == [
        (acc, f"p{i:04d}") for acc in ("a", "b") for i in range(COUNT // 2)
    ]
    assert sum(sizes) <= COUNT + len(sizes)
    one_account = await all_pages(lambda c: store.projects("b", limit=PAGE, cursor=c))
    assert [p.project for p in one_account] == [f"p{i:04d}" for i in range(COUNT // 2)]
    await store.close()


async def test_dimension_pages_read_each_record_once(
    store: SqliteInventoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = count_reads(monkeypatch, store, "dimensions")
    items = await all_pages(lambda c: store.dimensions("a", "p0001", limit=PAGE, cursor=c))
    assert [d.id for d in items] == [f"d-{i:04d}" for i in range(COUNT)]
    assert sum(sizes) <= COUNT + len(sizes)
    await store.close()


async def test_a_cursor_of_another_project_or_shape_still_pages_in_key_order(
    store: SqliteInventoryStore,
) -> None:
    # A cursor from project p0001's listing, used for p0002 (sorting after it): every record.
    first = await store.limiters("a", "p0001", limit=PAGE)
    assert first.next is not None
    other = await store.limiters("a", "p0002", limit=5, cursor=first.next)
    assert [e.id for e in other.items] == [f"rl-{i:04d}" for i in range(5)]
    with pytest.raises(ValueError):
        await store.limiters("a", "p0001", cursor=Cursor('["a", "p0001"]'))
    await store.close()
