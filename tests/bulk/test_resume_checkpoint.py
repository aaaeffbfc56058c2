"""#12: settled-prefix checkpoints: a resume looks up only the ids after the
newest one, and a checkpoint never covers an outcome not yet written."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bottui.ops.bulk import journaling
from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.input import BulkSource, subject_key
from bottui.ops.session import Session, Settings
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import ItemState, RunId
from bottui.store.journal.journal_store import SqliteJournalBatch, SqliteJournalStore
from bottui.store.keyring_tokens import TokenStore
from bottui.store.store_errors import JournalUnavailable
from tests.fixtures.sandbox import ACC, PROJ

IDS = 1000
TEXT = "".join(f"vis_p{n:05d}\n" for n in range(IDS))


def key(line: int) -> str:
    """The item key of the id on input line ``line`` of :data:`TEXT`."""
    return subject_key(f"vis_p{line - 1:05d}", None).hex()


@pytest.fixture
async def session(env: SandboxServer) -> AsyncIterator[Session]:
    s = Session(
        Locations.default(), Settings(profile_name=None, base_url=env.base_url), TokenStore()
    )
    yield s
    await s.aclose()


class CountingStore:
    """The journal store, keeping the keys of every ``item_states`` call;
    ``prefix`` (if set) replaces the checkpoint the journal holds."""

    def __init__(self, inner: SqliteJournalStore, prefix: int | None = None) -> None:
        self.inner = inner
        self.asked: list[str] = []
        self.prefix = prefix

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def item_states(self, run_id: Any, keys: Any) -> dict[str, ItemState]:
        self.asked += keys
        return await self.inner.item_states(run_id, keys)

    async def settled_prefix(self, run_id: RunId) -> int | None:
        if self.prefix is not None:
            return self.prefix
        return await self.inner.settled_prefix(run_id)


async def test_a_settled_run_resumes_without_a_single_lookup(
    session: Session, env: SandboxServer
) -> None:
    first = await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(TEXT)).run()
    assert first.nothing_standing == IDS
    assert await session.journal_store.settled_prefix(RunId(first.run_id or 0)) == IDS
    counting = CountingStore(session.journal_store)
    session._journal_store = counting
    summary = await BulkRevocation(
        session, ACC, PROJ, BulkSource.from_text(TEXT), resume=True
    ).run()
    assert summary.skipped == IDS and env.stats.requests == IDS  # nothing sent again
    assert counting.asked == []  # the final checkpoint covers every line


async def test_a_resume_looks_up_only_the_ids_after_the_checkpoint(
    session: Session, env: SandboxServer
) -> None:
    await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(TEXT)).run()
    counting = CountingStore(session.journal_store, prefix=600)
    session._journal_store = counting
    summary = await BulkRevocation(
        session, ACC, PROJ, BulkSource.from_text(TEXT + "vis_p00001\n"), resume=True
    ).run()
    # Another input (one more line): a run of its own, nothing to resume, every id looked up.
    assert summary.skipped == 0
    counting.asked.clear()
    summary = await BulkRevocation(
        session, ACC, PROJ, BulkSource.from_text(TEXT), resume=True, concurrency=4
    ).run()
    assert summary.skipped == IDS and summary.duplicates == 0
    assert counting.asked == [key(line) for line in range(601, IDS + 1)]


class StoppingBatch:
    """A journal batch writer that stops dead (as a killed process does) after
    ``calls`` calls of any kind: what it was handed after that is never written."""

    def __init__(self, inner: SqliteJournalBatch, calls: int) -> None:
        self.inner = inner
        self.left = calls

    def _go(self) -> bool:
        self.left -= 1
        return self.left >= 0

    async def start_many(self, records: Any) -> Any:
        if not self._go():
            raise JournalUnavailable("stopped", "")
        return await self.inner.start_many(records)

    async def finish(self, entry_id: Any, **outcome: Any) -> None:
        if self._go():
            await self.inner.finish(entry_id, **outcome)

    async def checkpoint(self, run_id: RunId, settled_line: int) -> None:
        if self._go():
            await self.inner.checkpoint(run_id, settled_line)

    async def flush(self) -> None:
        if self._go():
            await self.inner.flush()

    async def close(self) -> None:
        """Never closed: what the writer held in memory is lost, as in a crash."""


async def test_a_checkpoint_never_leads_the_outcomes_written(
    session: Session, env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journaling, "CHECKPOINT_LINES", 1)  # a checkpoint at every move
    inner = session.journal_store
    batches: list[StoppingBatch] = []

    class Stopping(CountingStore):
        async def batch(self) -> SqliteJournalBatch:
            batches.append(StoppingBatch(await inner.batch(), calls=700))
            return batches[-1]

    session._journal_store = Stopping(inner)
    env.faults.configure(latency=0.01)
    summary = await BulkRevocation(
        session, ACC, PROJ, BulkSource.from_text(TEXT), concurrency=64
    ).run()
    assert summary.nothing_standing == IDS
    run_id = summary.run_id or 0
    with Journal(session.locations.journal_file) as journal:
        line = journal.settled_prefix(run_id)
        assert line is not None and 0 < line < IDS  # written, then the writer stopped
        states = journal.item_states(run_id, [key(n) for n in range(1, IDS + 1)])
    covered = [states.get(key(n)) for n in range(1, line + 1)]
    assert all(state is not None and state.settled for state in covered)
    assert not all(
        states.get(key(n), ItemState(False, None, ())).settled for n in range(1, IDS + 1)
    )


async def test_a_resume_with_results_per_id_skips_the_checkpoint_line_itself(
    session: Session, env: SandboxServer
) -> None:
    """With a result per id (the TUI, ``--output``) the engine reads every line itself: the
    ones up to the checkpoint - the checkpoint's own line included - are skipped without a
    lookup and never sent again (#28: an off-by-one here survived a mutation run)."""
    await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(TEXT)).run()
    sent = env.stats.requests
    counting = CountingStore(session.journal_store, prefix=600)
    session._journal_store = counting
    results: list[Any] = []
    summary = await BulkRevocation(
        session, ACC, PROJ, BulkSource.from_text(TEXT), resume=True, on_result=results.append
    ).run()
    assert summary.skipped == IDS and env.stats.requests == sent  # nothing sent again
    assert counting.asked == [key(line) for line in range(601, IDS + 1)]
    skipped = {r.subject.line for r in results if r.status.name == "SKIPPED"}
    assert {599, 600} <= skipped and len(skipped) == IDS
