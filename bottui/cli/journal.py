"""``bottui journal``: read the audit journal of every change, or export it."""

from __future__ import annotations

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args, UsageError
from bottui.plaintext import show_id


async def cmd_journal(args: Args, out: Output) -> int:
    """``bottui journal [--since ISO] [--project P] [--unfinished] [--export FILE]``.

    Every profile's entries unless ``--profile`` (or ``--account``/``--project``) is given.
    """
    from pathlib import Path

    from bottui.ops import journal_view

    if args.format and not args.export:
        raise UsageError("Invalid command line", "--format goes with --export FILE")
    fmt = journal_view.export_format(Path(args.export), args.format) if args.export else None
    operation = journal_view.operation_named(args.operation) if args.operation else None
    query = journal_view.JournalQuery(
        since=args.since,
        profile=args.profile,
        account=args.account,
        project=args.project,
        operation=operation,
        outcome="unfinished" if args.unfinished else args.outcome,
        limit=args.limit,
    )
    # Not a session: the journal is read as it is, so --profile may name a
    # profile that no longer exists in the config.
    from bottui.store.journal_sqlite import SqliteJournalStore
    from bottui.store.paths import Locations
    from bottui.store.tokens import TokenStore

    journal = SqliteJournalStore.at(Locations.default())
    try:
        entries = await journal_view.read(journal, query, tokens=TokenStore(timeout=1.0))
    finally:
        await journal.close()
    if args.export:
        assert fmt is not None
        count = await journal_view.export_async(entries, Path(args.export), fmt)
        if out.as_json:
            out.document({"exported": count, "file": args.export, "format": fmt})
        else:
            out.line(f"exported {count} entries to {args.export} ({fmt})")
        return EXIT_OK
    if out.as_json:
        out.document({"count": len(entries), "entries": [e.to_json() for e in entries]})
        return EXIT_OK
    if not entries:
        out.line("no journal entries match")
    for entry in entries:
        out.line(show_id(journal_view.line(entry)))
    unfinished = sum(1 for e in entries if e.unfinished)
    if unfinished:
        out.message(
            f"{unfinished} UNFINISHED: started, no outcome (still running, or cut off by a "
            "crash); the service may or may not have applied them"
        )
    return EXIT_OK
