"""Sharing what this operator enters or learns with the team's inventory (#13, one inventory).

With a team store configured, each inventory edit (a project,
limiter or dimension added, named or forgotten) and each state a successful
change taught (a limiter's active flag, a dimension's thresholds, the
limiters an answer listed) becomes facts
(:class:`~bottui.store.team.push_events.Fact`), keyed by base URL, account and
project: profile names are local and differ between teammates. The local
inventory is written first, as without a team store; the facts are then
queued in the outbox (:class:`~bottui.store.team.outbox.Outbox`) and the push
thread sends them with the journal's events, kicked at once. So a store that
is down never delays a key press or a change (the queue is local and small),
and nothing is lost: it goes with the next push. A queue that cannot be
written is a warning. A removal is a fact too (``exists = no``), so the newest
of "added" and "forgotten" wins; forgetting a project also forgets, for
everyone, the limiters and dimensions this inventory knew under it.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final

from bottui.store.executor import shared_executor
from bottui.store.inventory.inventory_schema import usable_id
from bottui.store.journal.journal_records import local_operator
from bottui.store.store_errors import StoreError
from bottui.store.token_sources import store_username

if TYPE_CHECKING:
    from bottui.api.models import DimensionThresholds, LimiterChange
    from bottui.ops.session import Session
    from bottui.store.team.outbox import Outbox
    from bottui.store.team.push_events import Fact


#: The kinds of item a fact is about.
KINDS: Final = ("project", "limiter", "dimension")
#: An ``exists`` fact's values.
YES: Final = "yes"
NO: Final = "no"
#: One fact before it is addressed: (account, project, kind, item, field, value).
Item = tuple[str, str, str, str, str, "str | None"]

_OUTBOXES: weakref.WeakKeyDictionary[Session, Outbox] = weakref.WeakKeyDictionary()


def outbox(session: Session) -> Outbox:
    """The session's outbox (its journal's), where the facts are queued."""
    # Imported here, with a store configured only: a change and the Projects screen (on the
    # way to `bottui demo`'s first frame) import this module; the outbox and its events
    # (uuid, the event classes) are 7-12 ms more (`python -X importtime`, busy 2-core machine).
    from bottui.store.team.outbox import Outbox

    found = _OUTBOXES.get(session)
    if found is None:
        found = _OUTBOXES[session] = Outbox(session.locations.journal_file)
    return found


def store_key(session: Session) -> str | None:
    """Which store the facts wait for (the push's key), None without a store or base URL."""
    url = session.settings.store_url
    if not url or not session.settings.base_url:
        return None
    return store_username(url)


def operator(session: Session) -> str:
    """Who this operator is, as the journal says (``user@host`` by default)."""
    return session.settings.operator or local_operator()


# -- what each edit says ----------------------------------------------------------------------


def _present(account: str, project: str, kind: str, item: str) -> list[Item]:
    out: list[Item] = [(account, project, "project", "", "exists", YES)]
    if kind != "project":
        out.append((account, project, kind, item, "exists", YES))
    return out


def added(account: str, project: str, kind: str, item: str, name: str | None) -> list[Item]:
    """A project (``item`` ``""``), limiter or dimension added, named when ``name``."""
    out = _present(account, project, kind, item)
    if name is not None:
        out.append((account, project, kind, item, "name", name))
    return out


def renamed(account: str, project: str, name: str | None) -> list[Item]:
    """A project's display name set (None: cleared)."""
    return [
        *_present(account, project, "project", ""),
        (account, project, "project", "", "name", name),
    ]


def removed(account: str, project: str, kind: str, item: str) -> list[Item]:
    """A project, limiter or dimension forgotten."""
    return [(account, project, kind, item, "exists", NO)]


def limiter_state(
    account: str, project: str, limiter_id: str, active: bool, name: str | None = None
) -> list[Item]:
    """A limiter's active flag (and name) as learned."""
    out = added(account, project, "limiter", limiter_id, name)
    out.append((account, project, "limiter", limiter_id, "active", "true" if active else "false"))
    return out


def limiter_change(account: str, project: str, change: LimiterChange) -> list[Item]:
    """What a successful limiter change taught: every limiter its answer listed, then its own."""
    out: list[Item] = []
    body = change.project
    if isinstance(body.name, str) and body.name:
        out += renamed(account, project, body.name)
    for listed in body.rate_limiters:
        if not usable_id(listed.id):
            continue
        if listed.is_active is None:
            out += added(account, project, "limiter", listed.id, listed.name)
        else:
            out += limiter_state(account, project, listed.id, listed.is_active, listed.name)
    out += limiter_state(account, project, change.limiter_id, change.is_active)
    return out


def thresholds(
    account: str, project: str, dimension_id: str, values: DimensionThresholds
) -> list[Item]:
    """A dimension's thresholds as set (the literals sent)."""
    doc = {"name": values.name, "block": values.block, "challenge": values.challenge}
    return [
        *_present(account, project, "dimension", dimension_id),
        (account, project, "dimension", dimension_id, "thresholds", json.dumps(doc)),
    ]


# -- queueing ---------------------------------------------------------------------------------


def _facts(session: Session, items: Iterable[Item], origin: str) -> list[Fact]:
    # With a store configured only, as the outbox (see :func:`outbox`).
    from bottui.store.team.push_events import Fact, FactKey

    base = session.settings.base_url or ""
    who = operator(session)
    # The last value of a field wins within one edit too (the changed limiter after the list).
    latest = {
        FactKey(base, a, p, kind, item, field): value for a, p, kind, item, field, value in items
    }
    return [Fact(key, value, who, origin=origin) for key, value in latest.items()]


async def share(session: Session, items: Sequence[Item]) -> None:
    """Queue ``items`` for the team store and kick the push; nothing without a store.

    Never raises for the outbox's sake: the local edit stands, a warning says
    the team will not hear of it.
    """
    key = store_key(session)
    if key is None or not items:
        return
    box = outbox(session)

    def queue() -> None:
        box.queue_facts(key, _facts(session, items, box.facts_origin()))

    try:
        await shared_executor().call(queue, lane=box.lane)
    except (StoreError, TypeError, ValueError) as exc:
        title = exc.title if isinstance(exc, StoreError) else str(exc)
        session.warn(f"shared inventory: not shared ({title})")
        return
    if session.on_shared is not None:
        session.on_shared()
