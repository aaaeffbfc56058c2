"""The inventory: what bottui knows of a profile's accounts, projects,
rate limiters and dimensions, since the API lists none of them.

This module is its synchronous side (:class:`Inventory`: opening the file,
reading it in one transaction per read, writing it; statements in
:mod:`bottui.store.inventory.inventory_schema`); the async
:class:`~bottui.store.inventory.inventory_store.SqliteInventoryStore` callers await wraps it
off the event loop (:mod:`bottui.store.inventory.inventory_store`). It learns from
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
:class:`~bottui.store.store_errors.InventoryUnavailable`.

Ids are checked as the API checks path segments
(:func:`bottui.api.requests.path_id`: not empty, not ``.``/``..``, no control
characters); a bad id from the user raises
:class:`~bottui.api.errors.ValidationError`, one listed by a response is
skipped. Neither tokens nor the project's ``serverKey`` are ever stored.

Merge an imported inventory into the current one, and say what changed.

Rules, per record (accounts, projects, rate limiters, dimensions, keyed by
their ids):

* a record the inventory lacks is added as the file has it (with its
  ``known_at``/``updated_at``/``source``), together with the account and
  project it belongs to when neither the inventory nor the file has them;
* a name in the file replaces a different name in the inventory (importing
  is asking for the file's names); a record without a name keeps the local one;
* an active flag or thresholds in the file replace the local ones only when
  the local ones are unknown or the file's ``known_at`` is later: the newest
  observation wins, and an older one in the file is reported as kept;
* nothing is ever removed: records only in the inventory stay.

:func:`merge` is pure: it returns the rows to write and the report, and
:class:`Inventory` writes them in one transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Self, TypeVar

from bottui.store.files import Locations
from bottui.store.inventory.inventory_records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    MergeReport,
    ProjectEntry,
    Source,
    record_key,
)
from bottui.store.inventory.inventory_schema import (
    ACCOUNT_COLS,
    DIMENSION_COLS,
    DIMENSION_SEEN,
    DIMENSION_THRESHOLDS,
    ENSURE_ACCOUNT,
    ENSURE_PROJECT,
    LIMITER_COLS,
    LIMITER_SEEN,
    LIMITER_STATE,
    NAME_ACCOUNT,
    NAME_PROJECT,
    PROJECT_COLS,
    PUT_ACCOUNT,
    PUT_DIMENSION,
    PUT_LIMITER,
    PUT_PROJECT,
    SCHEMA,
    checked_id,
    checked_name,
    usable_id,
)
from bottui.store.sqlite_helpers import DEFAULT_BUSY_TIMEOUT, ClosesOnExit, Database
from bottui.store.store_errors import NotInInventory
from bottui.store.utc import Clock, stamp, system_clock

if TYPE_CHECKING:
    from bottui.api.models import DimensionThresholds, LimiterChange
    from bottui.store.inventory.inventory_records import SharedRemoval


R = TypeVar("R")

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
    key: tuple[str, ...], scope: Sequence[str | None], after: Key | None
) -> tuple[str, tuple[str, ...]]:
    """:func:`_after` on ``key``; for a project's records, on the id alone when the cursor
    is in the project of ``scope``.

    SQLite then seeks in the primary key's index (profile, account, project, id);
    with the row value it would scan the project's records for every page.
    """
    if after is not None and len(key) == len(after) == 3 and list(after[:2]) == list(scope[:2]):
        return _after(key[2:], after[2:])
    return _after(key, after)


def _limit(limit: int | None) -> tuple[str, tuple[int, ...]]:
    return ("", ()) if limit is None else (" LIMIT ?", (max(0, int(limit)),))


def _limiter(row: Sequence[Any]) -> LimiterEntry:
    """A ``limiters`` row's record (its flag is stored as 0 or 1)."""
    account, project, item, name, active, known_at, source = row
    return LimiterEntry(
        account, project, item, name, None if active is None else bool(active), known_at, source
    )


#: Each table of records: its key (after the profile), the columns read, a row's record.
_TABLES: Final[dict[str, tuple[tuple[str, ...], str, Callable[[Sequence[Any]], Any]]]] = {
    "accounts": (("account",), ACCOUNT_COLS, AccountEntry._make),
    "projects": (("account", "project"), PROJECT_COLS, ProjectEntry._make),
    "limiters": (("account", "project", "limiter_id"), LIMITER_COLS, _limiter),
    "dimensions": (("account", "project", "dimension_id"), DIMENSION_COLS, DimensionEntry._make),
}


