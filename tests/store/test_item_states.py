"""The journal's per-key resume view and the ``until``/``before`` filters."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bottui.store.journal.journal_records import EntryId, EntryQuery
from bottui.store.journal.journal_store import SqliteJournalStore


def _store(tmp_path: Path, now: list[datetime]) -> SqliteJournalStore:
    return SqliteJournalStore(
        tmp_path / "journal.sqlite3", operator="op@host", clock=lambda: now[0]
    )


def test_item_states_reports_settled_last_outcome_and_unfinished(tmp_path: Path) -> None:
    async def go() -> None:
        now = [datetime(2026, 1, 1, tzinfo=UTC)]
        store = _store(tmp_path, now)
        run = await store.run(
            profile="p",
            account="a",
            project="prj",
            input_sha256="0" * 64,
            operation="revoke-visitor",
        )
        ids: dict[str, list[EntryId]] = {}
        for key in ("k1", "k2", "k3", "k2"):
            ids.setdefault(key, []).append(
                await store.start(
                    profile="p",
                    base_url="https://x",
                    operation="revoke-visitor",
                    account="a",
                    project="prj",
                    target={"visitorId": key},
                    request_body=None,
                    run_id=run,
                    item_key=key,
                )
            )
        await store.finish(ids["k1"][0], outcome="withdrawn")
        await store.finish(ids["k2"][0], outcome="network-error")
        states = await store.item_states(run, ["k1", "k2", "k3", "absent"])
        assert set(states) == {"k1", "k2", "k3"}
        assert states["k1"].settled and states["k1"].last_outcome == "withdrawn"
        assert not states["k2"].settled and states["k2"].last_outcome == "network-error"
        assert states["k2"].unfinished == (ids["k2"][1],)
        assert states["k3"].unfinished == (ids["k3"][0],) and states["k3"].last_outcome is None
        await store.close()

    asyncio.run(go())


def test_until_and_before_filters(tmp_path: Path) -> None:
    async def go() -> None:
        start = datetime(2026, 1, 1, tzinfo=UTC)
        now = [start]
        store = _store(tmp_path, now)
        made: list[EntryId] = []
        for minute in range(5):
            now[0] = start + timedelta(minutes=minute)
            made.append(
                await store.start(
                    profile="p",
                    base_url="https://x",
                    operation="set-rate-limiter",
                    account="a",
                    project="prj",
                    target={"ruleId": "rl"},
                    request_body=None,
                )
            )
        page = await store.page(EntryQuery(until=start + timedelta(minutes=2)))
        assert [e.id for e in page.entries] == [made[1], made[0]]
        page = await store.page(EntryQuery(before=made[3]), limit=2)
        assert [e.id for e in page.entries] == [made[2], made[1]]
        await store.close()

    asyncio.run(go())
