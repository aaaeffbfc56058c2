"""The inventory's schema and statements: its tables, the SQL that reads and writes
them, and the checks of what goes into a row.

The inventory's tables: every row scoped by profile name.

``accounts`` ⊃ ``projects`` ⊃ ``limiters`` and ``dimensions``, linked by
foreign keys with ``ON DELETE CASCADE`` (removing a project removes its
limiters and dimensions). Ids are compared exactly (binary collation).
Thresholds are stored as the JSON number literals that were sent.

The inventory's SQL statements and the checks of what goes into a row.

Shared by the reads (:mod:`bottui.store.inventory.inventory_file`) and the writes
(:mod:`bottui.store.inventory.inventory_file`): column lists, upserts, and the checks that
keep tokens out and ids path-safe.
"""

from __future__ import annotations

from typing import Final

from bottui.api.errors import ValidationError
from bottui.api.requests import path_id
from bottui.api.tokens import Secret
from bottui.store.sqlite_helpers import Schema
from bottui.store.store_errors import InventoryUnavailable

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
    unavailable=InventoryUnavailable,
)

ACCOUNT_COLS: Final = "account, name, updated_at, source"
PROJECT_COLS: Final = "account, project, name, updated_at, source"
LIMITER_COLS: Final = "account, project, limiter_id, name, is_active, known_at, source"
DIMENSION_COLS: Final = "account, project, dimension_id, name, block, challenge, known_at, source"

ENSURE_ACCOUNT: Final = (
    "INSERT INTO accounts (profile, account, name, updated_at, source) "
    "VALUES (?, ?, NULL, ?, ?) ON CONFLICT DO NOTHING"
)
NAME_ACCOUNT: Final = (
    "INSERT INTO accounts (profile, account, name, updated_at, source) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (profile, account) DO UPDATE SET name = excluded.name, "
    "updated_at = excluded.updated_at, source = excluded.source "
    "WHERE accounts.name IS NOT excluded.name"
)
ENSURE_PROJECT: Final = (
    "INSERT INTO projects (profile, account, project, name, updated_at, source) "
    "VALUES (?, ?, ?, NULL, ?, ?) ON CONFLICT DO NOTHING"
)
NAME_PROJECT: Final = (
    "INSERT INTO projects (profile, account, project, name, updated_at, source) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (profile, account, project) DO UPDATE SET "
    "name = excluded.name, updated_at = excluded.updated_at, source = excluded.source "
    "WHERE projects.name IS NOT excluded.name"
)
LIMITER_SEEN: Final = (
    "INSERT INTO limiters (profile, account, project, limiter_id, name, is_active, known_at, "
    "source) VALUES (?, ?, ?, ?, ?, NULL, ?, ?) "
    "ON CONFLICT (profile, account, project, limiter_id) DO UPDATE SET name = excluded.name "
    "WHERE excluded.name IS NOT NULL AND limiters.name IS NOT excluded.name"
)
LIMITER_STATE: Final = (
    "INSERT INTO limiters (profile, account, project, limiter_id, name, is_active, known_at, "
    "source) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (profile, account, project, limiter_id) DO UPDATE SET "
    "name = coalesce(excluded.name, limiters.name), is_active = excluded.is_active, "
    "known_at = excluded.known_at, source = excluded.source"
)
DIMENSION_SEEN: Final = (
    "INSERT INTO dimensions (profile, account, project, dimension_id, name, block, challenge, "
    "known_at, source) VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?) "
    "ON CONFLICT (profile, account, project, dimension_id) DO UPDATE SET name = excluded.name "
    "WHERE excluded.name IS NOT NULL AND dimensions.name IS NOT excluded.name"
)
DIMENSION_THRESHOLDS: Final = (
    "INSERT INTO dimensions (profile, account, project, dimension_id, name, block, challenge, "
    "known_at, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (profile, account, project, dimension_id) DO UPDATE SET "
    "name = excluded.name, block = excluded.block, challenge = excluded.challenge, "
    "known_at = excluded.known_at, source = excluded.source"
)
# Full rows, as an import writes them.
PUT_ACCOUNT: Final = (
    "INSERT INTO accounts (profile, account, name, updated_at, source) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (profile, account) DO UPDATE SET name = excluded.name, "
    "updated_at = excluded.updated_at, source = excluded.source"
)
PUT_PROJECT: Final = (
    "INSERT INTO projects (profile, account, project, name, updated_at, source) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (profile, account, project) DO UPDATE SET "
    "name = excluded.name, updated_at = excluded.updated_at, source = excluded.source"
)
PUT_LIMITER: Final = LIMITER_STATE.replace(
    "coalesce(excluded.name, limiters.name)", "excluded.name"
)
PUT_DIMENSION: Final = DIMENSION_THRESHOLDS


def checked_id(field: str, value: object) -> str:
    """A user-given id, checked like a path segment (raises ValidationError)."""
    if isinstance(value, Secret):
        raise TypeError("a token must never be stored")
    if not isinstance(value, str):
        raise TypeError(f"{field} must be a string, not {type(value).__name__}")
    return path_id(field, value)


def checked_name(value: object) -> str | None:
    if isinstance(value, Secret):
        raise TypeError("a token must never be stored")
    if value is not None and not isinstance(value, str):
        raise TypeError(f"a name must be a string, not {type(value).__name__}")
    return value


def usable_id(value: str) -> bool:
    try:
        path_id("id", value)
    except ValidationError:
        return False
    return True
