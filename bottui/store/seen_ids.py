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
Python ``executemany`` costs several times as much per key): ``INSERT OR
IGNORE`` of the whole batch, tagged with its batch number. When SQLite
inserted every key (the usual case) that is all; otherwise one more
statement finds the keys an earlier batch had (tagged with another number).
The unique primary key alone decides. The calls are synchronous: the
database is private to this process (no lock to wait for) and a batch of
512 keys takes about a quarter of a millisecond, less than parsing the
lines it came from.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Final

#: Page cache of the temporary database, KiB.
CACHE_KIB: Final = 4096
_INSERT: Final = "INSERT OR IGNORE INTO seen (key, batch) SELECT value, ? FROM json_each(?)"
_EARLIER: Final = (
    "SELECT key FROM seen WHERE batch <> ? AND key IN (SELECT value FROM json_each(?))"
)

_KNOWN: Final = "SELECT key FROM seen WHERE key IN (SELECT value FROM json_each(?))"


class SeenIds:
    """The keys seen so far, exactly; see the module docstring. Close it when done."""

    def __init__(self) -> None:
        # "": a private temporary database on disk, deleted by SQLite itself.
        self._db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=OFF")  # nothing to roll back: it is scratch
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        self._db.execute(
            "CREATE TABLE seen (key TEXT PRIMARY KEY, batch INTEGER NOT NULL) WITHOUT ROWID"
        )
        self._batches = 0
        self.count = 0

    def __repr__(self) -> str:
        return f"SeenIds(count={self.count})"

    def first_seen(self, keys: Sequence[str]) -> list[bool]:
        """For each key, in order: True the first time it is given (here or earlier), else False.

        Every key is remembered. Keys are text without NUL (SQLite text).
        """
        unique = list(dict.fromkeys(keys))
        self._batches += 1
        batch = self._batches
        document = json.dumps(unique, ensure_ascii=False)
        inserted = self._db.execute(_INSERT, (batch, document)).rowcount
        self.count += inserted
        if inserted == len(keys):
            return [True] * len(keys)  # all new, none repeated: the usual batch
        earlier = set()
        if inserted < len(unique):
            earlier = {key for (key,) in self._db.execute(_EARLIER, (batch, document))}
        fresh: list[bool] = []
        given: set[str] = set()
        for key in keys:
            fresh.append(key not in earlier and key not in given)
            given.add(key)
        return fresh

    def known(self, keys: Sequence[str]) -> set[str]:
        """Those of ``keys`` given before (one statement for the whole batch)."""
        document = json.dumps(list(keys), ensure_ascii=False)
        return {key for (key,) in self._db.execute(_KNOWN, (document,))}

    def close(self) -> None:
        """Drop the database (SQLite deletes the file)."""
        self._db.close()
