"""``bottui journal --follow``: after the newest page, each new entry as it arrives (#13).

With a team store (``BOTTUI_STORE_URL`` or the profile's ``store``), the
shared journal is followed live (LISTEN/NOTIFY, :class:`~bottui.ops.live_feeds.LiveFeed`):
a teammate's change is printed within a second of its push. When the store
cannot be reached, one line on stderr says so and it keeps trying by itself;
another says when it is back. Without a team store, the local journal is
polled every :data:`POLL` seconds. Text lines are cleaned; ``--jsonl``
writes one compact JSON object per entry (:mod:`bottui.store.safe_export`).
Ctrl-C ends it: exit 130 (CONVENTIONS).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from bottui.cli.output import Output
from bottui.ops import journal_view
from bottui.ops.live_feeds import LiveFeed, describe
from bottui.plaintext import clean, show_id
from bottui.store import safe_export
from bottui.store.journal.records import previous_json

if TYPE_CHECKING:
    from bottui.cli.parser import Args
    from bottui.store.journal.records import EntryQuery
    from bottui.store.journal.store import SqliteJournalStore as JournalStore
    from bottui.store.team.pg_store import TeamStore
    from bottui.store.team.read_rows import TeamEntry, Unreadable

#: Seconds between two reads of the local journal (no team store).
POLL: Final = 1.0


def _stamp(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def team_json(entry: TeamEntry) -> dict[str, Any]:
    """A shared entry as one JSON object (the local ``--jsonl`` keys, and who wrote it)."""
    return {
        "id": entry.id,
        "event_id": f"{entry.origin}:{entry.local_id}",
        "started_at": _stamp(entry.started_at),
        "received_at": _stamp(entry.received_at),
        "operator": entry.operator,
        "db_role": entry.db_role,
        "host": entry.host,
        "profile": entry.profile,
        "reason": entry.reason,
        "base_url": entry.base_url,
        "operation": entry.operation,
        "account": entry.account,
        "project": entry.project,
        "target": entry.target,
        "request_body": entry.request_body,
        "previous": previous_json(entry.previous),
        "undo_of": entry.undo_of,
        "run_id": entry.run_id,
        "item_key": entry.item_key,
        "finished_at": _stamp(entry.finished_at),
        "outcome": entry.outcome,
        "status": entry.status,
        "shared": True,
    }


def team_line(entry: TeamEntry) -> str:
    """``2026-11-24 03:12:05  bob@bastion-2 disabled rl-login on shop-prod · INC-4312``."""
    stamp = entry.started_at.strftime("%Y-%m-%d %H:%M:%S")
    return f"{stamp}  {describe(entry)}  [{clean(entry.outcome or 'no outcome yet')}]"


def _matches(entry: TeamEntry, args: Args) -> bool:
    pairs = (
        (args.account, entry.account),
        (args.project, entry.project),
        (args.operator, entry.operator),
        (args.profile, entry.profile),
    )
    if any(wanted is not None and wanted != have for wanted, have in pairs):
        return False
    return args.reason is None or args.reason.lower() in (entry.reason or "").lower()


async def store_url(args: Args) -> str | None:
    """The team store's URL: ``BOTTUI_STORE_URL``, else the profile's (``--profile`` or current)."""
    from bottui.store.config.async_facade import AsyncConfigStore
    from bottui.store.files import Locations
    from bottui.store.team import resolve_store_url

    from_env = resolve_store_url(None, os.environ)
    if from_env:
        return from_env
    config = await AsyncConfigStore(Locations.default()).load()
    profile = config.profile(args.profile) if args.profile else config.profile()
    return None if profile is None else profile.store


class _Printer:
    def __init__(self, args: Args, out: Output) -> None:
        self._args = args
        self._out = out

    def write(self, lines: Sequence[str]) -> None:
        if lines:
            self._out.out.write("".join(line + "\n" for line in lines))
            self._out.out.flush()

    async def shared(self, entries: Sequence[TeamEntry]) -> None:
        chosen = [e for e in entries if _matches(e, self._args)]
        if self._args.jsonl:
            self.write([safe_export.dumps(team_json(e), separators=(",", ":")) for e in chosen])
        else:
            self.write([team_line(e) for e in chosen])

    def skipped(self, row: Unreadable) -> None:
        self._out.message(f"warning: {row.line}")
        self._out.err.flush()

    async def state(self, reason: str | None) -> None:
        if reason is None:
            self._out.message("team store reachable again: following")
        else:
            self._out.message(f"team store unavailable: {reason}; trying again")
        self._out.err.flush()


async def follow(
    args: Args,
    out: Output,
    journal: JournalStore,
    query: EntryQuery,
    *,
    since: int | None = None,
) -> None:
    """Print new entries until interrupted (never returns normally).

    ``since``: the newest entry the listing before showed (the local journal is
    followed from there); None: from the newest entry when following starts.
    """
    printer = _Printer(args, out)
    url = await store_url(args)
    if url:
        from bottui.ops.team_push import open_team_store_url
        from bottui.store.keyring_tokens import TokenStore

        store: TeamStore = await open_team_store_url(url, os.environ, TokenStore(timeout=1.0))
        store.skips.on_skip = printer.skipped
        feed = LiveFeed(store, printer.shared, _quiet_first(printer))
        try:
            await feed.run()
        finally:
            await store.close()
    await _poll(printer, args, journal, query, since)


def _quiet_first(printer: _Printer) -> Any:
    # The first "reachable" is no news; every later change of state is said.
    said = False

    async def state(reason: str | None) -> None:
        nonlocal said
        if reason is None and not said:
            said = True
            return
        said = True
        await printer.state(reason)

    return state


async def _poll(
    printer: _Printer, args: Args, journal: JournalStore, query: EntryQuery, since: int | None
) -> None:
    if since is None:
        newest = await journal.page(query, limit=1)
        since = newest.entries[0].id if newest.entries else 0
    mark = since
    while True:
        await asyncio.sleep(POLL)
        page = await journal.page(query, limit=200)
        fresh = sorted((e for e in page.entries if e.id > mark), key=lambda e: e.id)
        if not fresh:
            continue
        mark = fresh[-1].id
        if args.jsonl:
            printer.write([safe_export.dumps(e.to_json(), separators=(",", ":")) for e in fresh])
        else:
            printer.write([show_id(journal_view.line(e)) for e in fresh])


__all__ = ["POLL", "follow", "store_url", "team_json", "team_line"]
