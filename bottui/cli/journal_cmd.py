"""``bottui journal``: read the audit journal of every change, page by page, or export it.

The newest 50 entries by default (``--limit N``); when older ones match, the
last line on stderr is the command that shows them (``--before ID``).
``--all`` streams every match. Nothing ever reads the whole journal into
memory: the entries are written out one store page at a time
(:class:`bottui.ops.journal_view.EntryStream`, :func:`write_text` and its kin),
so a journal of ten million entries costs what a page costs, in time to the
first line and in memory.

Three forms, each written page by page as it is read:

* text: one cleaned line per entry (:func:`bottui.ops.journal_view.line`),
  then a note on stderr when some are unfinished;
* ``--json``: ONE document, ``{"entries": [...], "count": N, "next_before": ID}``,
  written incrementally: the array is streamed, an entry at a time, and the
  count follows it. A read that fails half-way still ends the document, with
  its ``"error"`` inside, so stdout stays one valid JSON document;
* ``--jsonl``: one compact JSON object per line (the form a later
  ``journal --follow`` streams).

JSON goes through :mod:`bottui.store.safe_export` (C1 and bidi controls
escaped), each entry as :meth:`JournalEntry.to_json
<bottui.store.journal.journal_records.JournalEntry.to_json>` gives it. A reader that
stops early (``| head``) stops the reading too: no more pages are fetched.

``--follow``: after the newest page, each new entry as it arrives (#13).

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
import shlex
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from bottui.api.errors import EXIT_OK, BottuiError
from bottui.cli.output import Output, UsageError, render_error
from bottui.cli.parser import (
    Args,
    add_overwrite,
    command,
    entry_id,
    positive_int,
)
from bottui.cli.store_cmd import backfill_command
from bottui.ops import journal_view
from bottui.ops.journal_view import EntryStream, export_stream
from bottui.ops.live_feeds import LiveFeed, describe
from bottui.ops.shared_journal import SharedJournal
from bottui.ops.team_push import EXIT_BUDGET, TeamSync, open_team_store_url
from bottui.plaintext import clean, show_id
from bottui.store import safe_export
from bottui.store.config.config_file import ConfigStore
from bottui.store.files import Locations
from bottui.store.journal.journal_records import EntryQuery, previous_json
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.keyring_tokens import TokenStore
from bottui.store.store_errors import ProfileNotFound, StoreError, no_such_profile
from bottui.store.team import resolve_store_url
from bottui.store.utc import stamp

if TYPE_CHECKING:
    from bottui.ops.journal_view import JournalQuery
    from bottui.store.journal.journal_records import JournalReader
    from bottui.store.team.pg_store import TeamStore
    from bottui.store.team.read_rows import TeamEntry, Unreadable

#: Entries shown unless ``--limit`` or ``--all`` says otherwise.
DEFAULT_LIMIT: Final = 50
#: The largest ``--limit``; beyond it, ``--all`` streams (and ``--before`` pages).
MAX_LIMIT: Final = 10_000


def check_options(args: Args) -> None:
    """Refuse combinations that contradict each other (exit 2), before anything is read."""
    pairs = (
        (args.all and args.limit is not None, "--all and --limit: give one of them"),
        (args.json and args.jsonl, "--json and --jsonl: give one of them"),
        (args.jsonl and args.export, "--jsonl and --export: the export's format is --format"),
        (args.unfinished and args.outcome, "--unfinished and --outcome: an entry has one or not"),
        (args.format and not args.export, "--format goes with --export FILE"),
        (args.overwrite and not args.export, "--overwrite goes with --export FILE"),
        (args.follow and (args.json or args.export), "--follow writes text or --jsonl"),
        (args.follow and (args.all or args.before), "--follow starts from the newest page"),
    )
    for wrong, why in pairs:
        if wrong:
            raise UsageError("Invalid command line", why)
    if args.limit is not None and args.limit > MAX_LIMIT:
        raise UsageError(
            "Invalid command line",
            f"--limit is at most {MAX_LIMIT}: --all streams every entry, "
            "--before ID pages through them",
        )


def journal_query(args: Args) -> JournalQuery:
    """The filters of the command line (``--profile`` filters too: no session is opened)."""
    operation = journal_view.operation_named(args.operation) if args.operation else None
    return journal_view.JournalQuery(
        since=args.since,
        until=args.until,
        before=args.before,
        profile=args.profile,
        account=args.account,
        project=args.project,
        operation=operation,
        outcome=journal_view.UNFINISHED if args.unfinished else args.outcome,
        run_id=args.run_id,
        operator=args.operator,
        reason=args.reason,
    )


def limit_of(args: Args) -> int | None:
    """How many entries to read: ``None`` for every one (``--all``; an export without --limit)."""
    if args.all or (args.export and args.limit is None):
        return None
    return int(args.limit or DEFAULT_LIMIT)


def next_page_command(args: Args, before: int, query: EntryQuery | None = None) -> str:
    """The command line that shows the entries after the last one shown (shell-quoted).

    A time typed as a duration ago (``--since 2h``) is given as the moment it
    stood for in ``query``: run later, ``2h`` would mean another page.
    """
    since, until = args.since, args.until
    if query is not None:
        since = since if since is None or query.since is None else stamp(query.since)
        until = until if until is None or query.until is None else stamp(query.until)
    words = ["bottui", "journal"]
    for flag, value in (
        ("--profile", args.profile),
        ("--account", args.account),
        ("--project", args.project),
        ("--operation", args.operation),
        ("--outcome", args.outcome),
        ("--since", since),
        ("--until", until),
        ("--run", args.run_id),
        ("--operator", args.operator),
        ("--reason", args.reason),
        ("--limit", args.limit),
    ):
        if value is not None:
            words += [flag, str(value)]
    switches = (("--unfinished", args.unfinished), ("--json", args.json), ("--jsonl", args.jsonl))
    words += [flag for flag, on in switches if on]
    return shlex.join([*words, "--before", str(before)])


async def cmd_journal(args: Args, out: Output) -> int:
    """``bottui journal [FILTERS] [--limit N | --all] [--before ID] [--json|--jsonl|--export F]``.

    Every profile's entries unless ``--profile`` (or ``--account``/``--project``) is given.
    """
    check_options(args)
    fmt = journal_view.export_format(Path(args.export), args.format) if args.export else None
    # Times and names are checked here: a bad one prints nothing but the error.
    query = journal_view.entry_query(journal_query(args))
    # Not a session: the journal is read as it is, so --profile may name a
    # profile that no longer exists in the config.

    local = SqliteJournalStore.at(Locations.default())
    url = store_url(args)
    team = None if url is None else await team_journal(url, out)
    journal: JournalReader = local
    if team is not None:

        def down(reason: str) -> None:
            out.message(
                f"note: the team store is unreachable ({reason}); showing this machine's "
                "journal only"
            )

        journal = SharedJournal(local, team, on_down=down)
    stream = EntryStream(journal, query, limit=limit_of(args), tokens=TokenStore(timeout=1.0))
    try:
        if args.profile is not None:
            await check_profile(args.profile, journal)
        code = await _write(args, out, stream, fmt)
        if args.follow:
            out.out.flush()
            # After the newest entry listed (0: none was), so one written between the
            # listing and the first poll is printed, not taken as the starting point.
            since = (stream.newest or 0) if team is None else None
            # With a store, the store is followed.
            await follow(args, out, local, query, url=url, since=since)
    finally:
        await local.close()
        if team is not None:
            await team.close()
    if stream.not_shared and not _gone(out):
        out.message(
            f"note: {stream.not_shared} {journal_view.NOT_SHARED_NOTE}; "
            f"`{backfill_command(args)}` shares those of its base URL, account and project"
        )
    if stream.older is not None and not _gone(out):
        if team is not None:
            # A shared journal's id is not a --before of this machine's journal.
            out.message("older entries match: --all shows every one")
        elif args.export:
            out.message(f"older entries were not exported: --before {stream.older} goes on")
        else:
            out.message(f"older: {next_page_command(args, stream.older, query)}")
    return code


async def check_profile(name: str, journal: JournalReader) -> None:
    """Refuse a ``--profile`` that names no profile, as every command does (exit 2).

    Except a profile the journal has entries of: one removed from the config
    still has its history, and reading it is what the journal is for.
    """
    known = ConfigStore(Locations.default()).load().profiles
    if name in known:
        return
    page = await journal.page(EntryQuery(profile=name), limit=1)
    if not page.entries:
        raise ProfileNotFound(*no_such_profile(name, known))


async def team_journal(url: str, out: Output) -> TeamSync | None:
    """The team store at ``url``, when reachable: its push, done first (what waits goes).

    A store that is down (or cannot be named) is one note on stderr, and the
    local journal is read alone.
    """
    try:
        store = await open_team_store_url(url, os.environ, TokenStore(timeout=1.0))
    except StoreError as exc:
        out.message(f"note: team journal: {exc.title}; showing this machine's journal only")
        return None
    store.skips.on_skip = lambda row: out.message(f"warning: {row.line}")
    team = TeamSync(Locations.default().journal_file, store)
    state = await team.sync_within(EXIT_BUDGET)
    if state.down is not None:
        await team.close()
        out.message(
            f"note: the team store is unreachable ({state.down}); showing this machine's "
            f"journal only ({state.waiting} entries not yet shared)"
        )
        return None
    return team


async def _write(args: Args, out: Output, stream: EntryStream, fmt: str | None) -> int:
    if args.export:
        assert fmt is not None
        count = await export_stream(stream, Path(args.export), fmt, overwrite=args.overwrite)
        out.result(
            {"exported": count, "file": args.export, "format": fmt},
            f"exported {count} entries to {args.export} ({fmt})",
        )
        return EXIT_OK
    if args.jsonl:
        await write_jsonl(stream, out)
        return EXIT_OK
    if out.as_json:
        return await write_json(stream, out)
    await write_text(stream, out)
    return EXIT_OK


# -- the three forms of output ------------------------------------------------------------

#: What ``--json`` entries are indented by inside the document.
#: What moves an array of entries at depth 1 to depth 2.
_PAGE_INDENT: Final = "\n  "


def _gone(out: Output) -> bool:
    """The reader of stdout has gone: reading more pages would be for nobody."""
    return bool(getattr(out.out, "reader_gone", False))


async def write_text(stream: EntryStream, out: Output) -> None:
    """One readable line per entry; an unfinished count on stderr."""
    unfinished = 0
    async for page in stream.pages():
        for entry in page:
            out.line(show_id(journal_view.line(entry)))
            unfinished += entry.unfinished
        if _gone(out):
            return
    if stream.count == 0:
        out.line("no journal entries match" if stream.filtered else "the journal is empty")
    if unfinished:
        out.message(
            f"{unfinished} UNFINISHED: started, no outcome (still running, or cut off by a "
            "crash); the service may or may not have applied them"
        )


def jsonl(docs: Iterable[dict[str, Any]]) -> list[str]:
    """Each document as one compact JSON line (C1 and bidi controls escaped)."""
    return [safe_export.dumps(doc, separators=(",", ":")) for doc in docs]


async def write_jsonl(stream: EntryStream, out: Output) -> None:
    """One JSON object per line, nothing else on stdout."""
    async for page in stream.pages():
        out.out.write("".join(line + "\n" for line in jsonl(e.to_json() for e in page)))
        if _gone(out):
            return


async def write_json(stream: EntryStream, out: Output) -> int:
    """The one document of ``--json``, streamed; returns the exit code.

    The document is begun with the first page, so a journal that cannot be
    read at all gives the usual error document instead (raised).
    """
    write = out.out.write
    begun = False
    try:
        async for page in stream.pages():
            parts = [] if begun else ['{\n  "entries": [']
            if page:
                # The page as one array (json's indenting encoder is pure Python and
                # costly to set up: once per page, not per entry), its entries moved
                # in by two: the same text entry by entry (no raw line break inside
                # a JSON string). 1,000 entries: 0.15 s less.
                text = safe_export.dumps([entry.to_json() for entry in page], indent=2)
                inner = text[2:-2].replace("\n", _PAGE_INDENT)
                parts.append(("," if begun else "") + _PAGE_INDENT + inner)
                begun = True
            write("".join(parts))
            if _gone(out):
                return EXIT_OK
    except BottuiError as exc:
        if not begun:
            raise
        # Half a document is not JSON: end it, with the error inside.
        _end(out, stream, error=exc)

        render_error(Output(False, out.err, out.err), exc)
        return exc.exit_code
    if not begun:
        write('{\n  "entries": [')
    _end(out, stream)
    return EXIT_OK


def _end(out: Output, stream: EntryStream, *, error: BottuiError | None = None) -> None:
    """Close the array and the document: the count, the next page's ``--before``, any error."""
    tail: dict[str, object] = {"count": stream.count, "next_before": stream.older}
    if error is not None:
        tail.update(error.to_json())
    body = safe_export.dumps(tail, indent=2)  # '{\n  "count": ...\n}'
    closing = "\n  ]" if stream.count else "]"
    out.out.write(f"{closing},\n{body[2:]}\n")


