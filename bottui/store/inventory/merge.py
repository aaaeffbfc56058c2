"""Merge an imported inventory into the current one, and say what changed.

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
:class:`~bottui.store.inventory.sync.Inventory` writes them in one transaction.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from bottui.store.inventory.records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    MergeReport,
    ProjectEntry,
    Source,
)


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


class _Merger:
    def __init__(self, current: InventorySnapshot, incoming: InventorySnapshot, now: str) -> None:
        self.now = now
        self.incoming = incoming
        self.accounts = {a.account: a for a in current.accounts}
        self.projects = {(p.account, p.project): p for p in current.projects}
        self.limiters = {(r.account, r.project, r.id): r for r in current.limiters}
        self.dimensions = {(d.account, d.project, d.id): d for d in current.dimensions}
        self.out_accounts: dict[str, AccountEntry] = {}
        self.out_projects: dict[tuple[str, str], ProjectEntry] = {}
        self.out_limiters: dict[tuple[str, str, str], LimiterEntry] = {}
        self.out_dimensions: dict[tuple[str, str, str], DimensionEntry] = {}
        self.added = self.changed = self.unchanged = 0
        self.lines: list[str] = []

    def run(self) -> MergePlan:
        for account in self.incoming.accounts:
            self.account(account)
        for project in self.incoming.projects:
            self.project(project)
        for limiter in self.incoming.limiters:
            self.limiter(limiter)
        for dimension in self.incoming.dimensions:
            self.dimension(dimension)
        writes = InventorySnapshot(
            accounts=tuple(self.out_accounts[k] for k in sorted(self.out_accounts)),
            projects=tuple(self.out_projects[k] for k in sorted(self.out_projects)),
            limiters=tuple(self.out_limiters[k] for k in sorted(self.out_limiters)),
            dimensions=tuple(self.out_dimensions[k] for k in sorted(self.out_dimensions)),
        )
        report = MergeReport(self.added, self.changed, self.unchanged, tuple(self.lines))
        return MergePlan(writes, report)

    # -- parents implied by a record ---------------------------------------------------

    def ensure_account(self, account: str, why: str) -> None:
        if account in self.accounts:
            return
        entry = AccountEntry(account, None, self.now, Source.IMPORT)
        self.accounts[account] = self.out_accounts[account] = entry
        self.added += 1
        self.lines.append(f"added account {_q(account)} (implied by {why})")

    def ensure_project(self, account: str, project: str, why: str) -> None:
        self.ensure_account(account, why)
        if (account, project) in self.projects:
            return
        entry = ProjectEntry(account, project, None, self.now, Source.IMPORT)
        self.projects[(account, project)] = self.out_projects[(account, project)] = entry
        self.added += 1
        self.lines.append(f"added project {_q(account)}/{_q(project)} (implied by {why})")

    # -- records ---------------------------------------------------------------------------

    def account(self, new: AccountEntry) -> None:
        old = self.accounts.get(new.account)
        label = f"account {_q(new.account)}"
        if old is None:
            self.accounts[new.account] = self.out_accounts[new.account] = new
            self.added += 1
            self.lines.append(f"added {label}" + (f" ({_q(new.name)})" if new.name else ""))
        elif new.name is not None and new.name != old.name:
            merged = old._replace(name=new.name, updated_at=self.now, source=Source.IMPORT)
            self.accounts[new.account] = self.out_accounts[new.account] = merged
            self.changed += 1
            self.lines.append(f"{label}: name {_q(old.name)} → {_q(new.name)}")
        else:
            self.unchanged += 1

    def project(self, new: ProjectEntry) -> None:
        key = (new.account, new.project)
        label = f"project {_q(new.account)}/{_q(new.project)}"
        old = self.projects.get(key)
        if old is None:
            self.ensure_account(new.account, label)
            self.projects[key] = self.out_projects[key] = new
            self.added += 1
            self.lines.append(f"added {label}" + (f" ({_q(new.name)})" if new.name else ""))
        elif new.name is not None and new.name != old.name:
            merged = old._replace(name=new.name, updated_at=self.now, source=Source.IMPORT)
            self.projects[key] = self.out_projects[key] = merged
            self.changed += 1
            self.lines.append(f"{label}: name {_q(old.name)} → {_q(new.name)}")
        else:
            self.unchanged += 1

    def limiter(self, new: LimiterEntry) -> None:
        key = (new.account, new.project, new.id)
        label = f"rate limiter {_q(new.id)} in {_q(new.account)}/{_q(new.project)}"
        old = self.limiters.get(key)
        if old is None:
            self.ensure_project(new.account, new.project, label)
            self.limiters[key] = self.out_limiters[key] = new
            self.added += 1
            self.lines.append(f"added {label}: {_learned(new.is_active, new.known_at, new.source)}")
            return
        merged, notes = old, []
        if new.name is not None and new.name != old.name:
            merged = merged._replace(name=new.name)
            notes.append(f"name {_q(old.name)} → {_q(new.name)}")
        if new.is_active is not None:
            if old.is_active is None or new.known_at > old.known_at:
                if (new.is_active, new.known_at, new.source) != (
                    old.is_active,
                    old.known_at,
                    old.source,
                ):
                    merged = merged._replace(
                        is_active=new.is_active, known_at=new.known_at, source=new.source
                    )
                    notes.append(
                        f"{_state(old.is_active)} → {_state(new.is_active)} "
                        f"(known {new.known_at}, {new.source})"
                    )
            elif new.is_active != old.is_active:
                self.lines.append(
                    f"kept {label}: {_state(old.is_active)} (known {old.known_at}) is newer than "
                    f"the file's {_state(new.is_active)} (known {new.known_at})"
                )
        if self._settle(notes, label):
            self.limiters[key] = self.out_limiters[key] = merged

    def dimension(self, new: DimensionEntry) -> None:
        key = (new.account, new.project, new.id)
        label = f"dimension {_q(new.id)} in {_q(new.account)}/{_q(new.project)}"
        old = self.dimensions.get(key)
        if old is None:
            self.ensure_project(new.account, new.project, label)
            self.dimensions[key] = self.out_dimensions[key] = new
            self.added += 1
            self.lines.append(
                f"added {label}: {_thresholds(new)} (known {new.known_at}, {new.source})"
            )
            return
        merged, notes = old, []
        if new.name is not None and new.name != old.name:
            merged = merged._replace(name=new.name)
            notes.append(f"name {_q(old.name)} → {_q(new.name)}")
        if new.block is not None:
            if old.block is None or new.known_at > old.known_at:
                if (new.block, new.challenge, new.known_at, new.source) != (
                    old.block,
                    old.challenge,
                    old.known_at,
                    old.source,
                ):
                    merged = merged._replace(
                        block=new.block,
                        challenge=new.challenge,
                        known_at=new.known_at,
                        source=new.source,
                    )
                    notes.append(
                        f"{_thresholds(old)} → {_thresholds(new)} "
                        f"(known {new.known_at}, {new.source})"
                    )
            elif (new.block, new.challenge) != (old.block, old.challenge):
                self.lines.append(
                    f"kept {label}: {_thresholds(old)} (known {old.known_at}) is newer than "
                    f"the file's {_thresholds(new)} (known {new.known_at})"
                )
        if self._settle(notes, label):
            self.dimensions[key] = self.out_dimensions[key] = merged

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


__all__ = ["MergePlan", "merge"]
