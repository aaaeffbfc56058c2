"""A strictly read-only glance at the inventory's ids, for shell completion.

The inventory's own reader (:mod:`bottui.store.inventory.inventory_file`) opens the
file for writing: it switches it to WAL and migrates an old schema. A
completion runs at every Tab, in whatever state the user's files are, and
must change nothing, so this opens the file with SQLite's ``mode=ro`` and
runs one ``SELECT``. When no ``-wal`` file is beside the database (no
process has it open and everything is checkpointed), ``immutable=1`` too:
a read-only connection would otherwise create the ``-wal`` and ``-shm``
files and, unable to checkpoint, leave them behind.

Every failure (no file, not a bottui inventory, locked, damaged, another
schema) is an empty answer: a completion never says why it has nothing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final, Literal

from bottui.store.files import real_path

#: ``inventory_schema.APPLICATION_ID``, not imported: that module brings the
#: whole SQLite layer (~9 ms at every Tab). A test checks they agree.
APPLICATION_ID: Final = 0x62747549

Kind = Literal["accounts", "projects", "limiters", "dimensions"]

#: Table and id column of each kind.
_COLUMNS: Final[dict[str, tuple[str, str]]] = {
    "accounts": ("accounts", "account"),
    "projects": ("projects", "project"),
    "limiters": ("limiters", "limiter_id"),
    "dimensions": ("dimensions", "dimension_id"),
}

#: At most this many ids per answer: a Tab lists a screenful, not a table.
MAX_IDS: Final = 500


def _uri(path: Path) -> str:
    """A read-only URI for ``path``; immutable when no process holds a WAL open."""
    uri = real_path(path).as_uri() + "?mode=ro"
    wal = path.with_name(path.name + "-wal")
    return uri if wal.exists() else uri + "&immutable=1"


def peek_ids(
    path: Path,
    profile: str,
    kind: Kind,
    *,
    prefix: str = "",
    account: str | None = None,
    project: str | None = None,
) -> list[str]:
    """The ids of ``kind`` starting with ``prefix``, of ``profile`` (and account/project).

    ``account`` and ``project`` narrow the answer where the kind has them
    (a project's limiters); ``None`` leaves that column free. Sorted,
    distinct, at most :data:`MAX_IDS`; ``[]`` on any failure.
    """
    table, column = _COLUMNS[kind]
    where = ["profile = ?"]
    values: list[object] = [profile]
    if prefix:
        # substr compares exactly (binary), where LIKE would treat % and _ as wildcards.
        where.append(f"substr({column}, 1, ?) = ?")
        values += [len(prefix), prefix]
    if account is not None and kind != "accounts":
        where.append("account = ?")
        values.append(account)
    if project is not None and kind in ("limiters", "dimensions"):
        where.append("project = ?")
        values.append(project)
    query = (
        f"SELECT DISTINCT {column} FROM {table} WHERE {' AND '.join(where)} "
        f"ORDER BY {column} LIMIT {MAX_IDS}"
    )
    if not path.is_file():
        return []
    try:
        conn = sqlite3.connect(_uri(path), uri=True, timeout=0.2, isolation_level=None)
    except (sqlite3.Error, ValueError, OSError):
        return []
    try:
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            return []
        return [row[0] for row in conn.execute(query, values) if isinstance(row[0], str)]
    except sqlite3.Error:
        return []
    finally:
        conn.close()
