"""The team's one inventory (#13): what teammates taught, brought into this operator's.

What this operator enters or learns goes out as facts (:mod:`bottui.ops.team_facts`).

**In.** :func:`refresh_shared` reads the facts of this profile's base URL and
writes what teammates taught into the local inventory, so every screen and
command that reads the inventory sees it: the TUI at start and on each NOTIFY
of the inventory channel, ``bottui inventory list`` before it lists. Which
accounts: those this inventory already knows, plus the profile's default
account. A teammate's projects in those accounts appear here; an account this
operator has never used does not (its token is not this profile's, and an
operator should not find a customer's account in their list only because a
colleague once worked on it). Per field, the store holds the newest value by
the server's clock. Here:

* this machine's own facts (same origin) are skipped: the local inventory
  wrote them first;
* a fact whose field still waits in this machine's outbox is skipped: the
  waiting value is newer, it will win once pushed;
* ``exists = no`` removes the record locally (a project with its limiters
  and dimensions); any other value is written with the server's time as
  ``known_at`` and ``team:<operator>`` as source, which the screens show as
  "from bob's change 03:12".

**Live.** :func:`learn`: a teammate who switched ``rl-login`` off on the same
base URL leaves it off for everybody: once the shared journal says the change
succeeded, the limiter's (or dimension's) known state here follows ("from
bob's change"). Only what this inventory already knows is updated (a
teammate's other projects come through the facts above).

Nothing here raises for the store's sake: a store that is down leaves the
local inventory as it is and says so once (a warning); anything unreadable is
skipped, never raised: the inventory is a help, not a condition.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

import msgspec

from bottui.api.errors import BottuiError
from bottui.ops import team_facts
from bottui.ops.inventory_reads import all_pages
from bottui.ops.team_facts import NO
from bottui.plaintext import clean
from bottui.store.executor import shared_executor
from bottui.store.inventory.inventory_records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    ProjectEntry,
    team_source,
)
from bottui.store.store_errors import StoreError
from bottui.store.team.push_events import Fact, FactKey
from bottui.store.utc import stamp

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.store.inventory.inventory_records import SharedRemoval
    from bottui.store.team.pg_store import TeamStore
    from bottui.store.team.read_rows import TeamEntry


class _Record(msgspec.Struct):
    """The shared facts of one project, limiter or dimension: field -> fact."""

    fields: dict[str, Fact] = msgspec.field(default_factory=dict)

    def removed(self) -> bool:
        exists = self.fields.get("exists")
        return exists is not None and exists.value == NO

    def newest(self) -> Fact:
        return max(self.fields.values(), key=_at)


Taught = Callable[[Fact | None], Fact | None]
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def _at(fact: Fact) -> datetime:
    return fact.received_at or _EPOCH


def _when(fact: Fact) -> str:
    return stamp(fact.received_at) if fact.received_at is not None else ""


def _fold(facts: Sequence[Fact]) -> dict[tuple[str, str], dict[tuple[str, str], _Record]]:
    """Facts by (account, project), then by (kind, item)."""
    out: dict[tuple[str, str], dict[tuple[str, str], _Record]] = defaultdict(dict)
    for fact in facts:
        key = fact.key
        record = out[key.account, key.project].setdefault((key.kind, key.item), _Record())
        record.fields[key.field] = fact
    return out


class Plan(msgspec.Struct):
    """What the shared facts change in the local inventory."""

    writes: InventorySnapshot
    removals: list[SharedRemoval]

    @property
    def empty(self) -> bool:
        """Nothing to write."""
        return not self.removals and not any(self.writes)


async def plan(
    session: Session, facts: Sequence[Fact], *, mine: str | None, waiting: frozenset[FactKey]
) -> Plan:
    """The local writes ``facts`` call for (see the module's docstring).

    A fact bottui cannot read (thresholds that are not the JSON object a push
    writes) is skipped with a warning naming it; the others go on.
    """
    facts = [f for f in facts if _readable(session, f)]
    # One read of the whole local inventory (not two per project): thousands of projects.
    local_now = await session.inventory_store.snapshot()
    local_projects = {(p.account, p.project): p for p in local_now.projects}
    local_limiters = {(r.account, r.project, r.id): r for r in local_now.limiters}
    local_dimensions = {(d.account, d.project, d.id): d for d in local_now.dimensions}
    accounts: list[AccountEntry] = []
    projects: list[ProjectEntry] = []
    limiters: list[LimiterEntry] = []
    dimensions: list[DimensionEntry] = []
    removals: list[SharedRemoval] = []

    def taught(fact: Fact | None) -> Fact | None:
        """The fact, when it is a teammate's and nothing newer waits here."""
        if fact is None or fact.origin == mine or fact.key in waiting:
            return None
        return fact

    for (account, project), records in sorted(_fold(facts).items()):
        own = records.get(("project", ""), _Record())
        local = local_projects.get((account, project))
        if own.removed():
            exists = own.fields["exists"]
            if local is not None and taught(exists) is not None:
                removals.append(("project", account, project, ""))
            continue
        news = [r for (kind, _), r in records.items() if kind != "project" and not r.removed()]
        name = taught(own.fields.get("name"))
        # What taught the project itself: its own newest fact, else an item's.
        candidates = [taught(r.newest()) for r in ([own] if own.fields else []) + news]
        first = next((c for c in candidates if c is not None), None)
        if local is None:
            if first is None:
                continue  # only this machine's own facts: nothing a teammate taught
            accounts.append(AccountEntry(account, None, _when(first), team_source(first.operator)))
            source = name or first
            projects.append(
                ProjectEntry(
                    account, project, None if name is None else name.value, _when(source),
                    team_source(source.operator),
                )
            )  # fmt: skip
        elif name is not None and name.value != local.name:
            projects.append(
                ProjectEntry(account, project, name.value, _when(name), team_source(name.operator))
            )
        for (kind, item), record in sorted(records.items()):
            where = (account, project, item)
            if kind == "limiter":
                _limiter(where, record, local_limiters.get(where), taught, limiters, removals)
            elif kind == "dimension":
                found = local_dimensions.get(where)
                _dimension(where, record, found, taught, dimensions, removals)
    return Plan(InventorySnapshot(tuple(accounts), tuple(projects), tuple(limiters),
                                  tuple(dimensions)), removals)  # fmt: skip


_Entry = TypeVar("_Entry", LimiterEntry, DimensionEntry)


def _named(
    kind: str,
    where: tuple[str, str, str],
    record: _Record,
    local: _Entry | None,
    taught: Taught,
    blank: Callable[[Fact], _Entry],
    removals: list[SharedRemoval],
) -> _Entry | None:
    """The local limiter or dimension, or ``blank`` when only a teammate knows it, with
    the name a teammate taught; None when it is removed or nobody taught of it."""
    if record.removed():
        if local is not None and taught(record.fields["exists"]) is not None:
            removals.append((kind, *where))
        return None
    seen = taught(record.newest())
    if local is not None:
        entry = local
    elif seen is not None:
        entry = blank(seen)
    else:
        return None
    name = taught(record.fields.get("name"))
    return entry if name is None else entry._replace(name=name.value)


def _limiter(
    where: tuple[str, str, str],
    record: _Record,
    local: LimiterEntry | None,
    taught: Taught,
    out: list[LimiterEntry],
    removals: list[SharedRemoval],
) -> None:
    def blank(seen: Fact) -> LimiterEntry:
        return LimiterEntry(*where, None, None, _when(seen), team_source(seen.operator))

    entry = _named("limiter", where, record, local, taught, blank, removals)
    active = taught(record.fields.get("active"))
    if entry is not None and active is not None and active.value in ("true", "false"):
        entry = entry._replace(
            is_active=active.value == "true",
            known_at=_when(active),
            source=team_source(active.operator),
        )
    if entry is not None and entry != local:
        out.append(entry)


def _dimension(
    where: tuple[str, str, str],
    record: _Record,
    local: DimensionEntry | None,
    taught: Taught,
    out: list[DimensionEntry],
    removals: list[SharedRemoval],
) -> None:
    def blank(seen: Fact) -> DimensionEntry:
        return DimensionEntry(*where, None, None, None, _when(seen), team_source(seen.operator))

    entry = _named("dimension", where, record, local, taught, blank, removals)
    name, values = taught(record.fields.get("name")), taught(record.fields.get("thresholds"))
    doc = _thresholds(values)
    if entry is not None and values is not None and doc is not None:
        entry = entry._replace(
            # The thresholds carry a name too: the newer of the two names wins.
            name=doc["name"] if name is None or _at(name) <= _at(values) else entry.name,
            block=doc["block"],
            challenge=doc["challenge"],
            known_at=_when(values),
            source=team_source(values.operator),
        )
    if entry is not None and entry != local:
        out.append(entry)


def _readable(session: Session, fact: Fact) -> bool:
    if fact.key.field != "thresholds" or fact.value is None or _thresholds(fact) is not None:
        return True
    key = fact.key
    session.warn(
        f"skipped a shared inventory fact bottui cannot read: {clean(key.kind)} "
        f"{clean(key.item)} of {clean(key.account)}/{clean(key.project)} ({clean(key.field)}) "
        f"by {clean(fact.operator)}"
    )
    return False


def _thresholds(fact: Fact | None) -> dict[str, str] | None:
    if fact is None or fact.value is None:
        return None
    try:
        doc = json.loads(fact.value)
    except (ValueError, RecursionError):  # any role may write it: never parsed blindly
        return None
    keys = ("name", "block", "challenge")
    if not isinstance(doc, dict) or not all(isinstance(doc.get(k), str) for k in keys):
        return None
    return {k: str(doc[k]) for k in keys}


async def accounts_of(session: Session) -> list[str]:
    """The accounts whose shared facts this profile reads (see the module's docstring)."""
    store = session.inventory_store
    known = await all_pages(lambda cursor: store.accounts(limit=500, cursor=cursor))
    names = [a.account for a in known]
    if session.settings.account and session.settings.account not in names:
        names.append(session.settings.account)
    return names


async def refresh_shared(session: Session, store: TeamStore | None = None) -> int:
    """Bring what teammates taught into the local inventory; how many records changed.

    ``store``: the team store to read (the session's by default). Never
    raises for the store or the outbox: a warning says what went wrong.
    """
    key = team_facts.store_key(session)
    base = session.settings.base_url
    if key is None or base is None:
        return 0
    try:
        store = store or await session.team_store()
        if store is None:
            return 0
        facts = await store.facts(base, await accounts_of(session))
        box = team_facts.outbox(session)
        mine = await shared_executor().call(box.facts_origin, lane=box.lane)
        waiting = await shared_executor().call(lambda: box.waiting_keys(key), lane=box.lane)
        changes = await plan(session, facts, mine=mine, waiting=waiting)
        if changes.empty:
            return 0
        await session.inventory_store.apply_shared(changes.writes, changes.removals)
    except StoreError as exc:
        session.warn(f"shared inventory: {exc.title}")
        return 0
    return len(changes.removals) + sum(len(part) for part in changes.writes)


async def learn(session: Session, entries: Sequence[TeamEntry]) -> int:
    """Apply the succeeded limiter and threshold changes of ``entries``; how many."""
    base = session.settings.base_url
    learnt = 0
    for entry in entries:
        if entry.outcome != "ok" or entry.base_url != base:
            continue
        try:
            learnt += await _learn_one(session, entry)
        except (BottuiError, StoreError, TypeError, ValueError):
            continue  # an id or value this inventory would not hold
    return learnt


async def _learn_one(session: Session, entry: TeamEntry) -> int:
    inventory = session.inventory_store
    target: dict[str, Any] = entry.target if isinstance(entry.target, dict) else {}
    body: dict[str, Any] = entry.request_body if isinstance(entry.request_body, dict) else {}
    account, project = entry.account, entry.project
    if entry.operation == "limiter.set-active":
        limiter_id = target.get("rate_limiter_id")
        active = body.get("isActive")
        if not isinstance(limiter_id, str) or not isinstance(active, bool):
            return 0
        if await inventory.limiter(account, project, limiter_id) is None:
            return 0
        await inventory.set_limiter_state(
            account, project, limiter_id, active, source=team_source(entry.operator)
        )
        return 1
    if entry.operation == "thresholds.set":
        from bottui.api.client import build_thresholds

        dimension_id = target.get("dimension_id")
        if not isinstance(dimension_id, str):
            return 0
        if await inventory.dimension(account, project, dimension_id) is None:
            return 0
        thresholds = build_thresholds(
            str(body["name"]), str(body["blockThreshold"]), str(body["challengeThreshold"])
        )
        await inventory.learn_thresholds(account, project, dimension_id, thresholds)
        return 1
    return 0
