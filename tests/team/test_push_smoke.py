"""Push and page against the real server (smoke)."""

from __future__ import annotations

from uuid import uuid4

from bottui.store.team.store import TeamStore
from tests.team.events import entry, outcome


async def test_push_then_page(team_store: TeamStore) -> None:
    origin = uuid4()
    events = [entry(i, origin) for i in range(1, 4)]
    done = await team_store.push([*events, outcome(events[0])])
    assert (done.entries, done.outcomes, done.duplicates) == (3, 1, 0)
    page = await team_store.page(limit=2)
    assert [e.local_id for e in page.entries] == [3, 2]
    assert page.next is not None
    rest = await team_store.page(limit=2, cursor=page.next)
    assert [e.local_id for e in rest.entries] == [1]
    assert rest.entries[0].outcome == "ok"
    assert rest.next is None