# -- --follow ----------------------------------------------------------------------------

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


def store_url(args: Args) -> str | None:
    """The team store's URL: ``BOTTUI_STORE_URL``, else the profile's.

    ``--profile`` filters; it names the store only when the config has that
    profile (else the current one's).
    """
    config = ConfigStore(Locations.default()).load()
    profile = (config.profile(args.profile) if args.profile else None) or config.profile()
    return resolve_store_url(None if profile is None else profile.store, os.environ)


class _Printer:
    def __init__(self, args: Args, out: Output) -> None:
        self._args = args
        self._out = out
        self._said = False  # the first "reachable" is no news; every later state is said

    def write(self, lines: Sequence[str]) -> None:
        if lines:
            self._out.out.write("".join(line + "\n" for line in lines))
            self._out.out.flush()

    async def shared(self, entries: Sequence[TeamEntry]) -> None:
        chosen = [e for e in entries if _matches(e, self._args)]
        if self._args.jsonl:
            self.write(jsonl(team_json(e) for e in chosen))
        else:
            self.write([team_line(e) for e in chosen])

    def skipped(self, row: Unreadable) -> None:
        self._out.message(f"warning: {row.line}")
        self._out.err.flush()

    async def state(self, reason: str | None) -> None:
        said, self._said = self._said, True
        if reason is None and not said:
            return
        if reason is None:
            self._out.message("team store reachable again: following")
        else:
            self._out.message(f"team store unavailable: {reason}; trying again")
        self._out.err.flush()


