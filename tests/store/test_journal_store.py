"""The async journal store's contract, against the SQLite store over real files."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bottui.store.executor import StoreExecutor
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import (
    EntryQuery,
    Outcome,
    StartRecord,
    entry_started,
    limiter_target,
)
from bottui.store.journal.journal_store import HOP, SqliteJournalStore
from bottui.store.paging import Cursor


class Ticking:
    """A clock that moves one second per reading."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def fields(n: int, **extra: Any) -> dict[str, Any]:
    return {
        "profile": "prod",
        "base_url": "https://api.example.com",
        "operation": "limiter.set-active",
        "account": "acc",
        "project": "p1",
        "target": limiter_target(f"rl-{n}"),
        "request_body": {"isActive": False},
        "previous": {"isActive": True},
        **extra,
    }


@pytest.fixture
def store(tmp_path: Path) -> SqliteJournalStore:
    return SqliteJournalStore(
        tmp_path / "journal.sqlite3", operator="op@host", clock=Ticking(), executor=StoreExecutor()
    )


async def test_every_call_runs_off_the_event_loop(tmp_path: Path) -> None:
    """The methods made from the sync journal's run on the store's lanes, never here."""
    threads: list[threading.Thread] = []
    ticking = Ticking()

    def clock() -> datetime:
        threads.append(threading.current_thread())
        return ticking()

    store = SqliteJournalStore(tmp_path / "journal.sqlite3", clock=clock, executor=StoreExecutor())
    entry_id = await store.start(**fields(1))
    await store.finish(entry_id, outcome="ok", status=200)
    page = await store.page(EntryQuery(project="p1"))
    await store.close()
    assert [e.id for e in page.entries] == [entry_id]
    assert threads and threading.current_thread() not in threads
    assert all(t.name.startswith("bottui-store-journal-write:") for t in threads)


async def test_start_finish_and_read_back(store: SqliteJournalStore) -> None:
    entry_id = await store.start(**fields(1))
    page = await store.page()
    assert [e.id for e in page.entries] == [entry_id]
    assert page.entries[0].unfinished
    await store.finish(entry_id, outcome=Outcome.OK, status=200, duration_ms=12.5)
    entry = await store.entry(entry_id)
    assert entry is not None
    assert entry.outcome == "ok" and entry.status == 200 and entry.operator == "op@host"
    started = entry_started(entry)
    assert started.tzinfo is not None and started.utcoffset() == timedelta(0)
    # The same file read by the synchronous journal: one format.
    assert Journal(store.path).entries()[0] == entry


async def test_reading_a_missing_file_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "none" / "journal.sqlite3"
    store = SqliteJournalStore(path, executor=StoreExecutor())
    page = await store.page()
    assert page.entries == () and page.next is None
    assert await store.entry(1) is None  # type: ignore[arg-type]
    assert not path.exists()


async def test_pages_cover_every_entry_once_newest_first(store: SqliteJournalStore) -> None:
    ids = [await store.start(**fields(n)) for n in range(25)]
    seen: list[int] = []
    cursor: Cursor | None = None
    pages = 0
    while True:
        page = await store.page(limit=10, cursor=cursor)
        seen += [e.id for e in page.entries]
        pages += 1
        if page.next is None:
            break
        cursor = page.next
    assert seen == sorted(ids, reverse=True)
    assert pages == 3


async def test_a_cursor_is_stable_while_entries_are_added(store: SqliteJournalStore) -> None:
    ids = [await store.start(**fields(n)) for n in range(10)]
    first = await store.page(limit=4)
    assert first.next is not None
    for n in range(10, 15):  # newer entries arrive between pages
        await store.start(**fields(n))
    second = await store.page(limit=4, cursor=first.next)
    assert [e.id for e in first.entries + second.entries] == sorted(ids, reverse=True)[:8]


async def test_a_foreign_cursor_is_refused(store: SqliteJournalStore) -> None:
    with pytest.raises(ValueError):
        await store.page(cursor=Cursor("offset=3"))


async def test_filters(store: SqliteJournalStore) -> None:
    a = await store.start(**fields(1))
    b = await store.start(**fields(2, profile="stage"))
    c = await store.start(**fields(3))
    await store.finish(a, outcome="ok")
    await store.finish(b, outcome="api-error")
    assert [e.id for e in (await store.page(EntryQuery(profile="stage"))).entries] == [b]
    assert [e.id for e in (await store.page(EntryQuery(unfinished=True))).entries] == [c]
    both = await store.page(EntryQuery(outcomes=frozenset({"ok", "api-error"})))
    assert [e.id for e in both.entries] == [b, a]
    entry_c = await store.entry(c)
    assert entry_c is not None
    since = await store.page(EntryQuery(since=entry_started(entry_c)))
    assert [e.id for e in since.entries] == [c]


