"""Streams of journal pages (#12): one keyring lookup per slot; a cancelled export leaves nothing.

A real SQLite journal in ``tmp_path``; the keyring is the in-memory backend of
``tests/conftest.py``, counted.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from bottui.api.tokens import ProjectToken, scrub
from bottui.ops.journal_view import EntryStream, export_stream
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import EntryPage, EntryQuery, Operation, StartRecord
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.keyring_tokens import TokenStore
from tests.fixtures.keyrings import InMemoryKeyring

BASE = "https://api.example.com"


def fill(path: Path, n: int, projects: int = 1) -> None:
    journal = Journal(path)
    try:
        writer = journal.batch(interval=0)
        writer.start_many(
            [
                StartRecord(
                    profile="default",
                    base_url=BASE,
                    operation=Operation.SET_LIMITER_ACTIVE,
                    account="acme",
                    project=f"proj-{i % projects}",
                    target={"rate_limiter_id": f"rl-{i}"},
                    request_body={"isActive": False},
                )
                for i in range(n)
            ]
        )
        writer.close()
    finally:
        journal.close()


async def test_the_keyring_is_asked_once_per_slot_over_a_whole_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring: InMemoryKeyring
) -> None:
    path = tmp_path / "journal.sqlite3"
    fill(path, 2500, projects=3)
    tokens = TokenStore()
    secret = "prj_live_0123456789abcdef"
    tokens.set_project(BASE, "acme", "proj-2", ProjectToken(secret))
    asked: list[tuple[Any, ...]] = []
    real_personal, real_project = TokenStore.personal_async, TokenStore.project_async

    async def personal(self: TokenStore, *slot: str) -> Any:
        asked.append(slot)
        return await real_personal(self, *slot)

    async def project(self: TokenStore, *slot: str) -> Any:
        asked.append(slot)
        return await real_project(self, *slot)

    monkeypatch.setattr(TokenStore, "personal_async", personal)
    monkeypatch.setattr(TokenStore, "project_async", project)
    store = SqliteJournalStore(path)
    try:
        stream = EntryStream(store, EntryQuery(), tokens=tokens, page_size=400)
        count = sum([len(page) async for page in stream.pages()])
    finally:
        await store.close()
    assert count == 2500 and stream.older is None
    # Seven pages, four slots (the account's personal token, three projects): four lookups.
    assert sorted(asked, key=str) == sorted(
        [(BASE, "acme"), *((BASE, "acme", f"proj-{n}") for n in range(3))], key=str
    )
    assert scrub(f"echo {secret}") == "echo ***"  # the keyring's token is now masked


async def test_a_cancelled_export_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "journal.sqlite3"
    fill(path, 3000)
    second_page = asyncio.Event()
    never = asyncio.Event()
    real = SqliteJournalStore.page

    async def page(self: SqliteJournalStore, *args: Any, **kwargs: Any) -> EntryPage:
        if kwargs.get("cursor") is not None:
            second_page.set()
            await never.wait()  # the journal stops answering
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(SqliteJournalStore, "page", page)
    store = SqliteJournalStore(path)
    out = tmp_path / "out.jsonl"
    try:
        stream = EntryStream(store, EntryQuery(), page_size=1000)
        task = asyncio.create_task(export_stream(stream, out, "jsonl"))
        await asyncio.wait_for(second_page.wait(), 120)  # a hang guard
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The writer's thread notices within a fraction of a second and removes its file.
        deadline = time.monotonic() + 10
        while list(tmp_path.glob(".out.jsonl.*")) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        await store.close()
    assert not out.exists()
    assert list(tmp_path.glob(".out.jsonl.*")) == []
