"""The exact de-duplication of a bulk input's ids, on disk: memory stays flat at any size.

A 10,000,000-id input cannot keep its ids (or even 16-byte digests of them,
~95 bytes each in a Python set) in memory. :class:`SeenIds` keeps every key
it was given, exactly (the keys themselves, never a digest or a Bloom
filter: two distinct ids are never taken for one), in a private temporary
SQLite database: SQLite creates it in the temporary directory
(``SQLITE_TMPDIR``/``TMPDIR``) and unlinks it at once, so nothing is left
behind even after a SIGKILL, and nothing else can open it. Its page cache is
capped (:data:`CACHE_KIB`); the rest of the table lives in the OS's file cache.

Keys arrive in batches (:meth:`SeenIds.first_seen`), each batch one JSON
array handed to one statement (``json_each``: a row per key at C speed; a
Python ``executemany`` costs several times as much per key). A bitmap in
memory (:data:`BITMAP_BYTES`, fixed; pages taken only as they are written)
answers "certainly never seen" for most new keys, so only keys whose bit is
already set are looked up on disk; every key is inserted, and the unique
primary key is what decides: the bitmap only ever saves a look, it never
calls a key seen. The calls are synchronous: the database is private to
this process (no lock to wait for) and a batch takes about a millisecond,
like parsing the lines it holds.
"""

from __future__ import annotations

import json
import mmap
import sqlite3
from collections.abc import Sequence
from typing import Final

#: Page cache of the temporary database, KiB.
CACHE_KIB: Final = 4096
#: The in-memory bitmap of key hashes (8 MiB = 2**26 bits: at 1,000,000 keys
#: 1.5% of new keys need a look on disk, at 10,000,000 about 14%).
BITMAP_BYTES: Final = 1 << 23


_KNOWN: Final = "SELECT key FROM seen WHERE key IN (SELECT value FROM json_each(?))"
_INSERT: Final = "INSERT INTO seen (key) SELECT value FROM json_each(?)"


class SeenIds:
    """The keys seen so far, exactly; see the module docstring. Close it when done."""

    def __init__(self, *, bitmap_bytes: int = BITMAP_BYTES) -> None:
        # "": a private temporary database on disk, deleted by SQLite itself.
        self._db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=OFF")  # nothing to roll back: it is scratch
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        self._db.execute("CREATE TABLE seen (key TEXT PRIMARY KEY) WITHOUT ROWID")
        # Anonymous memory: the OS hands out zero pages as they are first
        # written, so a small input costs a few pages, not the whole bitmap.
        self._bits = mmap.mmap(-1, bitmap_bytes)
        self._mask = bitmap_bytes * 8 - 1
        self.count = 0

    def __repr__(self) -> str:
        return f"SeenIds(count={self.count})"

    def first_seen(self, keys: Sequence[str]) -> list[bool]:
        """For each key, in order: True the first time it is given (here or earlier), else False.

        Every key is remembered. Keys are text without NUL (SQLite text).
        """
        bits = self._bits
        mask = self._mask
        fresh: list[bool] = []
        batch: dict[str, int] = {}  # key -> its first position in this batch
        maybe: list[str] = []  # keys whose bit was already set: the disk decides
        for position, key in enumerate(keys):
            if key in batch:  # repeated within this batch
                fresh.append(False)
                continue
            batch[key] = position
            bit = hash(key) & mask
            byte = bit >> 3
            flag = 1 << (bit & 7)
            if bits[byte] & flag:
                maybe.append(key)
            else:
                bits[byte] |= flag
            fresh.append(True)
        db = self._db
        if maybe:
            # One statement per batch: the keys travel as one JSON array.
            for (found,) in db.execute(_KNOWN, (json.dumps(maybe, ensure_ascii=False),)):
                fresh[batch[found]] = False
        new = [key for key, position in batch.items() if fresh[position]]
        if new:
            db.execute(_INSERT, (json.dumps(new, ensure_ascii=False),))
            self.count += len(new)
        return fresh

    def close(self) -> None:
        """Drop the database (SQLite deletes the file) and the bitmap."""
        self._db.close()
        if not self._bits.closed:
            self._bits.close()


__all__ = ["BITMAP_BYTES", "CACHE_KIB", "SeenIds"]
