"""``bottui journal``: read the audit journal of every change, page by page, or export it.

The newest 50 entries by default (``--limit N``); when older ones match, the
last line on stderr is the command that shows them (``--before ID``).
``--all`` streams every match. Nothing ever reads the whole journal into
memory: the entries are written out one store page at a time
(:class:`bottui.ops.journal_view.EntryStream`, :mod:`bottui.cli.journal_stream`),
so a journal of ten million entries costs what a page costs, in time to the
first line and in memory.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Final

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args, UsageError

if TYPE_CHECKING:
    from bottui.ops.journal_view import EntryStream, JournalQuery
    from bottui.ops.team_push import TeamSync
    from bottui.store.journal.records import EntryQuery
    from bottui.store.journal.records import JournalReader as Pages

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
    from bottui.ops import journal_view

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
    from bottui.store.utc import stamp

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
    from pathlib import Path

    from bottui.ops import journal_view
    from bottui.ops.journal_view import EntryStream

    check_options(args)
    fmt = journal_view.export_format(Path(args.export), args.format) if args.export else None
    # Times and names are checked here: a bad one prints nothing but the error.
    query = journal_view.entry_query(journal_query(args))
    # Not a session: the journal is read as it is, so --profile may name a
    # profile that no longer exists in the config.
    from bottui.store.files import Locations
    from bottui.store.journal.store import SqliteJournalStore
    from bottui.store.keyring_tokens import TokenStore

    local = SqliteJournalStore.at(Locations.default())
    team = await team_journal(args, out)
    journal: Pages = local
    if team is not None:
        from bottui.ops.shared_journal import SharedJournal

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
            from bottui.cli.journal_follow import follow

            out.out.flush()
            # After the newest entry listed (0: none was), so one written between the
            # listing and the first poll is printed, not taken as the starting point.
            since = (stream.newest or 0) if team is None else None
            await follow(args, out, local, query, since=since)  # a store: follows the store
    finally:
        await local.close()
        if team is not None:
            await team.close()
    if stream.not_shared and not getattr(out.out, "reader_gone", False):
        from bottui.cli.store import backfill_command

        out.message(
            f"note: {stream.not_shared} {journal_view.NOT_SHARED_NOTE}; "
            f"`{backfill_command(args)}` shares those of its base URL, account and project"
        )
    if stream.older is not None and not getattr(out.out, "reader_gone", False):
        if team is not None:
            # A shared journal's id is not a --before of this machine's journal.
            out.message("older entries match: --all shows every one")
        elif args.export:
            out.message(f"older entries were not exported: --before {stream.older} goes on")
        else:
            out.message(f"older: {next_page_command(args, stream.older, query)}")
    return code


async def check_profile(name: str, journal: Pages) -> None:
    """Refuse a ``--profile`` that names no profile, as every command does (exit 2).

    Except a profile the journal has entries of: one removed from the config
    still has its history, and reading it is what the journal is for.
    """
    from bottui.store.config.config_file import ConfigStore
    from bottui.store.errors import ProfileNotFound, no_such_profile
    from bottui.store.files import Locations
    from bottui.store.journal.records import EntryQuery

    known = ConfigStore(Locations.default()).load().profiles
    if name in known:
        return
    page = await journal.page(EntryQuery(profile=name), limit=1)
    if not page.entries:
        raise ProfileNotFound(*no_such_profile(name, known))


async def team_journal(args: Args, out: Output) -> TeamSync | None:
    """With a team store configured and reachable: its push, done first (what waits goes).

    A store that is down (or cannot be named) is one note on stderr, and the
    local journal is read alone.
    """
    import os

    from bottui.ops.team_push import EXIT_BUDGET, TeamSync, open_team_store_url
    from bottui.store.config.config_file import ConfigStore
    from bottui.store.errors import StoreError
    from bottui.store.files import Locations
    from bottui.store.keyring_tokens import TokenStore
    from bottui.store.team import resolve_store_url

    locations = Locations.default()
    config = ConfigStore(locations).load()
    # --profile filters; it names the store only when the config has that profile.
    profile = (config.profile(args.profile) if args.profile else None) or config.profile()
    url = resolve_store_url(None if profile is None else profile.store, os.environ)
    if url is None:
        return None
    try:
        store = await open_team_store_url(url, os.environ, TokenStore(timeout=1.0))
    except StoreError as exc:
        out.message(f"note: team journal: {exc.title}; showing this machine's journal only")
        return None
    store.skips.on_skip = lambda row: out.message(f"warning: {row.line}")
    team = TeamSync(locations.journal_file, store)
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
    from bottui.cli import journal_stream

    if args.export:
        from pathlib import Path

        from bottui.ops.journal_view import export_stream

        assert fmt is not None
        count = await export_stream(stream, Path(args.export), fmt, overwrite=args.overwrite)
        if out.as_json:
            out.document({"exported": count, "file": args.export, "format": fmt})
        else:
            out.line(f"exported {count} entries to {args.export} ({fmt})")
        return EXIT_OK
    if args.jsonl:
        await journal_stream.write_jsonl(stream, out)
        return EXIT_OK
    if out.as_json:
        return await journal_stream.write_json(stream, out)
    await journal_stream.write_text(stream, out)
    return EXIT_OK


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "check_options",
    "check_profile",
    "cmd_journal",
    "journal_query",
    "limit_of",
    "next_page_command",
]
