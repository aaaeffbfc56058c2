"""The journal a team reads: the shared journal, plus this machine's entries not in it.

:class:`SharedJournal` answers ``page`` as the local
:class:`~bottui.store.journal.journal_store.SqliteJournalStore` does, so ``bottui journal``
(table, ``--json``, ``--jsonl``, ``--all``, every filter) and the Journal
screen read it unchanged. Its pages go in two phases:

1. this machine's entries not yet pushed (newest first, above the push
   cursor; each marked ``shared=False``: "not yet shared", ``"shared": false``);
2. then, merged newest first by start time, the shared journal (every entry
   ``shared=True``) and this machine's entries journaled before the store was
   configured that the store does not hold (``shared=False``,
   ``before_store=True``: "not shared"; asked of the store page by page on
   the event id's index, so a backfill shows at once). A configured store
   never hides the local history (#27 item 3).

**Numbers.** An entry of this machine keeps its local number as ``id`` in
every view, shared or not: a ``#7`` a person noted stays ``#7`` once a store
is configured. A teammate's entry has no number here: its ``id`` is the
shared journal's (a row key, nothing typed) and its ``local_id`` is set,
which :func:`~bottui.ops.journal_view.entry_ref` shows as a short form of
its event id (``3f2a9c1b:17``). A typed id is read in one namespace only,
this machine's journal: ``--before ID`` bounds the local phases by id and
the shared journal by that entry's start time; a run id (``--run``) is this
machine's (the shared phase looks for it under this journal's origin).

When the store cannot be read at the first page, the pages are this
machine's journal alone (``on_down`` is told why, for the note a face shows).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Final
from uuid import UUID

import msgspec
from msgspec.structs import replace

from bottui.store.journal.journal_records import (
    DEFAULT_PAGE,
    EntryId,
    EntryPage,
    EntryQuery,
    JournalEntry,
)
from bottui.store.paging import Cursor
from bottui.store.team.page_query import TeamQuery, encode_cursor, from_entry_query
from bottui.store.team.read_rows import TeamEntry
from bottui.store.team.team_errors import StoreUnavailable
from bottui.store.utc import parse_time, stamp

if TYPE_CHECKING:
    from bottui.ops.team_push import TeamSync
    from bottui.store.journal.journal_store import SqliteJournalStore
    from bottui.store.team.pg_store import TeamStore

_LOCAL: Final = "local:"
#: Phase 2: the shared journal merged with the older local history (a JSON state).
_MERGED: Final = "merged:"
#: The store was down at the first page: this machine's journal alone, to the end.
_SOLO: Final = "solo:"


#: The fields a shared entry holds as the journal's entries do, copied as they are.
_COPIED: Final = tuple(
    name
    for name in JournalEntry.__struct_fields__
    if name in TeamEntry.__struct_fields__
    and name not in ("id", "local_id", "started_at", "finished_at", "host", "origin")
)


def from_team(entry: TeamEntry, *, mine: bool = False) -> JournalEntry:
    """A shared entry as the journal's readers know entries.

    ``mine``: written by this machine's journal, so it keeps its local number.
    """
    return JournalEntry(
        **{name: getattr(entry, name) for name in _COPIED},
        id=entry.local_id if mine else entry.id,
        started_at=stamp(entry.started_at),
        pid=0,
        finished_at=None if entry.finished_at is None else stamp(entry.finished_at),
        host=entry.host or None,
        origin=str(entry.origin),
        shared=True,
        local_id=None if mine else entry.local_id,
    )


class _Merge(msgspec.Struct, frozen=True):
    """Where phase 2 stands: after which shared row and below which local id."""

    team: str | None = None
    team_done: bool = False
    local: int | None = None
    local_done: bool = False

    def token(self) -> str:
        return _MERGED + json.dumps([self.team, self.team_done, self.local, self.local_done])

    @classmethod
    def parse(cls, token: str) -> _Merge:
        try:
            team, team_done, local, local_done = json.loads(token[len(_MERGED) :])
        except (ValueError, TypeError):
            raise ValueError("not a cursor of this journal") from None
        return cls(team, bool(team_done), None if local is None else int(local), bool(local_done))


def _when(entry: JournalEntry) -> datetime:
    return parse_time(entry.started_at)


class SharedJournal:
    """Pages of the shared journal with this machine's entries not in it.

    Args:
        local: This machine's journal.
        team: Its push to the team store (the push cursor; the store to read).
        store: The store to read when not ``team``'s (the TUI reads on its own
            loop while ``team`` pushes on a thread of its own).
    """

    def __init__(
        self,
        local: SqliteJournalStore,
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
        """Up to ``limit`` entries matching ``query``: local unshared first, then the rest.

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
            state = _Merge()
        elif token.startswith(_MERGED):
            state = _Merge.parse(token)
        else:
            raise ValueError("not a cursor of this journal")
        room = size - len(entries)
        if room <= 0:
            return EntryPage(tuple(entries), Cursor(state.token()))
        merged, after = await self._merged(wanted, room, state)
        # An entry pushed a moment ago may still be above the local cursor: shown once.
        mine = {e.event_id for e in entries}
        entries += [e for e in merged if e.event_id not in mine]
        return EntryPage(tuple(entries), None if after is None else Cursor(after.token()))

    async def _merged(
        self, wanted: EntryQuery, room: int, state: _Merge
    ) -> tuple[list[JournalEntry], _Merge | None]:
        """Up to ``room`` entries of phase 2, newest first, and where it stands after.

        Each side is read a window at a time from where the last entry taken
        from it was; what a window held beyond the page is read again next time.
        """
        origin_text = await self._team.origin()
        origin = None if origin_text is None else UUID(origin_text)
        team_query = await self._team_query(wanted, origin)
        older = self._older_query(wanted, await self._team.since_id())
        if older is None or origin is None:
            state = replace(state, local_done=True)
        out: list[JournalEntry] = []
        team: list[tuple[JournalEntry, Cursor]] = []
        local: list[JournalEntry] = []
        while len(out) < room:
            if not team and not state.team_done:
                found = await self._store.page(
                    team_query,
                    limit=room,
                    cursor=None if state.team is None else Cursor(state.team),
                )
                team = [
                    (from_team(e, mine=e.origin == origin), encode_cursor(e.started_at, e.id))
                    for e in found.entries
                ]
                state = replace(state, team_done=not team)
            if not local and not state.local_done:
                assert older is not None and origin is not None
                below = older.before if state.local is None else EntryId(state.local)
                if older.before is not None and below is not None:
                    below = EntryId(min(int(below), int(older.before)))
                page = await self._local.page(replace(older, before=below), limit=room)
                if not page.entries:
                    state = replace(state, local_done=True)
                    continue
                held = await self._store.held(origin, [e.id for e in page.entries])
                local = [
                    replace(e, shared=False, before_store=True)
                    for e in page.entries
                    if e.id not in held
                ]
                if not local:
                    # Every one is in the store, and shown from it: read on below them.
                    state = replace(state, local=page.entries[-1].id)
                    continue
            if not team and not local:
                break
            if local and (not team or _when(local[0]) > _when(team[0][0])):
                taken = local.pop(0)
                state = replace(state, local=taken.id)
            else:
                taken, after = team.pop(0)
                state = replace(state, team=after.token)
            out.append(taken)
        if not team and not local and state.team_done and state.local_done:
            return out, None
        return out, state

    async def _team_query(self, wanted: EntryQuery, origin: UUID | None) -> TeamQuery:
        """The shared journal's query; a typed ``--before ID`` bounds it by that
        local entry's start time (one namespace for typed ids: this machine's)."""
        team_query = from_entry_query(
            wanted,
            operator=wanted.operator,
            reason=wanted.reason,
            run_origin=origin if wanted.run_id is not None else None,
        )
        if wanted.before is not None:
            bound = await self._local.entry(wanted.before)
            if bound is not None:
                moment = parse_time(bound.started_at)
                until = moment if team_query.until is None else min(moment, team_query.until)
                team_query = replace(team_query, until=until)
        return team_query

    @staticmethod
    def _older_query(wanted: EntryQuery, since: int | None) -> EntryQuery | None:
        """This machine's entries journaled before the store was configured (None: none)."""
        if not since:
            return None
        below = since + 1 if wanted.before is None else min(int(wanted.before), since + 1)
        return replace(wanted, before=EntryId(below))

    async def close(self) -> None:
        """Close the local journal (the team store is the session's to close)."""
        await self._local.close()
