"""The inventory's tables: every row scoped by profile name.

``accounts`` ⊃ ``projects`` ⊃ ``limiters`` and ``dimensions``, linked by
foreign keys with ``ON DELETE CASCADE`` (removing a project removes its
limiters and dimensions). Ids are compared exactly (binary collation).
Thresholds are stored as the JSON number literals that were sent.
"""

from __future__ import annotations

from typing import Final

from bottui.store.sqlite_util import Schema

#: "btuI": marks a SQLite file as a bottui inventory.
APPLICATION_ID: Final = 0x62747549
VERSION: Final = 1

SCHEMA: Final = Schema(
    name="inventory",
    application_id=APPLICATION_ID,
    version=VERSION,
    statements=(
        """
        CREATE TABLE IF NOT EXISTS accounts (
            profile TEXT NOT NULL,
            account TEXT NOT NULL,
            name TEXT,
            updated_at TEXT NOT NULL,
            source TEXT NOT NULL,
            PRIMARY KEY (profile, account)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS projects (
            profile TEXT NOT NULL,
            account TEXT NOT NULL,
            project TEXT NOT NULL,
            name TEXT,
            updated_at TEXT NOT NULL,
            source TEXT NOT NULL,
            PRIMARY KEY (profile, account, project),
            FOREIGN KEY (profile, account) REFERENCES accounts (profile, account)
                ON DELETE CASCADE
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS limiters (
            profile TEXT NOT NULL,
            account TEXT NOT NULL,
            project TEXT NOT NULL,
            limiter_id TEXT NOT NULL,
            name TEXT,
            is_active INTEGER CHECK (is_active IN (0, 1)),
            known_at TEXT NOT NULL,
            source TEXT NOT NULL,
            PRIMARY KEY (profile, account, project, limiter_id),
            FOREIGN KEY (profile, account, project)
                REFERENCES projects (profile, account, project) ON DELETE CASCADE
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS dimensions (
            profile TEXT NOT NULL,
            account TEXT NOT NULL,
            project TEXT NOT NULL,
            dimension_id TEXT NOT NULL,
            name TEXT,
            block TEXT,
            challenge TEXT,
            known_at TEXT NOT NULL,
            source TEXT NOT NULL,
            CHECK ((block IS NULL) = (challenge IS NULL)),
            PRIMARY KEY (profile, account, project, dimension_id),
            FOREIGN KEY (profile, account, project)
                REFERENCES projects (profile, account, project) ON DELETE CASCADE
        ) WITHOUT ROWID
        """,
    ),
)

__all__ = ["APPLICATION_ID", "SCHEMA", "VERSION"]
