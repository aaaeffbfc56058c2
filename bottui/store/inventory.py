"""The inventory: what bottui knows of a profile's accounts, projects,
rate limiters and dimensions, since the API lists none of them.

This module is its synchronous writer (:class:`Inventory`; reads are in
:mod:`bottui.store.inventory_read`, statements in
:mod:`bottui.store.inventory_sql`); the async
:class:`~bottui.store.inventory_store.InventoryStore` callers await wraps it
off the event loop (:mod:`bottui.store.inventory_sqlite`). It learns from
every successful response (:meth:`Inventory.learn_limiter_change`,
:meth:`Inventory.learn_thresholds`), from what the user enters (``add_*``,
``rename_*``, ``remove_*``) and from a shared TOML file
(:meth:`Inventory.import_toml`, :meth:`Inventory.export_toml`).

One SQLite file (``Locations.inventory_file``) holds every profile; an
:class:`Inventory` sees and changes only its own profile's rows. The file is
opened on first write or on the first read of an existing file, in WAL mode
with ``synchronous=NORMAL`` (a write survives a crash of the process; a power
loss may undo the newest writes, which the next response teaches again).
A locked, read-only or damaged file raises
:class:`~bottui.store.db_errors.InventoryUnavailable`.

Ids are checked as the API checks path segments
(:func:`bottui.api.validation.path_id`: not empty, not ``.``/``..``, no control
characters); a bad id from the user raises
:class:`~bottui.api.errors.ValidationError`, one listed by a response is
skipped. Neither tokens nor the project's ``serverKey`` are ever stored.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from bottui.store.db_errors import InventoryUnavailable, NotInInventory
from bottui.store.inventory_merge import merge
from bottui.store.inventory_read import InventoryReader
from bottui.store.inventory_records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    MergeReport,
    ProjectEntry,
    Source,
)
from bottui.store.inventory_sql import (
    DIMENSION_SEEN,
    DIMENSION_THRESHOLDS,
    ENSURE_ACCOUNT,
    ENSURE_PROJECT,
    LIMITER_SEEN,
    LIMITER_STATE,
    NAME_ACCOUNT,
    NAME_PROJECT,
    PUT_ACCOUNT,
    PUT_DIMENSION,
    PUT_LIMITER,
    PUT_PROJECT,
    checked_id,
    checked_name,
    usable_id,
)

if TYPE_CHECKING:
    from bottui.api.models import DimensionThresholds, LimiterChange
    from bottui.store.inventory_store import SharedRemoval

#: A shared removal's kind -> its table and the item's column.
_REMOVALS: Final = {
    "project": ("projects", ""),
    "limiter": ("limiters", " AND limiter_id = ?"),
    "dimension": ("dimensions", " AND dimension_id = ?"),
}


class Inventory(InventoryReader):
    """One profile's view of the inventory file: reads (:class:`InventoryReader`) and writes.

    Args:
        path: The inventory file (``Locations.inventory_file``).
        profile: The profile whose rows this object reads and writes.
        clock: Source of the current time (UTC).
        busy_timeout: Seconds to wait for another process's lock.
    """

    # -- what the user enters ----------------------------------------------------------

    def add_account(self, account: str, name: str | None = None) -> None:
        """Add an account (or give a known one its name)."""
        account, name = checked_id("account id", account), checked_name(name)
        now = self.now()
        with self._db.write() as conn:
            if name is None:
                conn.execute(ENSURE_ACCOUNT, (self._profile, account, now, Source.USER))
            else:
                conn.execute(NAME_ACCOUNT, (self._profile, account, name, now, Source.USER))

    def remove_account(self, account: str) -> None:
        """Remove an account with its projects, limiters and dimensions."""
        self._delete("accounts", "account = ?", (account,), f"account {account!r}")

    def add_project(self, account: str, project: str, name: str | None = None) -> None:
        """Add a project (and its account), or give a known one its display name."""
        account, project = checked_id("account id", account), checked_id("project id", project)
        name = checked_name(name)
        now = self.now()
        with self._db.write() as conn:
            self._ensure_project(conn, account, project, now, Source.USER)
            if name is not None:
                conn.execute(
                    NAME_PROJECT, (self._profile, account, project, name, now, Source.USER)
                )

    def rename_project(self, account: str, project: str, name: str | None) -> None:
        """Set (or, with None, clear) a project's display name.

        Raises:
            NotInInventory: the project is not in the inventory.
        """
        name = checked_name(name)
        with self._db.write() as conn:
            cursor = conn.execute(
                "UPDATE projects SET name = ?, updated_at = ?, source = ? "
                "WHERE profile = ? AND account = ? AND project = ?",
                (name, self.now(), Source.USER, self._profile, account, project),
            )
            if cursor.rowcount == 0:
                raise NotInInventory(f"No project {project!r} in account {account!r}")

    def remove_project(self, account: str, project: str) -> None:
        """Remove a project with its rate limiters and dimensions."""
        self._delete(
            "projects",
            "account = ? AND project = ?",
            (account, project),
            f"project {project!r} in account {account!r}",
        )

    def add_limiter(
        self, account: str, project: str, limiter_id: str, name: str | None = None
    ) -> None:
        """Add a rate limiter (and its project), or give a known one its name."""
        account, project = checked_id("account id", account), checked_id("project id", project)
        limiter_id, name = checked_id("rate limiter id", limiter_id), checked_name(name)
        now = self.now()
        with self._db.write() as conn:
            self._ensure_project(conn, account, project, now, Source.USER)
            conn.execute(
                LIMITER_SEEN,
                (self._profile, account, project, limiter_id, name, now, Source.USER),
            )

    def rename_limiter(self, account: str, project: str, limiter_id: str, name: str | None) -> None:
        """Set (or clear) a rate limiter's name (raises NotInInventory)."""
        name = checked_name(name)
        with self._db.write() as conn:
            cursor = conn.execute(
                "UPDATE limiters SET name = ? "
                "WHERE profile = ? AND account = ? AND project = ? AND limiter_id = ?",
                (name, self._profile, account, project, limiter_id),
            )
            if cursor.rowcount == 0:
                raise NotInInventory(f"No rate limiter {limiter_id!r} in project {project!r}")

    def set_limiter_state(
        self,
        account: str,
        project: str,
        limiter_id: str,
        is_active: bool,
        *,
        source: str = Source.USER,
    ) -> None:
        """Record a limiter's active flag (the user says so, or a caller knows)."""
        account, project = checked_id("account id", account), checked_id("project id", project)
        limiter_id = checked_id("rate limiter id", limiter_id)
        if not isinstance(is_active, bool):
            raise TypeError("is_active must be a boolean")
        now = self.now()
        with self._db.write() as conn:
            self._ensure_project(conn, account, project, now, source)
            conn.execute(
                LIMITER_STATE,
                (self._profile, account, project, limiter_id, None, int(is_active), now, source),
            )

    def remove_limiter(self, account: str, project: str, limiter_id: str) -> None:
        """Remove a rate limiter (raises NotInInventory)."""
        self._delete(
            "limiters",
            "account = ? AND project = ? AND limiter_id = ?",
            (account, project, limiter_id),
            f"rate limiter {limiter_id!r} in project {project!r}",
        )

    def add_dimension(
        self, account: str, project: str, dimension_id: str, name: str | None = None
    ) -> None:
        """Add a dimension (and its project), or give a known one its name."""
        account, project = checked_id("account id", account), checked_id("project id", project)
        dimension_id, name = checked_id("dimension id", dimension_id), checked_name(name)
        now = self.now()
        with self._db.write() as conn:
            self._ensure_project(conn, account, project, now, Source.USER)
            conn.execute(
                DIMENSION_SEEN,
                (self._profile, account, project, dimension_id, name, now, Source.USER),
            )

    def remove_dimension(self, account: str, project: str, dimension_id: str) -> None:
        """Remove a dimension (raises NotInInventory)."""
        self._delete(
            "dimensions",
            "account = ? AND project = ? AND dimension_id = ?",
            (account, project, dimension_id),
            f"dimension {dimension_id!r} in project {project!r}",
        )

    # -- learning from successful requests ------------------------------------------------

    def learn_limiter_change(self, account: str, project: str, change: LimiterChange) -> None:
        """Learn from a successful rate limiter change.

        Records the changed limiter's state (``change.is_active``, source
        ``response`` or ``request`` as ``change.source`` says), every limiter the
        returned project lists (id, and name and state when given; ids that
        cannot be a path segment are skipped), and the project's display name
        when the body gives one. An empty body (``{}``) teaches the state sent.
        """
        account, project = checked_id("account id", account), checked_id("project id", project)
        limiter_id = checked_id("rate limiter id", change.limiter_id)
        now = self.now()
        body = change.project
        with self._db.write() as conn:
            self._ensure_project(conn, account, project, now, Source.RESPONSE)
            if isinstance(body.name, str) and body.name:
                conn.execute(
                    NAME_PROJECT,
                    (self._profile, account, project, body.name, now, Source.RESPONSE),
                )
            for listed in body.rate_limiters:
                if not usable_id(listed.id):
                    continue
                if listed.is_active is None:
                    conn.execute(
                        LIMITER_SEEN,
                        (
                            self._profile,
                            account,
                            project,
                            listed.id,
                            listed.name,
                            now,
                            Source.RESPONSE,
                        ),
                    )
                else:
                    conn.execute(
                        LIMITER_STATE,
                        (
                            self._profile,
                            account,
                            project,
                            listed.id,
                            listed.name,
                            int(listed.is_active),
                            now,
                            Source.RESPONSE,
                        ),
                    )
            conn.execute(
                LIMITER_STATE,
                (
                    self._profile,
                    account,
                    project,
                    limiter_id,
                    None,
                    int(change.is_active),
                    now,
                    change.source.value,
                ),
            )

    def learn_thresholds(
        self, account: str, project: str, dimension_id: str, thresholds: DimensionThresholds
    ) -> None:
        """Learn the thresholds a successful update set (the literals sent)."""
        account, project = checked_id("account id", account), checked_id("project id", project)
        dimension_id = checked_id("dimension id", dimension_id)
        from bottui.api.models import DimensionThresholds  # not needed just to read

        if not isinstance(thresholds, DimensionThresholds):
            raise TypeError("thresholds must be a DimensionThresholds")
        now = self.now()
        with self._db.write() as conn:
            self._ensure_project(conn, account, project, now, Source.REQUEST)
            conn.execute(
                DIMENSION_THRESHOLDS,
                (
                    self._profile,
                    account,
                    project,
                    dimension_id,
                    thresholds.name,
                    thresholds.block,
                    thresholds.challenge,
                    now,
                    Source.REQUEST,
                ),
            )

    # -- files -------------------------------------------------------------------------------

    def export_toml(self, path: Path, *, overwrite: bool = False) -> InventorySnapshot:
        """Write the profile's inventory to a TOML file (atomically); returns what was written.

        Raises:
            StoreFileError: the file cannot be written, is a symlink, or exists
                and ``overwrite`` is False.
        """
        # Imported here: the TOML reader and writer are for files only.
        from bottui.store.inventory_toml import write as write_toml

        snapshot = self.snapshot()
        write_toml(
            Path(path), snapshot, profile=self._profile, exported_at=self.now(), overwrite=overwrite
        )
        return snapshot

    def import_toml(self, path: Path) -> MergeReport:
        """Merge a TOML inventory file into the profile's inventory (one transaction).

        Raises:
            StoreFileError: the file cannot be read or is malformed (nothing changed).
        """
        from bottui.store.inventory_toml import read as read_toml

        now = self.now()
        return self._merge(read_toml(Path(path), now=now), now)

    def import_snapshot(self, incoming: InventorySnapshot) -> MergeReport:
        """Merge records as :meth:`import_toml` merges a file's (one transaction)."""
        return self._merge(incoming, self.now())

    def _merge(self, incoming: InventorySnapshot, now: str) -> MergeReport:
        with self._db.write() as conn:
            plan = merge(self._snapshot(conn), incoming, now=now)
            p = self._profile
            w = plan.writes
            conn.executemany(
                PUT_ACCOUNT, [(p, a.account, a.name, a.updated_at, a.source) for a in w.accounts]
            )
            conn.executemany(
                PUT_PROJECT,
                [(p, x.account, x.project, x.name, x.updated_at, x.source) for x in w.projects],
            )
            conn.executemany(
                PUT_LIMITER,
                [
                    (
                        p,
                        r.account,
                        r.project,
                        r.id,
                        r.name,
                        None if r.is_active is None else int(r.is_active),
                        r.known_at,
                        r.source,
                    )
                    for r in w.limiters
                ],
            )
            conn.executemany(
                PUT_DIMENSION,
                [
                    (
                        p,
                        d.account,
                        d.project,
                        d.id,
                        d.name,
                        d.block,
                        d.challenge,
                        d.known_at,
                        d.source,
                    )
                    for d in w.dimensions
                ],
            )
        return plan.report

    # -- the team's shared inventory ---------------------------------------------------------

    def apply_shared(self, writes: InventorySnapshot, removals: Sequence[SharedRemoval]) -> None:
        """Write what the shared inventory taught, in one transaction.

        ``writes`` are whole records (their ``known_at``/``source`` kept: the
        server's time and ``team:<operator>``); an account is only ensured
        (its name is local). ``removals`` go first; a record already gone is
        no error.
        """
        p = self._profile
        with self._db.write() as conn:
            for kind, account, project, item in removals:
                table, extra = _REMOVALS[kind]
                conn.execute(
                    f"DELETE FROM {table} WHERE profile = ? AND account = ? AND project = ?{extra}",
                    (p, account, project, *((item,) if extra else ())),
                )
            conn.executemany(
                ENSURE_ACCOUNT, [(p, a.account, a.updated_at, a.source) for a in writes.accounts]
            )
            # The records' fields are in the statements' column order (after the profile).
            conn.executemany(PUT_PROJECT, [(p, *x) for x in writes.projects])
            conn.executemany(PUT_LIMITER, [(p, *r) for r in writes.limiters])
            conn.executemany(PUT_DIMENSION, [(p, *d) for d in writes.dimensions])

    # -- internals ----------------------------------------------------------------------------

    def _ensure_project(
        self, conn: sqlite3.Connection, account: str, project: str, now: str, source: str
    ) -> None:
        conn.execute(ENSURE_ACCOUNT, (self._profile, account, now, source))
        conn.execute(ENSURE_PROJECT, (self._profile, account, project, now, source))

    def _delete(self, table: str, where: str, params: tuple[str, ...], what: str) -> None:
        if not self._path.exists():
            raise NotInInventory(f"No {what} in the inventory")
        with self._db.write() as conn:
            cursor = conn.execute(
                f"DELETE FROM {table} WHERE profile = ? AND {where}", (self._profile, *params)
            )
            if cursor.rowcount == 0:
                raise NotInInventory(f"No {what} in the inventory")


__all__ = [
    "AccountEntry",
    "DimensionEntry",
    "Inventory",
    "InventorySnapshot",
    "InventoryUnavailable",
    "LimiterEntry",
    "MergeReport",
    "NotInInventory",
    "ProjectEntry",
    "Source",
]
