"""Reading one profile's inventory: the base :class:`InventoryReader` of ``Inventory``.

Opens the file lazily (:class:`~bottui.store.sqlite_util.Database`, WAL,
``synchronous=NORMAL``) and answers every read in one transaction; reading
never creates the file. :class:`~bottui.store.inventory.Inventory` adds the
writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self, TypeVar

from bottui.store.db_errors import InventoryUnavailable
from bottui.store.inventory_records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    ProjectEntry,
)
from bottui.store.inventory_schema import SCHEMA
from bottui.store.inventory_sql import (
    ACCOUNT_COLS,
    DIMENSION_COLS,
    LIMITER_COLS,
    PROJECT_COLS,
    row_bool,
)
from bottui.store.paths import Locations
from bottui.store.sqlite_util import DEFAULT_BUSY_TIMEOUT, ClosesOnExit, Database
from bottui.store.utc import Clock, stamp, system_clock

_T = TypeVar("_T")

#: A record's key in listing order: ``[account, project]`` or ``[account, project, id]``.
Key = Sequence[str]


def _after(columns: Sequence[str], after: Key | None) -> tuple[str, tuple[str, ...]]:
    """The condition for the rows whose key sorts after ``after`` ("" for every row).

    A row-value comparison on the primary key's columns: one range scan of
    its index, where filtering every row in Python made paging quadratic.
    """
    if after is None:
        return "", ()
    if len(after) != len(columns):
        raise ValueError("not a cursor of this listing")
    marks = ", ".join("?" * len(columns))
    return f" AND ({', '.join(columns)}) > ({marks})", tuple(after)


def _after_in(
    account: str | None, project: str | None, column: str, after: Key | None
) -> tuple[str, tuple[str, ...]]:
    """:func:`_after` for a project's records: on the id alone when the cursor is in that project.

    SQLite then seeks in the primary key's index (profile, account, project, id);
    with the row value it would scan the project's records for every page.
    """
    if after is not None and len(after) == 3 and list(after[:2]) == [account, project]:
        return _after((column,), after[2:])
    return _after(("account", "project", column), after)


def _limit(limit: int | None) -> tuple[str, tuple[int, ...]]:
    return ("", ()) if limit is None else (" LIMIT ?", (max(0, int(limit)),))


class InventoryReader(ClosesOnExit):
    """One profile's view of the inventory file: opening it and reading it.

    Args:
        path: The inventory file (``Locations.inventory_file``).
        profile: The profile whose rows this object reads and writes.
        clock: Source of the current time (UTC).
        busy_timeout: Seconds to wait for another process's lock.
    """

    def __init__(
        self,
        path: Path,
        profile: str,
        *,
        clock: Clock = system_clock,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> None:
        if not isinstance(profile, str) or not profile:
            raise ValueError("a profile name is a non-empty string")
        self._path = Path(path)
        self._profile = profile
        self._clock = clock
        self._db = Database(
            self._path,
            SCHEMA,
            unavailable=InventoryUnavailable,
            synchronous="NORMAL",
            busy_timeout=busy_timeout,
        )

    @classmethod
    def open(cls, path: Path, profile: str, **options: Any) -> Self:
        """The inventory of ``profile`` in ``path`` (opened lazily)."""
        return cls(path, profile, **options)

    @classmethod
    def at(cls, locations: Locations, profile: str, **options: Any) -> Self:
        """The inventory of ``profile`` at ``locations.inventory_file``."""
        return cls(locations.inventory_file, profile, **options)

    @property
    def path(self) -> Path:
        """The inventory file."""
        return self._path

    @property
    def profile(self) -> str:
        """The profile this object sees."""
        return self._profile

    def now(self) -> str:
        """The current time as this inventory stamps its records."""
        return stamp(self._clock())

    # -- reading --------------------------------------------------------------------

    def _read(self, work: Callable[[sqlite3.Connection], _T], empty: _T) -> _T:
        if not self._path.exists():  # reading never creates the file
            return empty
        with self._db.read() as conn:
            return work(conn)

    def accounts(self) -> list[AccountEntry]:
        """The profile's accounts, by id."""
        return self._read(lambda conn: self._accounts(conn), [])

    def projects(
        self, account: str | None = None, *, after: Key | None = None, limit: int | None = None
    ) -> list[ProjectEntry]:
        """The projects of ``account`` (or of every account), by account and id.

        ``after``: only those whose ``[account, project]`` sorts after it; ``limit``:
        at most that many (a page is one indexed range scan, whatever the page).
        """
        return self._read(lambda conn: self._projects(conn, account, after, limit), [])

    def project(self, account: str, project: str) -> ProjectEntry | None:
        """One project, if the inventory knows it."""
        found = [p for p in self.projects(account) if p.project == project]
        return found[0] if found else None

    def limiters(
        self, account: str, project: str, *, after: Key | None = None, limit: int | None = None
    ) -> list[LimiterEntry]:
        """The rate limiters of a project, by id (``after`` ``[account, project, id]``)."""
        return self._read(
            lambda conn: self._limiters(conn, account, project, after=after, limit=limit), []
        )

    def limiter(self, account: str, project: str, limiter_id: str) -> LimiterEntry | None:
        """One rate limiter, if known: its ``previous()`` is the journal's ``previous``."""
        found: list[LimiterEntry] = self._read(
            lambda conn: self._limiters(conn, account, project, limiter_id), []
        )
        return found[0] if found else None

    def dimensions(
        self, account: str, project: str, *, after: Key | None = None, limit: int | None = None
    ) -> list[DimensionEntry]:
        """The dimensions of a project, by id (``after`` ``[account, project, id]``)."""
        return self._read(
            lambda conn: self._dimensions(conn, account, project, after=after, limit=limit), []
        )

    def dimension(self, account: str, project: str, dimension_id: str) -> DimensionEntry | None:
        """One dimension, if known: its ``previous()`` is the journal's ``previous``."""
        found: list[DimensionEntry] = self._read(
            lambda conn: self._dimensions(conn, account, project, dimension_id), []
        )
        return found[0] if found else None

    def snapshot(self) -> InventorySnapshot:
        """Everything the profile's inventory holds, read in one transaction."""

        return self._read(self._snapshot, InventorySnapshot())

    def _snapshot(self, conn: sqlite3.Connection) -> InventorySnapshot:
        return InventorySnapshot(
            accounts=tuple(self._accounts(conn)),
            projects=tuple(self._projects(conn, None, None, None)),
            limiters=tuple(self._limiters(conn, None, None)),
            dimensions=tuple(self._dimensions(conn, None, None)),
        )

    def to_dict(self) -> dict[str, Any]:
        """``inventory list --json``: the profile and every record (TOML's keys)."""
        return {"profile": self._profile, **self.snapshot().to_json()}

    def version(self) -> tuple[int, int] | None:
        """A marker that differs once another connection has committed a change (None: no file).

        ``PRAGMA data_version`` of this object's connection, with which
        connection it is (a reopened one counts afresh). Commits of this very
        connection do not change it: use it on a connection that only reads.
        """
        if not self._path.exists():
            return None
        with self._db.read() as conn:
            (data_version,) = conn.execute("PRAGMA data_version").fetchone()
        return (self._db.opened, int(data_version))

    # -- lifetime ------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (a later call opens it again)."""
        self._db.close()

    # -- internals ----------------------------------------------------------------------------

    def _accounts(self, conn: sqlite3.Connection) -> list[AccountEntry]:
        rows = conn.execute(
            f"SELECT {ACCOUNT_COLS} FROM accounts WHERE profile = ? ORDER BY account",
            (self._profile,),
        )
        return [AccountEntry(*row) for row in rows]

    def _projects(
        self,
        conn: sqlite3.Connection,
        account: str | None,
        after: Key | None,
        limit: int | None,
    ) -> list[ProjectEntry]:
        sql = f"SELECT {PROJECT_COLS} FROM projects WHERE profile = ?"
        params: tuple[str, ...] = (self._profile,)
        if account is not None:
            sql += " AND account = ?"
            params += (account,)
        since, since_params = _after(("account", "project"), after)
        bound, bound_params = _limit(limit)
        rows = conn.execute(
            sql + since + " ORDER BY account, project" + bound,
            params + since_params + bound_params,
        )
        return [ProjectEntry(*row) for row in rows]

    def _scope(
        self, account: str | None, project: str | None, key: str, value: str | None
    ) -> tuple[str, tuple[str, ...]]:
        where = "profile = ?"
        params: tuple[str, ...] = (self._profile,)
        for column, given in (("account", account), ("project", project), (key, value)):
            if given is not None:
                where += f" AND {column} = ?"
                params += (given,)
        return where, params

    def _limiters(
        self,
        conn: sqlite3.Connection,
        account: str | None,
        project: str | None,
        limiter_id: str | None = None,
        *,
        after: Key | None = None,
        limit: int | None = None,
    ) -> list[LimiterEntry]:
        where, params = self._scope(account, project, "limiter_id", limiter_id)
        since, since_params = _after_in(account, project, "limiter_id", after)
        bound, bound_params = _limit(limit)
        rows = conn.execute(
            f"SELECT {LIMITER_COLS} FROM limiters WHERE {where}{since} "
            f"ORDER BY account, project, limiter_id{bound}",
            params + since_params + bound_params,
        )
        return [
            LimiterEntry(a, p, i, n, row_bool(active), k, s) for a, p, i, n, active, k, s in rows
        ]

    def _dimensions(
        self,
        conn: sqlite3.Connection,
        account: str | None,
        project: str | None,
        dimension_id: str | None = None,
        *,
        after: Key | None = None,
        limit: int | None = None,
    ) -> list[DimensionEntry]:
        where, params = self._scope(account, project, "dimension_id", dimension_id)
        since, since_params = _after_in(account, project, "dimension_id", after)
        bound, bound_params = _limit(limit)
        rows = conn.execute(
            f"SELECT {DIMENSION_COLS} FROM dimensions WHERE {where}{since} "
            f"ORDER BY account, project, dimension_id{bound}",
            params + since_params + bound_params,
        )
        return [DimensionEntry(*row) for row in rows]


__all__ = ["InventoryReader"]
