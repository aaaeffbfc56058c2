"""A locked, read-only, damaged or foreign database: one clear error, file untouched.

Both stores (the journal and the inventory) are built on the same opener, so
each case runs against both.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bottui.store.inventory.inventory_file import Inventory
from bottui.store.journal.journal_file import Journal
from bottui.store.store_errors import (
    DatabaseUnavailable,
    InventoryUnavailable,
    JournalUnavailable,
    StoreError,
)


@dataclass
class Store:
    """One store under test: how to open it, write to it and read it."""

    name: str
    error: type[DatabaseUnavailable]
    open: Callable[[Path, float], Journal | Inventory]

    def write(self, store: Journal | Inventory, n: int = 0) -> None:
        if isinstance(store, Journal):
            entry_id = store.start(
                profile="prod",
                base_url="https://api.example.com",
                operation="limiter.set-active",
                account="acc",
                project="p1",
                target={"rate_limiter_id": f"rl-{n}", "pad": "x" * 300},
                request_body={"isActive": True},
            )
            store.finish(entry_id, outcome="ok")
        else:
            store.add_limiter("acc", "p1", f"rl-{n}", "x" * 300)

    def read(self, store: Journal | Inventory) -> int:
        if isinstance(store, Journal):
            return len(store.entries())
        return len(store.limiters("acc", "p1"))


STORES = [
    Store("journal", JournalUnavailable, lambda p, t: Journal(p, busy_timeout=t)),
    Store("inventory", InventoryUnavailable, lambda p, t: Inventory(p, "prod", busy_timeout=t)),
]


@pytest.fixture(params=STORES, ids=lambda s: s.name)
def kind(request: pytest.FixtureRequest) -> Store:
    store: Store = request.param
    return store


def filled(kind: Store, path: Path, records: int = 60) -> None:
    store = kind.open(path, 2.0)
    for n in range(records):
        kind.write(store, n)
    store.close()


def check_error(error: DatabaseUnavailable, kind: Store, path: Path, words: str) -> None:
    assert isinstance(error, kind.error) and isinstance(error, StoreError)
    assert words in error.title, error.title
    assert error.title.startswith(f"The {kind.name}")
    assert "\n" not in error.title and str(error) == error.title
    assert str(path) in error.details
    assert error.path == path
    # No chained sqlite3 traceback.
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__


def both_fail(kind: Store, path: Path, words: str) -> None:
    store = kind.open(path, 0.2)
    for attempt in (lambda: kind.write(store), lambda: kind.read(store)):
        with pytest.raises(kind.error) as caught:
            attempt()
        check_error(caught.value, kind, path, words)
    store.close()


# -- damaged and foreign files -----------------------------------------------------------


def test_garbage_bytes(kind: Store, tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    garbage = b"this is not a database\x00\xff" * 400
    path.write_bytes(garbage)
    both_fail(kind, path, "file is damaged")
    assert path.read_bytes() == garbage
    assert [p.name for p in tmp_path.iterdir()] == ["db.sqlite3"]


@pytest.mark.parametrize("damage", ["overwritten pages", "truncated"])
def test_damaged_database(kind: Store, tmp_path: Path, damage: str) -> None:
    path = tmp_path / "db.sqlite3"
    filled(kind, path)
    data = bytearray(path.read_bytes())
    assert len(data) > 6 * 4096
    if damage == "truncated":
        data = data[: len(data) // 2]
    else:
        data[2 * 4096 : 6 * 4096] = bytes(range(256)) * 64
    path.write_bytes(bytes(data))
    both_fail(kind, path, "file is damaged")
    assert path.read_bytes() == bytes(data)


def test_a_database_of_another_program(kind: Store, tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE cookies (name TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    both_fail(kind, path, "is not a bottui")
    assert path.read_bytes() == before


def test_a_database_from_a_newer_bottui(kind: Store, tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    filled(kind, path, 1)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    both_fail(kind, path, "newer bottui")


def test_the_other_stores_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    Inventory(path, "prod").add_project("acc", "p1")
    with pytest.raises(JournalUnavailable, match="not a bottui journal"):
        Journal(path).entries()


# -- locks ------------------------------------------------------------------------------------


def test_locked_past_the_busy_timeout_then_usable_again(kind: Store, tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    filled(kind, path, 1)
    store = kind.open(path, 0.3)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        began = time.monotonic()
        with pytest.raises(kind.error) as caught:
            kind.write(store, 99)
        assert time.monotonic() - began >= 0.25  # it waited its turn first
        check_error(caught.value, kind, path, "locked by another process")
    finally:
        other.execute("ROLLBACK")
        other.close()
    kind.write(store, 100)  # the same object recovers once the lock is gone
    assert kind.read(store) == 2
    store.close()


def test_a_short_lock_is_waited_out(kind: Store, tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    filled(kind, path, 1)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(0.3, lambda: other.execute("ROLLBACK"))
    release.start()
    store = kind.open(path, 5.0)
    kind.write(store, 1)
    release.join()
    other.close()
    assert kind.read(store) == 2


# -- read-only --------------------------------------------------------------------------------


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make ``path`` unwritable, even for root (chattr +i), or skip."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode:
        pytest.skip("running as root without chattr +i: cannot make a file read-only")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)


def test_read_only_file(kind: Store, tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    filled(kind, path, 3)
    before = path.read_bytes()
    with read_only(path):
        store = kind.open(path, 0.2)
        assert kind.read(store) == 3  # reading still works
        with pytest.raises(kind.error) as caught:
            kind.write(store, 50)
        check_error(caught.value, kind, path, "read-only")
        store.close()
    assert path.read_bytes() == before


def test_read_only_directory(kind: Store, tmp_path: Path) -> None:
    directory = tmp_path / "state"
    directory.mkdir()
    path = directory / "db.sqlite3"
    with read_only(directory):
        store = kind.open(path, 0.2)
        assert kind.read(store) == 0  # nothing there yet, and nothing created
        with pytest.raises(kind.error) as caught:
            kind.write(store)
        check_error(caught.value, kind, path, "cannot be created")
    assert list(directory.iterdir()) == []


def test_directory_that_is_a_file(kind: Store, tmp_path: Path) -> None:
    (tmp_path / "state").write_text("a file where a directory should be")
    path = tmp_path / "state" / "db.sqlite3"
    store = kind.open(path, 0.2)
    with pytest.raises(kind.error) as caught:
        kind.write(store)
    check_error(caught.value, kind, path, "cannot be created")
