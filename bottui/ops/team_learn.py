"""What a teammate's successful change teaches this operator's inventory (#13, live).

A teammate who switched ``rl-login`` off on the same base URL leaves it off
for everybody: once the shared journal says the change succeeded, the
limiter's (or dimension's) known state here follows, so the Limiters and
Thresholds screens show it ("from bob's change": the source names the
teammate). Only what this inventory already knows is updated (a
teammate's other projects come through the shared inventory,
:mod:`bottui.ops.team_inventory`); anything unreadable is skipped, never
raised: the inventory is a help, not a condition.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bottui.api.errors import BottuiError
from bottui.store.errors import StoreError

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.store.team.records import TeamEntry


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
    from bottui.store.inventory.records import team_source

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


__all__ = ["learn"]
