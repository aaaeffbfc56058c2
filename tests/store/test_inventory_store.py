"""The async inventory store's contract, against the SQLite store over real files."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bottui.api.models import DimensionThresholds, LimiterChange, LimiterStateSource, Project
from bottui.store.executor import StoreExecutor
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.inventory.inventory_records import InventorySnapshot
from bottui.store.inventory.inventory_store import SqliteInventoryStore
from bottui.store.paging import Cursor
from bottui.store.store_errors import NotInInventory

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> SqliteInventoryStore:
    return SqliteInventoryStore(
        tmp_path / "inventory.sqlite3", "prod", clock=lambda: T0, executor=StoreExecutor()
    )


async def test_every_call_runs_off_the_event_loop(tmp_path: Path) -> None:
    """The methods made from the sync inventory's run on the store's lanes, never here."""
    threads: list[threading.Thread] = []

    def clock() -> datetime:
        threads.append(threading.current_thread())
        return T0

    store = SqliteInventoryStore(
        tmp_path / "i.sqlite3", "prod", clock=clock, executor=StoreExecutor()
    )
    await store.add_project("acc", "p1", "Shop")
    found = await store.project("acc", "p1")
    await store.close()
    assert found is not None and found.name == "Shop"
    assert threads and threading.current_thread() not in threads
    assert all(t.name.startswith("bottui-store-inventory-write:") for t in threads)


async def test_reading_a_missing_file_is_empty_and_creates_nothing(
    store: SqliteInventoryStore,
) -> None:
    page = await store.projects()
    assert page.items == () and page.next is None
    assert await store.limiter("acc", "p1", "rl-1") is None
    assert not store.path.exists()


async def test_learn_and_read(store: SqliteInventoryStore) -> None:
    body = {
        "id": "p1",
        "name": "Shop",
        "rateLimits": {"rateLimits": [{"id": "rl-2", "isActive": True}]},
    }
    change = LimiterChange(
        limiter_id="rl-1",
        is_active=False,
        source=LimiterStateSource("response"),
        project=Project.from_json(body),
    )
    await store.learn_limiter_change("acc", "p1", change)
    await store.learn_thresholds(
        "acc", "p1", "dim-1", DimensionThresholds(name="Bot score", block="0.8", challenge="0.5")
    )
    limiters = await store.limiters("acc", "p1")
    assert [(x.id, x.is_active) for x in limiters.items] == [("rl-1", False), ("rl-2", True)]
    limiter = await store.limiter("acc", "p1", "rl-1")
    assert limiter is not None and limiter.is_active is False
    dimension = await store.dimension("acc", "p1", "dim-1")
    assert dimension is not None and (dimension.block, dimension.challenge) == ("0.8", "0.5")
    assert [d.id for d in (await store.dimensions("acc", "p1")).items] == ["dim-1"]
    project = await store.project("acc", "p1")
    assert project is not None
    # The same file read by the synchronous inventory: one format.
    assert Inventory(store.path, "prod").limiters("acc", "p1") == list(limiters.items)


async def test_user_edits(store: SqliteInventoryStore, tmp_path: Path) -> None:
    await store.add_account("acc", "Main")
    await store.add_project("acc", "p1", "Shop")
    await store.rename_project("acc", "p1", "Store")
    await store.add_limiter("acc", "p1", "rl-1", "login")
    await store.rename_limiter("acc", "p1", "rl-1", "signin")
    await store.set_limiter_state("acc", "p1", "rl-1", True, source="user")
    await store.add_dimension("acc", "p1", "dim-1")
    assert [a.name for a in (await store.accounts()).items] == ["Main"]
    project = await store.project("acc", "p1")
    assert project is not None and project.name == "Store"
    snapshot = await store.snapshot()
    assert len(snapshot.limiters) == 1 and snapshot.limiters[0].name == "signin"
    assert (await store.to_dict())["profile"] == "prod"
    exported = tmp_path / "inv.toml"
    assert await store.export_toml(exported) == snapshot
    await store.remove_dimension("acc", "p1", "dim-1")
    await store.remove_limiter("acc", "p1", "rl-1")
    await store.remove_project("acc", "p1")
    with pytest.raises(NotInInventory):
        await store.remove_project("acc", "p1")
    report = await store.import_toml(exported)
    assert report.added > 0
    await store.remove_account("acc")
    assert (await store.snapshot()) == InventorySnapshot()
    assert (await store.import_snapshot(snapshot)).added > 0
    await store.close()
    assert len((await store.projects()).items) == 1  # a later call opens again


async def test_pages_cover_every_project_once_and_stay_stable(store: SqliteInventoryStore) -> None:
    for n in range(0, 20, 2):
        await store.add_project("acc", f"p{n:02d}")
    first = await store.projects("acc", limit=4)
    assert [p.project for p in first.items] == ["p00", "p02", "p04", "p06"]
    assert first.next is not None
    await store.add_project("acc", "p01")  # before the cursor: not shown again
    await store.add_project("acc", "p07")  # after it: shown in its place
    seen = list(first.items)
    cursor: Cursor | None = first.next
    while cursor is not None:
        page = await store.projects("acc", limit=4, cursor=cursor)
        seen += page.items
        cursor = page.next
    names = [p.project for p in seen]
    assert names == sorted(set(names))  # no repeats, in order
    assert "p01" not in names and "p07" in names and names[-1] == "p18"


async def test_a_foreign_cursor_is_refused(store: SqliteInventoryStore) -> None:
    with pytest.raises(ValueError):
        await store.projects(cursor=Cursor("page=2"))


# Takes the inventory's write lock, says so, holds it until stdin closes.
HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
conn.execute("COMMIT")
"""


async def test_reads_answer_while_an_edit_waits_for_another_process(
    tmp_path: Path,
) -> None:
    store = SqliteInventoryStore(
        tmp_path / "inventory.sqlite3", "prod", busy_timeout=60, executor=StoreExecutor()
    )
    await store.add_project("acc", "p1")
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        edit = asyncio.create_task(store.add_project("acc", "p2"))
        await asyncio.sleep(0.3)
        assert not edit.done()
        # Not queued behind the edit: the lock is held until the test releases it, so a
        # read queued behind the edit would trip this hang guard.
        page = await asyncio.wait_for(store.projects(), 120)
        assert [p.project for p in page.items] == ["p1"]
        assert not edit.done()
        assert proc.stdin is not None
        proc.stdin.close()
        await asyncio.wait_for(edit, 60)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=120)
    assert [p.project for p in (await store.projects()).items] == ["p1", "p2"]


async def test_the_version_changes_with_every_commit_and_only_then(
    store: SqliteInventoryStore, tmp_path: Path
) -> None:
    # #12: a screen shown again keeps its thousands of rows while the marker is the same.
    assert await store.version() is None  # no file yet: nothing to keep
    await store.add_project("acc", "p1", "One")
    first = await store.version()
    assert first is not None
    await store.projects()
    assert await store.version() == first  # reads change nothing
    await store.rename_project("acc", "p1", "Uno")  # this store's own write lane
    second = await store.version()
    assert second != first
    other = Inventory(store.path, "prod")  # another connection, as another process
    try:
        other.add_limiter("acc", "p1", "rl-1")
    finally:
        other.close()
    third = await store.version()
    assert third not in (first, second)
    await store.close()  # a reopened connection counts afresh: never equal to an old marker
    assert await store.version() not in (first, second, third)
