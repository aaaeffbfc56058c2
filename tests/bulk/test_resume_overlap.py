"""#12: a resume reads its checkpoint's covered lines on a thread of their own while
it sends the ids after them (first request within 1 s at 1,000,000 ids), with
counts and de-duplication exactly those of a resume that reads them first."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import msgspec
import pytest

from bottui.ops.bulk import journaling
from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.input import BulkSource, subject_key
from bottui.ops.bulk.report import BulkSummary
from bottui.ops.session import Session, Settings
from bottui.sandbox.server import SandboxServer
from bottui.store import seen_ids
from bottui.store.files import Locations
from bottui.store.journal.journal_records import ItemState, RunId
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.keyring_tokens import TokenStore
from bottui.store.store_errors import JournalUnavailable
from tests.fixtures.sandbox import ACC, PROJ

#: Lines 1-300: ids with repeats, an invalid line, a blank one; the checkpoint
#: (pretended) covers them. After it: repeats of covered ids, repeats among
#: themselves, new ids, invalid lines.
COVERED = (
    [f"vis_c{n:04d}" for n in range(290)]
    + ["vis_c0003", "bad\x01id", ""]
    + [f"vis_c{n:04d}" for n in range(7)]
)
AFTER = (
    ["vis_c0001", "vis_c0288", "vis_t0000", "vis_t0000", "x" * 300]
    + [f"vis_t{n:04d}" for n in range(1, 400)]
    + ["vis_c0100", "", "vis_t0005"]
)
TEXT = "".join(f"{line}\n" for line in COVERED + AFTER)
#: Ids after the covered lines the journal is made to forget: sent again.
FORGOTTEN = {subject_key(f"vis_t{n:04d}", None).hex() for n in range(0, 400, 3)}


@pytest.fixture
async def session(env: SandboxServer) -> AsyncIterator[Session]:
    s = Session(
        Locations.default(), Settings(profile_name=None, base_url=env.base_url), TokenStore()
    )
    yield s
    await s.aclose()


class Store:
    """The journal store with a given checkpoint, some keys forgotten, lookups
    that may fail."""

    def __init__(self, inner: SqliteJournalStore, prefix: int, *, failing: bool = False) -> None:
        self.inner = inner
        self.prefix = prefix
        self.failing = failing

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def item_states(self, run_id: RunId, keys: Sequence[str]) -> dict[str, ItemState]:
        if self.failing:
            raise JournalUnavailable("The journal is locked", "")
        found = await self.inner.item_states(run_id, keys)
        return {k: state for k, state in found.items() if k not in FORGOTTEN}

    async def settled_prefix(self, run_id: RunId) -> int | None:
        return self.prefix


def counts(summary: BulkSummary) -> dict[str, Any]:
    fields = msgspec.structs.asdict(summary)
    fields.pop("elapsed")
    return fields


async def resume(session: Session, store: Store, *, per_id: bool = False) -> BulkSummary:
    """A resume; ``per_id``: with per-id results, which reads the covered lines first."""
    session._journal_store = store
    try:
        return await BulkRevocation(
            session,
            ACC,
            PROJ,
            BulkSource.from_text(TEXT),
            resume=True,
            concurrency=8,
            on_result=(lambda result: None) if per_id else None,
        ).run()
    finally:
        session._journal_store = store.inner


@pytest.mark.parametrize("held_max", [journaling.HELD_MAX, 3])
async def test_counts_and_requests_are_those_of_a_resume_reading_the_covered_lines_first(
    session: Session, env: SandboxServer, monkeypatch: pytest.MonkeyPatch, held_max: int
) -> None:
    monkeypatch.setattr(journaling, "HELD_MAX", held_max)  # 3: waits for the set mid-run
    await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(TEXT)).run()
    inner = session.journal_store
    sent_before = env.stats.requests
    plain = await resume(session, Store(inner, prefix=len(COVERED)), per_id=True)
    sent_plain = env.stats.requests - sent_before
    started: list[int] = []
    real_start = journaling.CoveredLines.start

    async def start(*args: Any) -> journaling.CoveredLines | None:
        started.append(1)
        return await real_start(*args)

    monkeypatch.setattr(journaling.CoveredLines, "start", start)
    sent_before = env.stats.requests
    ahead = await resume(session, Store(inner, prefix=len(COVERED)))
    assert started  # the covered lines were read aside
    assert env.stats.requests - sent_before == sent_plain == len(FORGOTTEN)
    assert counts(ahead) == counts(plain)
    assert plain.duplicates == 8 + 5 and plain.invalid_count == 2 and plain.skipped == 690 - 134


async def test_a_failed_lookup_never_sends_a_repeat_of_a_covered_line(
    session: Session, env: SandboxServer
) -> None:
    await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(TEXT)).run()
    inner = session.journal_store
    sent_before = env.stats.requests
    plain = await resume(session, Store(inner, prefix=len(COVERED), failing=True), per_id=True)
    sent_plain = env.stats.requests - sent_before
    sent_before = env.stats.requests
    ahead = await resume(session, Store(inner, prefix=len(COVERED), failing=True))
    # Every distinct id after the covered lines that no covered line holds, once.
    assert env.stats.requests - sent_before == sent_plain == 400
    assert counts(ahead) == counts(plain)


async def test_the_first_request_goes_out_before_the_covered_lines_are_read(
    session: Session, env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The covered lines' de-duplication waits (up to 20 s) for the first request."""
    await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(TEXT)).run()
    inner = session.journal_store
    before = env.stats.requests
    last_covered = COVERED[-1]
    requests_then: list[int] = []
    real = seen_ids.SeenIds.first_seen

    def first_seen(self: seen_ids.SeenIds, keys: Sequence[str]) -> list[bool]:
        if last_covered in keys and not requests_then:
            deadline = time.monotonic() + 120
            while env.stats.requests == before and time.monotonic() < deadline:
                if threading.current_thread() is threading.main_thread():
                    break  # read on the event loop: nothing can be sent meanwhile
                time.sleep(0.01)
            requests_then.append(env.stats.requests - before)
        return real(self, keys)

    monkeypatch.setattr(seen_ids.SeenIds, "first_seen", first_seen)
    summary = await resume(session, Store(inner, prefix=len(COVERED)))
    assert requests_then and requests_then[0] > 0
    assert summary.skipped + summary.nothing_standing == 690 and summary.duplicates == 13


async def test_a_resume_of_a_csv_input_counts_as_one_of_its_plain_lines(
    session: Session, env: SandboxServer
) -> None:
    """A CSV input is read whole by the engine (no covered lines read aside): its covered
    ids are counted skipped in bulk, with the same counts as the same ids one per line."""
    await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(TEXT)).run()
    inner = session.journal_store
    plain = await resume(session, Store(inner, prefix=len(COVERED)))
    csv = "visitorId,userAccountId\n" + "".join(
        f"{line},\n" if line else "\n" for line in COVERED + AFTER
    )
    await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(csv)).run()
    session._journal_store = Store(inner, prefix=len(COVERED) + 1)  # the header is line 1
    try:
        from_csv = await BulkRevocation(
            session, ACC, PROJ, BulkSource.from_text(csv), resume=True, concurrency=8
        ).run()
    finally:
        session._journal_store = inner
    fields = ("total", "skipped", "duplicates", "invalid_count", "nothing_standing", "withdrawn")
    assert {f: getattr(from_csv, f) for f in fields} == {f: getattr(plain, f) for f in fields}
    assert from_csv.skipped > 0 and from_csv.nothing_standing > 0