async def test_last_undoable_and_undo_of(store: SqliteJournalStore) -> None:
    entry_id = await store.start(**fields(1))
    await store.finish(entry_id, outcome="ok", status=200)
    candidate = await store.last_undoable("prod", "limiter")
    assert candidate.possible and candidate.entry is not None
    assert candidate.entry.id == entry_id
    undo = await store.start(**fields(1, undo_of=entry_id, request_body={"isActive": True}))
    assert (await store.entry(undo)) is not None


async def test_bulk_run_batch_and_settled_items(store: SqliteJournalStore) -> None:
    run_id = await store.run(
        profile="prod", account="acc", project="p1", input_sha256="a" * 64, operation="grant.revoke"
    )
    again = await store.run(
        profile="prod", account="acc", project="p1", input_sha256="a" * 64, operation="grant.revoke"
    )
    assert again == run_id
    batch = await store.batch()
    records = [
        StartRecord(
            profile="prod",
            base_url="https://api.example.com",
            operation="grant.revoke",
            account="acc",
            project="p1",
            target={"n": n},
            request_body=None,
            run_id=run_id,
            item_key=f"k{n}",
        )
        for n in range(3)
    ]
    ids = await batch.start_many(records)
    await batch.finish(ids[0], outcome="withdrawn", status=200)
    await batch.finish(ids[1], outcome="api-error", status=400)
    await batch.close()
    assert await store.settled_items(run_id, ["withdrawn", "nothing-standing"]) == {"k0"}
    unfinished = await store.page(EntryQuery(run_id=run_id, unfinished=True))
    assert [e.item_key for e in unfinished.entries] == ["k2"]
    await store.close()
    # Closing releases connections; a later call opens them again.
    assert len((await store.page(EntryQuery(run_id=run_id))).entries) == 3


async def test_stores_at_locations(tmp_path: Path) -> None:
    from bottui.store.files import Locations
    from bottui.store.inventory.inventory_store import SqliteInventoryStore

    locations = Locations.under(tmp_path)
    journal = SqliteJournalStore.at(locations, executor=StoreExecutor())
    inventory = SqliteInventoryStore.at(locations, "prod", executor=StoreExecutor())
    assert journal.path == locations.journal_file
    assert inventory.path == locations.inventory_file


# -- #28: the page boundary (a mutation run found it unguarded) --------------------------


@pytest.mark.parametrize("entries, more", [(2, False), (3, False), (4, True)])
async def test_a_page_says_there_is_more_only_when_there_is(
    store: SqliteJournalStore, entries: int, more: bool
) -> None:
    for n in range(entries):
        await store.start(**fields(n))
    page = await store.page(limit=3)
    assert len(page.entries) == min(entries, 3)
    assert (page.next is not None) is more
    if more:
        rest = await store.page(limit=3, cursor=page.next)
        assert len(rest.entries) == entries - 3 and rest.next is None
    await store.close()


async def test_a_page_is_at_least_one_and_at_most_max_page(store: SqliteJournalStore) -> None:
    for n in range(2):
        await store.start(**fields(n))
    assert len((await store.page(limit=0)).entries) == 1
    assert len((await store.page(limit=-5)).entries) == 1
    await store.close()


async def test_a_batch_writes_its_outcomes_once_hop_of_them_are_queued(
    store: SqliteJournalStore,
) -> None:
    run_id = await store.run(
        profile="prod", account="acc", project="p1", input_sha256="b" * 64, operation="grant.revoke"
    )
    batch = await store.batch()
    records = [
        StartRecord(
            profile="prod",
            base_url="https://api.example.com",
            operation="grant.revoke",
            account="acc",
            project="p1",
            target={"n": n},
            request_body=None,
            run_id=run_id,
            item_key=f"k{n}",
        )
        for n in range(HOP)
    ]
    ids = await batch.start_many(records)
    for entry_id in ids[:-1]:
        await batch.finish(entry_id, outcome="withdrawn", status=200)
    # One short of a full buffer: still queued, nothing settled in the journal yet.
    assert await store.settled_items(run_id, ["withdrawn"]) == set()
    await batch.finish(ids[-1], outcome="withdrawn", status=200)
    # A full buffer is written at once, before the batch is flushed or closed.
    assert len(await store.settled_items(run_id, ["withdrawn"])) == HOP
    await batch.close()
    await store.close()
