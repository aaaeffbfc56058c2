"""#12: ``--resume`` after a crash: lost outcomes, closing records, per-chunk lookups.

A crash (``kill -9``) leaves started entries without an outcome: their ids
may or may not have been withdrawn. Here the crash is made by hand in the
journal (the same rows a killed run leaves); ``test_kill9.py`` does it with a
real process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.input import BulkSource, subject_key
from bottui.ops.bulk.report import ItemResult, ItemStatus, summary_lines
from bottui.ops.session import Session, Settings
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import ItemState, Operation
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.keyring_tokens import TokenStore
from bottui.tui.widgets.bulk_words import unsettled
from tests.fixtures.sandbox import ACC, PROJ

STANDING = "vis_7Hq2kP9xLm"  # a demo grant on shop-prod
TEXT = f"{STANDING}\nvis_lost\nvis_done\nvis_new\n"


@pytest.fixture
async def session(env: SandboxServer) -> AsyncIterator[Session]:
    s = Session(
        Locations.default(), Settings(profile_name=None, base_url=env.base_url), TokenStore()
    )
    yield s
    await s.aclose()


def crash_left(session: Session, text: str) -> dict[str, int]:
    """The journal a killed run of ``text`` leaves: ``vis_done`` settled, the
    others' entries unfinished (``vis_done`` has an unfinished one too, from an
    older attempt); the entry id of each unfinished one."""
    source = BulkSource.from_text(text)
    with Journal(session.locations.journal_file) as journal:
        run_id = journal.run(
            profile=session.settings.inventory_scope,
            account=ACC,
            project=PROJ,
            input_sha256=source.sha256,
            operation=Operation.REVOKE_GRANT,
        )
        left: dict[str, int] = {}
        for visitor in (STANDING, "vis_lost", "vis_done"):
            left[visitor] = journal.start(
                profile=session.settings.inventory_scope,
                base_url=session.base_url,
                operation=Operation.REVOKE_GRANT,
                account=ACC,
                project=PROJ,
                target={"visitorId": visitor},
                request_body={"subject": {"visitorId": visitor}},
                run_id=run_id,
                item_key=subject_key(visitor, None).hex(),
            )
        done = journal.start(
            profile=session.settings.inventory_scope,
            base_url=session.base_url,
            operation=Operation.REVOKE_GRANT,
            account=ACC,
            project=PROJ,
            target={"visitorId": "vis_done"},
            request_body={"subject": {"visitorId": "vis_done"}},
            run_id=run_id,
            item_key=subject_key("vis_done", None).hex(),
        )
        journal.finish(done, outcome="nothing-standing", status=200)
    return left


async def resume(session: Session, text: str, **options: Any) -> tuple[Any, list[ItemResult]]:
    results: list[ItemResult] = []
    run = BulkRevocation(
        session, ACC, PROJ, BulkSource.from_text(text), resume=True, on_result=results.append
    )
    return await run.run(), results


async def test_lost_outcomes_are_unknown_retried_and_their_entries_closed(
    session: Session, env: SandboxServer
) -> None:
    left = crash_left(session, TEXT)
    # The killed run's request for STANDING had arrived: the grant is gone.
    env.state.revoke(ACC, PROJ, STANDING, None)
    summary, results = await resume(session, TEXT)
    status = {r.subject.visitor_id: r.status for r in results}
    assert status == {
        STANDING: ItemStatus.UNKNOWN_RETRIED,
        "vis_lost": ItemStatus.UNKNOWN_RETRIED,  # whatever the service answers now
        "vis_done": ItemStatus.SKIPPED,
        "vis_new": ItemStatus.NOTHING_STANDING,
    }
    assert (summary.unknown, summary.skipped, summary.nothing_standing) == (2, 1, 1)
    lines = summary_lines(summary, "ids")
    assert ["unknown:", "2"] in [line.split() for line in lines]
    # Answered now: a resume would not send them again, and the summary says so.
    assert summary.unknown_retried == 2 and summary.to_json()["unknownRetried"] == 2
    assert any(line.startswith("unknown (retried): 2 id(s) sent again") for line in lines)
    assert not any("--resume sends them again" in line for line in lines)
    assert unsettled(summary) == 0  # the TUI offers no resume
    assert env.stats.requests == 3  # vis_done was not sent again

    with Journal(session.locations.journal_file) as journal:
        entries = journal.entries(run_id=summary.run_id)
    assert [e.id for e in entries if e.unfinished] == []  # none stays unfinished
    by_id = {e.id: e for e in entries}
    newest = {}
    for e in sorted(entries, key=lambda e: e.id):
        newest[e.target["visitorId"]] = e
    for visitor in (STANDING, "vis_lost"):
        closed = by_id[left[visitor]]
        assert closed.outcome == "superseded"
        assert closed.result == {"supersededBy": newest[visitor].id}
        assert newest[visitor].outcome == "unknown-retried"
    # vis_done was settled by an earlier attempt: its lost one is closed, pointing nowhere.
    assert by_id[left["vis_done"]].outcome == "superseded"
    assert by_id[left["vis_done"]].result == {"supersededBy": None}


async def test_unknown_retried_is_settled_for_the_next_resume(
    session: Session, env: SandboxServer
) -> None:
    crash_left(session, TEXT)
    await resume(session, TEXT)
    before = env.stats.requests
    summary, results = await resume(session, TEXT)
    assert env.stats.requests == before  # nothing sent: every id is settled
    assert {r.status for r in results} == {ItemStatus.SKIPPED}
    assert summary.skipped == 4 and summary.exit_code == 0


class CountingStore:
    """The journal store, counting the keys each ``item_states`` call asks for."""

    def __init__(self, inner: SqliteJournalStore) -> None:
        self.inner = inner
        self.asked: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def item_states(self, run_id: Any, keys: Any) -> dict[str, ItemState]:
        self.asked.append(len(keys))
        return await self.inner.item_states(run_id, keys)

    async def settled_prefix(self, run_id: Any) -> int | None:
        return None  # a run journaled before checkpoints: every id is looked up


async def test_resume_looks_ids_up_per_chunk(session: Session, env: SandboxServer) -> None:
    text = "".join(f"vis_c{n:05d}\n" for n in range(1000))
    first = await BulkRevocation(session, ACC, PROJ, BulkSource.from_text(text)).run()
    assert first.nothing_standing == 1000
    counting = CountingStore(session.journal_store)
    session._journal_store = counting  # type: ignore[assignment]
    summary = await BulkRevocation(
        session, ACC, PROJ, BulkSource.from_text(text), resume=True, concurrency=4
    ).run()
    assert summary.skipped == 1000 and env.stats.requests == 1000  # nothing sent again
    # Never the whole run at once: chunks of 256 ids, looked up as they are read.
    assert counting.asked == [256, 256, 256, 232]
