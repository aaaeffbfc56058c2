"""A trigger announces every insert on the journal's channel; listen() yields it (#13)."""

from __future__ import annotations

import asyncio
from uuid import uuid4

from bottui.store.team.pg_schema import JOURNAL_CHANNEL
from bottui.store.team.pg_store import COPY_AT, TeamStore
from bottui.store.team.read_rows import Change
from tests.team.events import entry, outcome


async def test_a_push_is_announced_once_per_statement(team_store: TeamStore) -> None:
    changes: asyncio.Queue[Change] = asyncio.Queue()
    ready = asyncio.Event()

    async def listen() -> None:
        # ``ready`` is set once LISTEN holds: what is pushed after it is announced.
        async for change in team_store.listen(ready):
            await changes.put(change)

    task = asyncio.create_task(listen())
    try:
        await asyncio.wait_for(ready.wait(), 120)  # a hang guard
        origin = uuid4()
        events = [entry(i, origin) for i in range(1, COPY_AT + 11)]
        await team_store.push([*events, outcome(events[0])])
        got = [await asyncio.wait_for(changes.get(), 120) for _ in range(2)]
    finally:
        task.cancel()
    by_table = {c.table: c for c in got}
    assert by_table["journal_entries"].channel == JOURNAL_CHANNEL
    assert by_table["journal_entries"].count == COPY_AT + 10
    assert by_table["journal_outcomes"].count == 1
    assert by_table["journal_entries"].last == max(
        e.id for e in (await team_store.page(limit=1)).entries
    )