async def follow(
    args: Args,
    out: Output,
    journal: SqliteJournalStore,
    query: EntryQuery,
    *,
    url: str | None,
    since: int | None = None,
) -> None:
    """Print new entries until interrupted (never returns normally).

    ``url``: the team store's, followed live; None: the local journal is
    polled. ``since``: the newest entry the listing before showed (the local
    journal is followed from there); None: from the newest entry when following starts.
    """
    printer = _Printer(args, out)
    if url:
        store: TeamStore = await open_team_store_url(url, os.environ, TokenStore(timeout=1.0))
        store.skips.on_skip = printer.skipped
        feed = LiveFeed(store, printer.shared, printer.state)
        try:
            await feed.run()
        finally:
            await store.close()
    await _poll(printer, args, journal, query, since)


async def _poll(
    printer: _Printer, args: Args, journal: SqliteJournalStore, query: EntryQuery, since: int | None
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
            printer.write(jsonl(e.to_json() for e in fresh))
        else:
            printer.write([show_id(journal_view.line(e)) for e in fresh])


def _add_journal(commands: Any) -> None:
    journal = command(
        commands,
        "journal",
        examples=[
            "bottui journal --project shop-prod --outcome failed",
            "bottui journal --since 2026-11-24T09:00 --all --jsonl",
            "bottui journal --follow",
        ],
        exits=[0, (2, "refused: invalid filters, or the journal cannot be read"), 3, 130],
        common={"profile", "account", "project", "json"},
    )
    journal.add_argument(
        "--since",
        metavar="TIME",
        help="entries started at or after: ISO 8601 (UTC unless an offset is given) or a "
        "duration ago (2h, 30m, 1d, 1h30m), as the Journal screen's filter",
    )
    journal.add_argument("--until", metavar="TIME", help="entries started before (same forms)")
    journal.add_argument("--unfinished", action="store_true", help="only entries with no outcome")
    journal.add_argument(
        "--operation",
        metavar="OPERATION",
        help="only this operation: limiter, thresholds or revoke",
    )
    journal.add_argument(
        "--outcome", metavar="OUTCOME", help="ok, api-error, ... or succeeded, failed, unknown"
    )
    journal.add_argument(
        "--operator", metavar="NAME", help="only changes made by this operator (exact)"
    )
    journal.add_argument(
        "--reason",
        metavar="TEXT",
        help="only changes whose reason holds TEXT (any case)",
    )
    journal.add_argument(
        "--run", dest="run_id", type=entry_id, metavar="RUN_ID", help="only one bulk run's entries"
    )
    journal.add_argument(
        "--limit",
        type=positive_int,
        metavar="N",
        help="at most N entries (default 50, at most 10000)",
    )
    journal.add_argument(
        "--before",
        type=entry_id,
        metavar="ENTRY_ID",
        help="only entries older than #ENTRY_ID: the next page",
    )
    journal.add_argument("--all", action="store_true", help="every entry that matches, streamed")
    journal.add_argument("--jsonl", action="store_true", help="JSON Lines: one entry per line")
    journal.add_argument(
        "--follow",
        action="store_true",
        help="after the newest page, print new entries as they arrive (Ctrl-C ends)",
    )
    journal.add_argument(
        "--export", metavar="FILE", help="write the entries to FILE (all unless --limit)"
    )
    journal.add_argument(
        "--format", choices=["jsonl", "csv"], help="export format (default: from FILE's extension)"
    )
    add_overwrite(journal, "replace the --export FILE")


#: The command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"journal": _add_journal}
