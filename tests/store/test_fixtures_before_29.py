"""Files written by the version before #29 open, migrate in place and read back whole.

``tests/fixtures/v_before_29`` holds a journal and an inventory written by
3ecd789 (``make_fixtures.py`` beside them says how) and what that version
read back from them (``expected.json``). Copies are opened here with the
code of today, through the stores the app uses: every entry and every
record must come back as it was, the journal's bulk-run bookkeeping too,
and the files must take new writes after their migration.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bottui.store.executor import StoreExecutor
from bottui.store.inventory.inventory_store import SqliteInventoryStore
from bottui.store.journal.journal_file import MAX_PAGE
from bottui.store.journal.journal_records import EntryQuery, RunId
from bottui.store.journal.journal_schema import SCHEMA
from bottui.store.journal.journal_store import SqliteJournalStore

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "v_before_29"
EXPECTED: dict[str, Any] = json.loads((FIXTURES / "expected.json").read_text())


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for name in ("journal.sqlite3", "inventory.sqlite3"):
        shutil.copyfile(FIXTURES / name, tmp_path / name)
    return tmp_path


def _version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    conn.close()
    return version


async def test_the_journal_reads_back_every_entry_and_migrates_in_place(files: Path) -> None:
    path = files / "journal.sqlite3"
    written_by = _version(path)
    store = SqliteJournalStore(path, executor=StoreExecutor())
    try:
        page = await store.page(EntryQuery(), limit=MAX_PAGE)
        assert page.next is None
        assert [e.to_json() for e in page.entries] == EXPECTED["journal"]
        runs = {e.run_id for e in page.entries if e.run_id is not None}
        first = RunId(min(runs))
        assert await store.settled_prefix(first) == 20
        settled = await store.settled_items(first, ("withdrawn", "nothing-standing"))
        assert len(settled) == 22
        keys = [f"{i:032x}" for i in range(25)]
        states = await store.item_states(first, keys)
        assert sorted(k for k, s in states.items() if s.unfinished) == keys[-3:]
        # The migrated file takes new entries after the old ones.
        newest = max(e.id for e in page.entries)
        entry_id = await store.start(
            profile="prod",
            base_url="https://api.example.com",
            operation="limiter.set-active",
            account="acme",
            project="shop",
            target={"rate_limiter_id": "rl-login"},
            request_body={"isActive": True},
        )
        assert entry_id == newest + 1
        again = await store.page(EntryQuery(), limit=MAX_PAGE)
        assert [e.to_json() for e in again.entries[1:]] == EXPECTED["journal"]
    finally:
        await store.close()
    assert _version(path) == SCHEMA.version >= written_by


async def test_the_inventory_reads_back_every_record(files: Path) -> None:
    path = files / "inventory.sqlite3"
    for profile, records in EXPECTED["inventory"].items():
        store = SqliteInventoryStore(path, profile, executor=StoreExecutor())
        try:
            assert await store.to_dict() == records
            await store.add_limiter("acme", "shop", "rl-new")
            assert await store.limiter("acme", "shop", "rl-new") is not None
        finally:
            await store.close()
