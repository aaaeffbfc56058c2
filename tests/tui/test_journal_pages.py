"""The Journal screen holds pages, not the journal (#12): the first page, then more on demand.

No timing: each test counts the store's page reads (:meth:`SqliteJournalStore.page`
wrapped) or the rows shown. The journal is a real SQLite file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.store.journal.journal_records import EntryPage, Operation, StartRecord
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.tui.app import BottuiApp
from bottui.tui.screens.journal import FIRST_PAGE, MORE_PAGE
from tests.fixtures.stores import journal_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import plain, settle
from tests.tui.test_journal import rows, table, to_journal

PROJ = "shop-prod"
MakeApp = Callable[..., BottuiApp]


def fill(session: Session, n: int, *, finished: bool = True) -> list[int]:
    """``n`` limiter changes of the session's profile in the current project, oldest first."""
    journal = journal_of(session)
    try:
        writer = journal.batch(interval=0)
        ids = writer.start_many(
            [
                StartRecord(
                    profile=session.settings.inventory_scope,
                    base_url=session.base_url,
                    operation=Operation.SET_LIMITER_ACTIVE,
                    account=DEMO_ACCOUNT,
                    project=PROJ,
                    target={"rate_limiter_id": f"rl-{i}"},
                    request_body={"isActive": bool(i % 2)},
                )
                for i in range(n)
            ]
        )
        if finished:
            for entry_id in ids[1::2]:
                writer.finish(entry_id, outcome="ok", status=200)
        writer.close()
    finally:
        journal.close()
    return ids


@dataclass
class Reads:
    """The page reads of the store: (limit, whether after a cursor, entries given)."""

    pages: list[tuple[int, bool, int]] = field(default_factory=list)
    #: While set, reads after a cursor wait for it to be released.
    gate: asyncio.Event | None = None


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Reads]:
    seen = Reads()
    real = SqliteJournalStore.page

    async def page(self: SqliteJournalStore, *args: Any, **kwargs: Any) -> EntryPage:
        older = kwargs.get("cursor") is not None
        if older and seen.gate is not None:
            await seen.gate.wait()
        found = await real(self, *args, **kwargs)
        seen.pages.append((int(kwargs.get("limit", 0)), older, len(found.entries)))
        return found

    monkeypatch.setattr(SqliteJournalStore, "page", page)
    yield seen


def filters(pilot: Pilot[Any]) -> str:
    return plain(pilot.app.screen.query_one("#journal-filters", Static))


async def test_the_first_page_then_the_next_when_the_cursor_nears_the_end(
    make_snap_app: MakeApp, reads: Reads
) -> None:
    app = make_snap_app()
    ids = fill(app.session, FIRST_PAGE + 150)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await to_journal(pilot)
        assert table(app).row_count == FIRST_PAGE
        assert "newest 100 shown, older on m" in filters(pilot)
        # Bounded first-page reads only (the screen may read it twice as it opens).
        assert reads.pages and set(reads.pages) == {(FIRST_PAGE, False, FIRST_PAGE)}
        await pilot.press("ctrl+end")  # the last row: the next page is read and added below
        await settle(pilot)
        assert (MORE_PAGE, True, 150) in reads.pages
        shown = [entry.id for entry in table(app).entries]
        assert shown == ids[::-1]
        assert table(app).cursor_row == FIRST_PAGE - 1  # the cursor stayed on its row
        assert filters(pilot).endswith(f"· {len(ids)} shown")
        await pilot.press("m")  # nothing older
        await settle(pilot)
        assert list(app._notifications)[-1].message == "No older entries."
        assert len(rows(app)) == len(ids)


async def test_m_reads_the_next_page_and_a_reload_keeps_what_was_loaded(
    make_snap_app: MakeApp, reads: Reads
) -> None:
    app = make_snap_app()
    ids = fill(app.session, 2 * FIRST_PAGE + MORE_PAGE)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await to_journal(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert table(app).row_count == FIRST_PAGE + MORE_PAGE
        table(app).move_cursor(row=FIRST_PAGE + 5, animate=False)
        await settle(pilot)
        selected = table(app).selected
        reads.pages.clear()
        await pilot.press("r")
        await settle(pilot)
        assert reads.pages[0][:2] == (FIRST_PAGE + MORE_PAGE, False)
        assert table(app).selected == selected
        assert [entry.id for entry in table(app).entries] == ids[::-1][: table(app).row_count]


async def test_a_page_of_filters_changed_meanwhile_is_dropped(
    make_snap_app: MakeApp, reads: Reads
) -> None:
    app = make_snap_app()
    fill(app.session, 3 * FIRST_PAGE)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await to_journal(pilot)
        reads.gate = asyncio.Event()
        await pilot.press("m")  # waits at the gate
        await pilot.pause()
        await pilot.press("f")  # outcome: unfinished; answered while the older page waits
        for _ in range(100):
            await pilot.pause()
            if "Outcome unfinished" in filters(pilot):
                break
        assert "Outcome unfinished (f)" in filters(pilot)
        unfinished_rows = table(app).row_count
        reads.gate.set()
        await settle(pilot)
        assert (MORE_PAGE, True, MORE_PAGE) in reads.pages  # read, then dropped
        assert table(app).row_count == unfinished_rows == FIRST_PAGE
        assert all(row[4] == "! UNFINISHED" for row in rows(app))
