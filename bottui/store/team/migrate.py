"""``bottui store migrate`` and the version check every connection makes.

Migrating takes a transaction-scoped advisory lock first
(``pg_advisory_xact_lock``), so two operators running it at once take turns:
the second finds the work done and applies nothing. Every pending step and
its version row commit together, or none does. A database migrated by a
newer bottui is never written: :func:`require_current` refuses with
:class:`~bottui.store.team.errors.SchemaTooNew`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from bottui.store.team.errors import SchemaMissing, SchemaTooNew
from bottui.store.team.schema import MIGRATIONS, SCHEMA_VERSION, VERSIONS_TABLE

if TYPE_CHECKING:
    from psycopg import AsyncConnection

#: The advisory lock key of migrations ("bottui" in ASCII).
MIGRATION_LOCK: Final = 0x626F74747569


@dataclass(frozen=True)
class Migrated:
    """What one ``migrate`` did: the version before, after, and the steps applied."""

    before: int
    after: int
    applied: tuple[int, ...]


async def schema_version(conn: AsyncConnection[Any]) -> int:
    """The database's schema version; 0 when bottui's schema is not there."""
    cur = await conn.execute("SELECT to_regclass('bottui.schema_versions') IS NOT NULL")
    row = await cur.fetchone()
    if row is None or not row[0]:
        return 0
    cur = await conn.execute("SELECT coalesce(max(version), 0) FROM bottui.schema_versions")
    row = await cur.fetchone()
    return int(row[0]) if row is not None else 0


def too_new(version: int) -> SchemaTooNew:
    """The refusal of a schema newer than this bottui's."""
    return SchemaTooNew(
        f"The team store's schema (version {version}) is newer than this bottui's"
        f" ({SCHEMA_VERSION}): nothing is written",
        "Another operator upgraded bottui and migrated the shared database. Upgrade"
        " bottui (pip install -U 'bottui[team]') before using this store.",
    )


def check_version(version: int) -> None:
    """Refuse a schema this bottui does not write (missing, older or newer)."""
    if version > SCHEMA_VERSION:
        raise too_new(version)
    if version < SCHEMA_VERSION:
        state = "has no bottui schema" if version == 0 else f"is at schema version {version}"
        raise SchemaMissing(
            f"The team store {state} (this bottui needs {SCHEMA_VERSION})",
            "Run `bottui store migrate` as a role that owns the bottui schema (see the"
            " docs: docs/team.md).",
        )


async def require_current(conn: AsyncConnection[Any]) -> None:
    """Refuse unless the database's schema is exactly this bottui's."""
    check_version(await schema_version(conn))


async def migrate(conn: AsyncConnection[Any]) -> Migrated:
    """Apply every pending step, under the advisory lock; idempotent."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await conn.execute("CREATE SCHEMA IF NOT EXISTS bottui")
        await conn.execute(VERSIONS_TABLE)
        cur = await conn.execute("SELECT coalesce(max(version), 0) FROM bottui.schema_versions")
        row = await cur.fetchone()
        before = int(row[0]) if row is not None else 0
        if before > SCHEMA_VERSION:
            raise too_new(before)
        applied: list[int] = []
        for version in sorted(MIGRATIONS):
            if version <= before:
                continue
            for statement in MIGRATIONS[version]:
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO bottui.schema_versions (version) VALUES (%s)", (version,)
            )
            applied.append(version)
    return Migrated(before=before, after=max([before, *applied]), applied=tuple(applied))


__all__ = [
    "MIGRATION_LOCK",
    "Migrated",
    "check_version",
    "migrate",
    "require_current",
    "schema_version",
    "too_new",
]
