"""DataVersionWatch (#27 item 2): a write by any other connection is seen, idle is quiet."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bottui.store.file_watch import DataVersionWatch


def write(path: Path, value: int) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE IF NOT EXISTS t (v INTEGER)")
        conn.execute("INSERT INTO t VALUES (?)", (value,))
    conn.close()


async def test_a_write_is_seen_once_and_idle_looks_see_nothing(tmp_path: Path) -> None:
    journal, inventory = tmp_path / "journal.sqlite3", tmp_path / "inventory.sqlite3"
    write(journal, 1)
    watch = DataVersionWatch([journal, inventory])
    try:
        assert not await watch.changed()  # the first look takes the numbers in
        assert not await watch.changed()
        assert not inventory.exists()  # never created by looking
        write(journal, 2)
        assert await watch.changed()
        assert not await watch.changed()  # seen once
        write(inventory, 1)  # a file that appears counts as written
        assert await watch.changed()
        assert not await watch.changed()
        write(inventory, 2)
        write(journal, 3)
        assert await watch.changed()
    finally:
        await watch.close()