class Inventory(ClosesOnExit):
    """One profile's view of the inventory file: opening it, reading it and writing it.

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
        self._db = Database(self._path, SCHEMA, synchronous="NORMAL", busy_timeout=busy_timeout)

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

    def accounts(self, *, after: Key | None = None, limit: int | None = None) -> list[AccountEntry]:
        """The profile's accounts, by id (``after`` ``[account]``, ``limit`` as for projects)."""
        return self._read("accounts", after=after, limit=limit)

    def projects(
        self, account: str | None = None, *, after: Key | None = None, limit: int | None = None
    ) -> list[ProjectEntry]:
        """The projects of ``account`` (or of every account), by account and id.

        ``after``: only those whose ``[account, project]`` sorts after it; ``limit``:
        at most that many (a page is one indexed range scan, whatever the page).
        """
        return self._read("projects", account, after=after, limit=limit)

    def project(self, account: str, project: str) -> ProjectEntry | None:
        """One project, if the inventory knows it."""
        return self._one(ProjectEntry, "projects", account, project)

    def limiters(
        self, account: str, project: str, *, after: Key | None = None, limit: int | None = None
    ) -> list[LimiterEntry]:
        """The rate limiters of a project, by id (``after`` ``[account, project, id]``)."""
        return self._read("limiters", account, project, after=after, limit=limit)

    def limiter(self, account: str, project: str, limiter_id: str) -> LimiterEntry | None:
        """One rate limiter, if known: its ``previous()`` is the journal's ``previous``."""
        return self._one(LimiterEntry, "limiters", account, project, limiter_id)

    def dimensions(
        self, account: str, project: str, *, after: Key | None = None, limit: int | None = None
    ) -> list[DimensionEntry]:
        """The dimensions of a project, by id (``after`` ``[account, project, id]``)."""
        return self._read("dimensions", account, project, after=after, limit=limit)

    def dimension(self, account: str, project: str, dimension_id: str) -> DimensionEntry | None:
        """One dimension, if known: its ``previous()`` is the journal's ``previous``."""
        return self._one(DimensionEntry, "dimensions", account, project, dimension_id)

    def snapshot(self) -> InventorySnapshot:
        """Everything the profile's inventory holds, read in one transaction."""

        return self._db.read_or(self._snapshot, InventorySnapshot())

    def _snapshot(self, conn: sqlite3.Connection) -> InventorySnapshot:
        return InventorySnapshot(
            **{table: tuple(self._records(conn, table)) for table in InventorySnapshot._fields}
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
        found = self._db.read_or(lambda conn: conn.execute("PRAGMA data_version").fetchone(), None)
        return None if found is None else (self._db.opened, int(found[0]))

    # -- lifetime ------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (a later call opens it again)."""
        self._db.close()

    # -- reading: internals -------------------------------------------------------------------

    def _read(
        self, table: str, *scope: str | None, after: Key | None = None, limit: int | None = None
    ) -> list[Any]:
        """:meth:`_records` in a read transaction of its own (none: no file)."""
        return self._db.read_or(
            lambda conn: self._records(conn, table, *scope, after=after, limit=limit), []
        )

    def _one(self, kind: type[R], table: str, *key: str) -> R | None:
        """The record (a ``kind``) of ``table`` with this whole key, or None."""
        found: list[R] = self._read(table, *key)
        return found[0] if found else None

    def _records(
        self,
        conn: sqlite3.Connection,
        table: str,
        *scope: str | None,
        after: Key | None = None,
        limit: int | None = None,
    ) -> list[Any]:
        """The records of ``table`` by key; ``scope``: values of the key's first columns
        (None: any), ``after`` and ``limit`` as for :meth:`projects`."""
        key, columns, record = _TABLES[table]
        where = "profile = ?"
        params: tuple[str, ...] = (self._profile,)
        for column, given in zip(key, scope, strict=False):
            if given is not None:
                where += f" AND {column} = ?"
                params += (given,)
        since, since_params = _after_in(key, scope, after)
        bound, bound_params = _limit(limit)
        rows = conn.execute(
            f"SELECT {columns} FROM {table} WHERE {where}{since} ORDER BY {', '.join(key)}{bound}",
            params + since_params + bound_params,
        )
        return [record(row) for row in rows]

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
        self._delete("accounts", f"account {account!r}", account)

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
        self._delete("projects", f"project {project!r} in account {account!r}", account, project)

    def add_limiter(
        self, account: str, project: str, limiter_id: str, name: str | None = None
    ) -> None:
        """Add a rate limiter (and its project), or give a known one its name."""
        self._add_item(LIMITER_SEEN, "rate limiter id", account, project, limiter_id, name)

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
        what = f"rate limiter {limiter_id!r} in project {project!r}"
        self._delete("limiters", what, account, project, limiter_id)

    def add_dimension(
        self, account: str, project: str, dimension_id: str, name: str | None = None
    ) -> None:
        """Add a dimension (and its project), or give a known one its name."""
        self._add_item(DIMENSION_SEEN, "dimension id", account, project, dimension_id, name)

    def remove_dimension(self, account: str, project: str, dimension_id: str) -> None:
        """Remove a dimension (raises NotInInventory)."""
        what = f"dimension {dimension_id!r} in project {project!r}"
        self._delete("dimensions", what, account, project, dimension_id)

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
        scope = (self._profile, account, project)
        with self._db.write() as conn:
            self._ensure_project(conn, account, project, now, Source.RESPONSE)
            if isinstance(body.name, str) and body.name:
                conn.execute(NAME_PROJECT, (*scope, body.name, now, Source.RESPONSE))
            for listed in body.rate_limiters:
                if not usable_id(listed.id):
                    continue
                if listed.is_active is None:
                    seen = (listed.id, listed.name, now, Source.RESPONSE)
                    conn.execute(LIMITER_SEEN, (*scope, *seen))
                else:
                    state = (listed.id, listed.name, int(listed.is_active), now, Source.RESPONSE)
                    conn.execute(LIMITER_STATE, (*scope, *state))
            changed = (limiter_id, None, int(change.is_active), now, change.source.value)
            conn.execute(LIMITER_STATE, (*scope, *changed))

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
            learned = (thresholds.name, thresholds.block, thresholds.challenge, now)
            row = (self._profile, account, project, dimension_id, *learned, Source.REQUEST)
            conn.execute(DIMENSION_THRESHOLDS, row)

    # -- files -------------------------------------------------------------------------------

    def export_toml(self, path: Path, *, overwrite: bool = False) -> InventorySnapshot:
        """Write the profile's inventory to a TOML file (atomically); returns what was written.

        Raises:
            StoreFileError: the file cannot be written, is a symlink, or exists
                and ``overwrite`` is False.
        """
        # Imported here: the TOML reader and writer are for files only (the demo's
        # start-up must not import tomllib: tests/tui/test_startup_machinery.py).
        from bottui.store.inventory.inventory_toml import write

        snapshot = self.snapshot()
        write(
            Path(path), snapshot, profile=self._profile, exported_at=self.now(), overwrite=overwrite
        )
        return snapshot

    def import_toml(self, path: Path) -> MergeReport:
        """Merge a TOML inventory file into the profile's inventory (one transaction).

        Raises:
            StoreFileError: the file cannot be read or is malformed (nothing changed).
        """
        from bottui.store.inventory.inventory_toml import read

        now = self.now()
        return self._merge(read(Path(path), now=now), now)

    def import_snapshot(self, incoming: InventorySnapshot) -> MergeReport:
        """Merge records as :meth:`import_toml` merges a file's (one transaction)."""
        return self._merge(incoming, self.now())

    def _merge(self, incoming: InventorySnapshot, now: str) -> MergeReport:
        with self._db.write() as conn:
            plan = merge(self._snapshot(conn), incoming, now=now)
            p = self._profile
            conn.executemany(
                PUT_ACCOUNT,
                [(p, a.account, a.name, a.updated_at, a.source) for a in plan.writes.accounts],
            )
            self._put(conn, plan.writes)
        return plan.report

    def _put(self, conn: sqlite3.Connection, records: InventorySnapshot) -> None:
        """Write whole projects, limiters and dimensions (their fields are in the
        statements' column order, after the profile)."""
        p = self._profile
        conn.executemany(PUT_PROJECT, [(p, *x) for x in records.projects])
        conn.executemany(PUT_LIMITER, [(p, *r) for r in records.limiters])
        conn.executemany(PUT_DIMENSION, [(p, *d) for d in records.dimensions])

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
                key = (account, project, item) if kind != "project" else (account, project)
                conn.execute(*self._deletion(f"{kind}s", key))
            conn.executemany(
                ENSURE_ACCOUNT, [(p, a.account, a.updated_at, a.source) for a in writes.accounts]
            )
            self._put(conn, writes)

    # -- writing: internals -------------------------------------------------------------------

    def _ensure_project(
        self, conn: sqlite3.Connection, account: str, project: str, now: str, source: str
    ) -> None:
        conn.execute(ENSURE_ACCOUNT, (self._profile, account, now, source))
        conn.execute(ENSURE_PROJECT, (self._profile, account, project, now, source))

    def _add_item(
        self, statement: str, label: str, account: str, project: str, item: str, name: str | None
    ) -> None:
        """Add a limiter or a dimension (``statement``: its "seen" upsert) and its project."""
        account, project = checked_id("account id", account), checked_id("project id", project)
        item, name = checked_id(label, item), checked_name(name)
        now = self.now()
        with self._db.write() as conn:
            self._ensure_project(conn, account, project, now, Source.USER)
            conn.execute(statement, (self._profile, account, project, item, name, now, Source.USER))

    def _deletion(self, table: str, key: Sequence[str]) -> tuple[str, tuple[str, ...]]:
        """The DELETE of the records of ``table`` whose first key columns hold ``key``."""
        where = "".join(f" AND {column} = ?" for column in _TABLES[table][0][: len(key)])
        return f"DELETE FROM {table} WHERE profile = ?{where}", (self._profile, *key)

    def _delete(self, table: str, what: str, *key: str) -> None:
        """Remove a record (and, by the foreign keys, what it holds); raises NotInInventory."""
        if not self._path.exists():
            raise NotInInventory(f"No {what} in the inventory")
        with self._db.write() as conn:
            if conn.execute(*self._deletion(table, key)).rowcount == 0:
                raise NotInInventory(f"No {what} in the inventory")


class MergePlan(NamedTuple):
    """The rows to upsert and the report of an import."""

    writes: InventorySnapshot
    report: MergeReport


def _q(value: str | None) -> str:
    return "(none)" if value is None else json.dumps(value, ensure_ascii=False)


def _state(active: bool | None) -> str:
    return "unknown" if active is None else ("active" if active else "inactive")


def _learned(active: bool | None, known_at: str, source: str) -> str:
    if active is None:
        return f"state unknown (listed {known_at}, {source})"
    return f"{_state(active)} (known {known_at}, {source})"


def _thresholds(entry: DimensionEntry) -> str:
    if entry.block is None:
        return "unknown thresholds"
    return f"block {entry.block}, challenge {entry.challenge}"


#: What an import's newest observation replaces: a limiter's flag, a dimension's thresholds.
_OBSERVED: Final[dict[type, tuple[str, ...]]] = {
    LimiterEntry: ("is_active",),
    DimensionEntry: ("block", "challenge"),
}


def _values(entry: LimiterEntry | DimensionEntry, fields: tuple[str, ...]) -> tuple[object, ...]:
    return tuple(getattr(entry, name) for name in fields)


def _shown(entry: LimiterEntry | DimensionEntry) -> str:
    """The observation as a report line says it (``active``, ``block 0.8, challenge 0.5``)."""
    return _state(entry.is_active) if isinstance(entry, LimiterEntry) else _thresholds(entry)


def _label(record: AccountEntry | ProjectEntry | LimiterEntry | DimensionEntry) -> str:
    """How a report line names a record (``rate limiter "rl-1" in "acc"/"shop"``)."""
    if isinstance(record, AccountEntry):
        return f"account {_q(record.account)}"
    if isinstance(record, ProjectEntry):
        return f"project {_q(record.account)}/{_q(record.project)}"
    what = "rate limiter" if isinstance(record, LimiterEntry) else "dimension"
    return f"{what} {_q(record.id)} in {_q(record.account)}/{_q(record.project)}"


class _Merger:
    def __init__(self, current: InventorySnapshot, incoming: InventorySnapshot, now: str) -> None:
        self.now = now
        self.incoming = incoming
        #: Each table's records by key: the inventory's, as merged so far ...
        self.known: dict[str, dict[tuple[str, ...], Any]] = {
            table: {tuple(record_key(r)): r for r in getattr(current, table)}
            for table in InventorySnapshot._fields
        }
        #: ... and the ones the import writes.
        self.out: dict[str, dict[tuple[str, ...], Any]] = {t: {} for t in self.known}
        self.added = self.changed = self.unchanged = 0
        self.lines: list[str] = []

    def run(self) -> MergePlan:
        for table in InventorySnapshot._fields:
            for new in getattr(self.incoming, table):
                key = tuple(record_key(new))
                if isinstance(new, AccountEntry | ProjectEntry):
                    self._named(table, key, new)
                else:
                    self._observed(table, key, new)
        writes = InventorySnapshot(
            **{table: tuple(out[k] for k in sorted(out)) for table, out in self.out.items()}
        )
        report = MergeReport(self.added, self.changed, self.unchanged, tuple(self.lines))
        return MergePlan(writes, report)

    def _put(self, table: str, key: tuple[str, ...], record: Any) -> None:
        self.known[table][key] = self.out[table][key] = record

    # -- parents implied by a record ---------------------------------------------------

    def ensure_account(self, account: str, why: str) -> None:
        if (account,) in self.known["accounts"]:
            return
        self._put("accounts", (account,), AccountEntry(account, None, self.now, Source.IMPORT))
        self.added += 1
        self.lines.append(f"added account {_q(account)} (implied by {why})")

    def ensure_project(self, account: str, project: str, why: str) -> None:
        self.ensure_account(account, why)
        if (account, project) in self.known["projects"]:
            return
        entry = ProjectEntry(account, project, None, self.now, Source.IMPORT)
        self._put("projects", (account, project), entry)
        self.added += 1
        self.lines.append(f"added project {_q(account)}/{_q(project)} (implied by {why})")

    # -- records ---------------------------------------------------------------------------

    def _named(self, table: str, key: tuple[str, ...], new: AccountEntry | ProjectEntry) -> None:
        """Merge an account or a project: added (with the account a project implies),
        renamed, or unchanged."""
        label = _label(new)
        old = self.known[table].get(key)
        if old is None:
            if isinstance(new, ProjectEntry):
                self.ensure_account(new.account, label)
            self._put(table, key, new)
            self.added += 1
            self.lines.append(f"added {label}" + (f" ({_q(new.name)})" if new.name else ""))
        elif new.name is not None and new.name != old.name:
            self._put(
                table, key, old._replace(name=new.name, updated_at=self.now, source=Source.IMPORT)
            )
            self.changed += 1
            self.lines.append(f"{label}: name {_q(old.name)} → {_q(new.name)}")
        else:
            self.unchanged += 1

    def _observed(
        self, table: str, key: tuple[str, ...], new: LimiterEntry | DimensionEntry
    ) -> None:
        """Merge a limiter (its active flag) or a dimension (its thresholds): the
        newest observation wins, an older one in the file is reported as kept."""
        label = _label(new)
        old = self.known[table].get(key)
        if old is None:
            self.ensure_project(new.account, new.project, label)
            self._put(table, key, new)
            self.added += 1
            if isinstance(new, LimiterEntry):
                self.lines.append(
                    f"added {label}: {_learned(new.is_active, new.known_at, new.source)}"
                )
            else:
                self.lines.append(
                    f"added {label}: {_thresholds(new)} (known {new.known_at}, {new.source})"
                )
            return
        merged, notes = old, []
        if new.name is not None and new.name != old.name:
            merged = merged._replace(name=new.name)
            notes.append(f"name {_q(old.name)} → {_q(new.name)}")
        fields = _OBSERVED[type(new)]
        values, before = _values(new, fields), _values(old, fields)
        if values[0] is not None:
            if before[0] is None or new.known_at > old.known_at:
                if (*values, new.known_at, new.source) != (*before, old.known_at, old.source):
                    observed = dict(zip(fields, values, strict=True))
                    merged = merged._replace(**observed, known_at=new.known_at, source=new.source)
                    notes.append(
                        f"{_shown(old)} → {_shown(new)} (known {new.known_at}, {new.source})"
                    )
            elif values != before:
                self.lines.append(
                    f"kept {label}: {_shown(old)} (known {old.known_at}) is newer than "
                    f"the file's {_shown(new)} (known {new.known_at})"
                )
        if self._settle(notes, label):
            self._put(table, key, merged)

    def _settle(self, notes: list[str], label: str) -> bool:
        """Count and report one existing record; True when it changed."""
        if not notes:
            self.unchanged += 1
            return False
        self.changed += 1
        self.lines.append(f"{label}: " + "; ".join(notes))
        return True


def merge(current: InventorySnapshot, incoming: InventorySnapshot, *, now: str) -> MergePlan:
    """Merge ``incoming`` (a parsed file) into ``current`` (the profile's inventory).

    Args:
        current: What the inventory holds.
        incoming: What the file holds, defaults already filled in.
        now: The stored time of the import (``updated_at`` of renamed and implied records).
    """
    return _Merger(current, incoming, now).run()
