"""The journal a team reads: the shared journal, plus this machine's entries not yet shared.

:class:`SharedJournal` answers ``page`` as the local
:class:`~bottui.store.journal_store.JournalStore` does, so ``bottui journal``
(table, ``--json``, ``--jsonl``, ``--all``, every filter) and the Journal
screen read it unchanged. Its pages go in two phases:

1. this machine's entries not yet pushed (newest first, above the push
   cursor; each marked ``shared=False``: "not yet shared", ``"shared": false``);
2. then the shared journal, newest first, every entry ``shared=True`` (its
   ``id`` is the shared journal's; ``event_id`` stays ``ORIGIN:LOCAL_ID``).

A run id (``--run``) is this machine's: the shared phase looks for it under
this journal's origin. ``before`` (``--before ID``) is a local id: it bounds
the first phase only.

The cursor says which phase and where in it. Entries not yet shared come
first: they are, but for clock skew, the newest this operator can know of.
When the store cannot be read at the first page, the pages are this
machine's journal alone (``on_down`` is told why, for the note a face shows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Final
from uuid import UUID

from bottui.store.journal_records import JournalEntry
from bottui.store.journal_store import DEFAULT_PAGE, EntryPage, EntryQuery
from bottui.store.paging import Cursor
from bottui.store.team.errors import StoreUnavailable
from bottui.store.team.query import from_entry_query
from bottui.store.utc import stamp

if TYPE_CHECKING:
    from bottui.ops.team_sync import TeamSync
    from bottui.store.journal_store import JournalStore
    from bottui.store.team.records import TeamEntry
    from bottui.store.team.store import TeamStore

_LOCAL: Final = "local:"
_TEAM: Final = "team:"
#: The store was down at the first page: this machine's journal alone, to the end.
_SOLO: Final = "solo:"


def from_team(entry: TeamEntry) -> JournalEntry:
    """A shared entry as the journal's readers know entries."""
    return JournalEntry(
        id=entry.id,
        started_at=stamp(entry.started_at),
        operator=entry.operator,
        pid=0,
        profile=entry.profile,
        base_url=entry.base_url,
        operation=entry.operation,
        account=entry.account,
        project=entry.project,
        target=entry.target,
        request_body=entry.request_body,
        previous=entry.previous,
        undo_of=entry.undo_of,
        run_id=entry.run_id,
        item_key=entry.item_key,
        finished_at=None if entry.finished_at is None else stamp(entry.finished_at),
        outcome=entry.outcome,
        status=entry.status,
        result=entry.result,
        error=entry.error,
        duration_ms=entry.duration_ms,
        host=entry.host or None,
        reason=entry.reason,
        origin=str(entry.origin),
        shared=True,
        local_id=entry.local_id,
    )


class SharedJournal:
    """Pages of the shared journal with the local entries not yet shared first.

    Args:
        local: This machine's journal.
        team: Its push to the team store (the push cursor; the store to read).
        store: The store to read when not ``team``'s (the TUI reads on its own
            loop while ``team`` pushes on a thread of its own).
    """

    def __init__(
        self,
        local: JournalStore,
        team: TeamSync,
        *,
        store: TeamStore | None = None,
        on_down: Callable[[str], None] | None = None,
        on_up: Callable[[], None] | None = None,
    ) -> None:
        self._local = local
        self._team = team
        self._store = team.store if store is None else store
        self._on_down = on_down
        self._on_up = on_up

    async def page(
        self,
        query: EntryQuery | None = None,
        *,
        limit: int = DEFAULT_PAGE,
        cursor: Cursor | None = None,
    ) -> EntryPage:
        """Up to ``limit`` entries matching ``query``, local unshared first, then shared.

        Raises:
            StoreUnavailable: the team store could not be read.
            ValueError: ``cursor`` is not one of this journal's.
        """
        wanted = query or EntryQuery()
        size = max(1, int(limit))
        token = "" if cursor is None else cursor.token
        if token.startswith(_SOLO):
            return await self._solo(wanted, size, Cursor(token[len(_SOLO) :]))
        if cursor is None:
            try:
                page = await self._page(wanted, size, token)
            except StoreUnavailable as exc:
                # The store is down: this machine's journal alone, and whoever shows it says so.
                if self._on_down is not None:
                    self._on_down(exc.title)
                return await self._solo(wanted, size, None)
            if self._on_up is not None:
                self._on_up()
            return page
        return await self._page(wanted, size, token)

    async def _solo(self, wanted: EntryQuery, size: int, inner: Cursor | None) -> EntryPage:
        page = await self._local.page(wanted, limit=size, cursor=inner)
        after = None if page.next is None else Cursor(_SOLO + page.next.token)
        return EntryPage(page.entries, after)

    async def _page(self, wanted: EntryQuery, size: int, token: str) -> EntryPage:
        entries: list[JournalEntry] = []
        if not token or token.startswith(_LOCAL):
            inner = Cursor(token[len(_LOCAL) :]) if token else None
            pushed = await self._team.pushed_id()
            if pushed is not None:
                page = await self._local.page(wanted, limit=size, cursor=inner)
                fresh = [e for e in page.entries if e.id > pushed]
                entries += [replace(e, shared=False) for e in fresh]
                if len(fresh) == len(page.entries) and page.next is not None:
                    return EntryPage(tuple(entries), Cursor(_LOCAL + page.next.token))
            token = _TEAM
        elif not token.startswith(_TEAM):
            raise ValueError("not a cursor of this journal")
        room = size - len(entries)
        if room <= 0:
            return EntryPage(tuple(entries), Cursor(_TEAM))
        rest = token[len(_TEAM) :]
        origin = await self._team.origin() if wanted.run_id is not None else None
        team_query = from_entry_query(
            wanted,
            operator=wanted.operator,
            reason=wanted.reason,
            run_origin=None if origin is None else UUID(origin),
        )
        found = await self._store.page(
            team_query, limit=room, cursor=Cursor(rest) if rest else None
        )
        # An entry pushed a moment ago may still be above the local cursor: shown once.
        mine = {e.event_id for e in entries}
        entries += [e for e in map(from_team, found.entries) if e.event_id not in mine]
        after = None if found.next is None else Cursor(_TEAM + found.next.token)
        return EntryPage(tuple(entries), after)

    async def close(self) -> None:
        """Close the local journal (the team store is the session's to close)."""
        await self._local.close()


__all__ = ["SharedJournal", "from_team"]
