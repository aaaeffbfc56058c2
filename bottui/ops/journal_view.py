"""The journal for people: filters, short readable fields, and export files.

Both faces read the journal through here: ``bottui journal`` prints
:func:`line` per entry, the Journal screen fills its table from the same
field functions, and both export with :func:`export`. Every function returns
raw text: the CLI cleans it before printing, the TUI wraps it with
``safe_text`` (targets, operators and ids are untrusted). A teammate's change
in words is :func:`who` and :func:`what` (the collision warning's and the live
feeds' words); :func:`own_origin` tells this machine's entries from theirs.

Entries are fit to show when :func:`read` returns them: the
tokens in use are masked in every text (a journal written before server text was scrubbed may
hold a token a server echoed) and lone surrogates, which older rows may hold
and which no UTF-8 output can carry, are U+FFFD (:func:`fit`).

Read page by page: what ``bottui journal`` streams and the Journal screen scrolls.

A journal may hold ten million entries, so no face ever reads "all of them"
into memory. Every read here asks the store for one bounded page
(:meth:`~bottui.store.journal.journal_records.JournalReader.page`, newest first, with
the store's opaque cursor) and hands it on before the next is read:

* :func:`read_page`: one page, each entry :func:`~bottui.ops.journal_view.fit`
  to show (tokens in use masked, lone surrogates replaced);
* :func:`read`: a bounded read, as a list;
* :class:`EntryStream`: pages one after another up to a limit (or to the
  end), holding one page at a time; afterwards it says how many were read
  and which id the next page starts below (``bottui journal --before ID``);
* :func:`export_stream`: a stream written to an export file as it is read.

The keyring's tokens of the slots the entries name are looked up once per
slot over a whole stream (:class:`~bottui.ops.token_slots.SlotTokens`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import difflib
import json
import threading
from collections.abc import AsyncGenerator, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from uuid import UUID

import msgspec

from bottui.api.errors import ValidationError
from bottui.api.tokens import server_json
from bottui.ops.durations import parse_duration
from bottui.ops.token_slots import SlotTokens
from bottui.plaintext import clean
from bottui.store.executor import run_blocking
from bottui.store.journal.journal_file import export_csv, export_jsonl
from bottui.store.journal.journal_records import (
    EntryId,
    EntryPage,
    EntryQuery,
    JournalEntry,
    JournalReader,
    Operation,
    Outcome,
    RunId,
)
from bottui.store.paging import Cursor
from bottui.store.store_errors import DatabaseUnavailable, StoreError
from bottui.store.utc import parse_time

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.store.keyring_tokens import TokenStore
    from bottui.store.team.read_rows import TeamEntry


#: Export formats, chosen from the file's extension unless given.
EXPORT_FORMATS: Final = ("jsonl", "csv")

_EXTENSIONS: Final = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv"}

#: Outcome filters that stand for several outcome words.
OUTCOME_GROUPS: Final[dict[str, frozenset[str]]] = {
    "succeeded": frozenset({Outcome.OK, Outcome.WITHDRAWN, Outcome.NOTHING_STANDING}),
    "failed": frozenset(
        {
            Outcome.API_ERROR,
            Outcome.NETWORK_ERROR,
            Outcome.UNUSABLE_BODY,
            Outcome.REFUSED,
            Outcome.INTERRUPTED,
            Outcome.NOT_SENT,  # like refused: nothing went out; --resume sends it
        }
    ),
    # Superseded: this attempt's own answer was lost; a later one settled the id.
    "unknown": frozenset({Outcome.UNKNOWN, Outcome.UNKNOWN_RETRIED, Outcome.SUPERSEDED}),
}

#: The word shown (and filtered on) for an entry without an outcome.
UNFINISHED: Final = "unfinished"

#: Short names of the operations, for narrow tables.
OPERATION_NAMES: Final[dict[str, str]] = {
    Operation.SET_LIMITER_ACTIVE: "limiter",
    Operation.SET_THRESHOLDS: "thresholds",
    Operation.REVOKE_GRANT: "revoke",
}


class JournalQuery(msgspec.Struct, frozen=True):
    """Which entries to read; every filter given must match.

    ``outcome`` is an outcome word (``ok``, ``api-error``, ...), ``unfinished``,
    or a group of :data:`OUTCOME_GROUPS`. ``since``/``until`` are ISO 8601
    (UTC without an offset): started at or after ``since``, before ``until``.
    ``before`` keeps entries older than that id (the next page of a read that
    stopped at ``#before``); ``run_id`` the entries of one bulk run.
    ``operator`` matches exactly, ``reason`` is a case-insensitive substring
    of the reason given. ``limit`` is how many to read at most (``None``:
    every one, page by page).
    """

    since: str | None = None
    until: str | None = None
    before: int | None = None
    profile: str | None = None
    account: str | None = None
    project: str | None = None
    operation: str | None = None
    outcome: str | None = None
    run_id: int | None = None
    limit: int | None = None
    operator: str | None = None
    reason: str | None = None


#: How far back a time typed as a duration ago may reach (``--since 400d``).
AGO_LIMIT: Final = timedelta(days=3650)

#: What a typed time may be, said when one is refused.
TIME_WORDS: Final = (
    "an ISO 8601 time (UTC unless it has an offset) or a duration ago: 2h, 30m, 1d, 1h30m"
)


def time_of(name: str, text: str, now: datetime) -> datetime:
    """A typed time: ISO 8601, or a duration before ``now`` (``2h``, ``1h30m``).

    The one grammar of ``bottui journal --since/--until`` and the Journal
    screen's filter (#27: the CLI refused the ``2h`` the TUI took).

    Raises:
        ValidationError: neither (exit 2).
    """
    try:
        return parse_time(text)
    except ValueError:
        pass
    try:
        return now - parse_duration(text, maximum=AGO_LIMIT)
    except ValueError:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise ValidationError(name, f"{shown!r} is not {TIME_WORDS}") from None


def _time(name: str, text: str | None, now: datetime | None) -> datetime | None:
    if text is None:
        return None
    return time_of(name, text, now or datetime.now(UTC))


def entry_query(query: JournalQuery, *, now: datetime | None = None) -> EntryQuery:
    """The store's query for ``query`` (outcome groups spelled out; a time typed
    as a duration ago counted from ``now``, the current time unless given).

    Raises:
        ValidationError: ``since`` or ``until`` is not a time, or ``until``
            is not after ``since`` (exit 2).
    """
    since = _time("--since", query.since, now)
    until = _time("--until", query.until, now)
    if since is not None and until is not None and until <= since:
        raise ValidationError(
            "--until", f"{query.until!r} is not after --since {query.since!r}: nothing can match"
        )
    outcome = query.outcome
    if outcome is not None:
        outcome_named(outcome)
    group = OUTCOME_GROUPS.get(outcome or "")
    outcomes: frozenset[str] | None = None
    if group is not None:
        outcomes = group
    elif outcome is not None and outcome != UNFINISHED:
        outcomes = frozenset({outcome})
    return EntryQuery(
        since=since,
        until=until,
        before=None if query.before is None else EntryId(query.before),
        profile=query.profile,
        account=query.account,
        project=query.project,
        operation=query.operation,
        outcomes=outcomes,
        unfinished=outcome == UNFINISHED,
        run_id=None if query.run_id is None else RunId(query.run_id),
        operator=query.operator,
        reason=query.reason,
    )


#: The fields of an entry that hold text (or JSON holding text).
_TEXT_FIELDS: Final = tuple(
    name
    for name in JournalEntry.__struct_fields__
    if name not in ("id", "pid", "undo_of", "run_id", "status", "duration_ms")
)


def fit(entry: JournalEntry) -> JournalEntry:
    """``entry`` with the tokens in use masked and lone surrogates as U+FFFD, in every text."""
    changed = {}
    for name in _TEXT_FIELDS:
        value = getattr(entry, name)
        fixed = server_json(value)
        if fixed != value:
            changed[name] = fixed
    # Most entries need nothing: no copy then (a stream fits millions).
    return msgspec.structs.replace(entry, **changed) if changed else entry


def outcome_named(name: str) -> str:
    """``name`` when it is an outcome word, a group of them, or ``unfinished``.

    Raises:
        ValidationError: anything else (exit 2): a misspelt word would
            otherwise match nothing and look like an empty journal.
    """
    words = [str(o) for o in Outcome]
    if name in words or name in OUTCOME_GROUPS or name == UNFINISHED:
        return name
    close = difflib.get_close_matches(name, [*OUTCOME_GROUPS, *words, UNFINISHED], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValidationError(
        "--outcome",
        f"{name!r} is not an outcome{hint}: one of {', '.join(OUTCOME_GROUPS)}, "
        f"{UNFINISHED}, or a word: {', '.join(words)}",
    )


def operation_named(name: str) -> str:
    """The operation for ``name``: its journal word or short name (``limiter``, ...).

    Raises:
        ValidationError: no such operation (exit 2).
    """
    for operation, short in OPERATION_NAMES.items():
        if name in (str(operation), short):
            return str(operation)
    known = ", ".join(f"{short} ({op})" for op, short in OPERATION_NAMES.items())
    raise ValidationError("--operation", f"{name!r} is not an operation: one of {known}")


def when(entry: JournalEntry) -> str:
    """``2026-11-21 03:00:00Z``: the start, to the second."""
    return entry.started_at[:19].replace("T", " ") + "Z"


def short_when(entry: JournalEntry) -> str:
    """``11-21 03:00:00``: the start in a narrow column (UTC)."""
    return entry.started_at[5:19].replace("T", " ")


def operation_text(entry: JournalEntry, *, short: bool = False) -> str:
    """The operation, and which entry an undo undoes."""
    name = OPERATION_NAMES.get(entry.operation, entry.operation) if short else entry.operation
    if entry.undo_of is not None:
        name += f" (undo #{entry.undo_of})"
    return name


def target_id(entry: JournalEntry) -> str:
    """The id the change was aimed at: limiter or dimension id, or the grant's subject."""
    target = entry.target
    if not isinstance(target, dict):
        return "" if target is None else str(target)
    for key in ("rate_limiter_id", "dimension_id"):
        value = target.get(key)
        if isinstance(value, str):
            return value
    parts = []
    for key, label in (("visitorId", "visitor"), ("userAccountId", "user")):
        value = target.get(key)
        if isinstance(value, str):
            parts.append(f"{label} {value}")
    if parts:
        return ", ".join(parts)
    return json.dumps(target, ensure_ascii=False, sort_keys=True)


def target_what(entry: JournalEntry) -> str:
    """``rate limiter rl-login`` or ``dimension bot-score``: what a change aimed at."""
    noun = "rate limiter" if "rate_limiter_id" in (entry.target or {}) else "dimension"
    return f"{noun} {target_id(entry)}"


def requested(entry: JournalEntry) -> str:
    """What was asked for, in words: ``ON``/``OFF``, ``block 0.9 challenge 0.6``."""
    return value_text(entry.request_body)


def value_text(value: Any) -> str:
    """A limiter or threshold value (``{"isActive": ...}`` or the threshold body) in words."""
    if not isinstance(value, dict):
        return "?" if value is None else str(value)
    if isinstance(value.get("isActive"), bool):
        return "ON" if value["isActive"] else "OFF"
    if "blockThreshold" in value or "challengeThreshold" in value:
        return (
            f"{value.get('name', '?')}: block {_number(value.get('blockThreshold'))}, "
            f"challenge {_number(value.get('challengeThreshold'))}"
        )
    return ""


def _number(value: Any) -> str:
    if value is None:
        return "?"
    return value if isinstance(value, str) else json.dumps(value)


def target_text(entry: JournalEntry) -> str:
    """``rl-login -> OFF``: the target and what was requested of it."""
    aim = target_id(entry)
    change = requested(entry)
    if change and entry.operation == Operation.SET_LIMITER_ACTIVE:
        return f"{aim} -> {change}"
    return aim


def outcome_text(entry: JournalEntry) -> str:
    """The outcome word, or ``UNFINISHED`` (capitals: it reads without colour)."""
    if entry.outcome is None:
        return UNFINISHED.upper()
    if entry.outcome == Outcome.SUPERSEDED and isinstance(entry.result, dict):
        newer = entry.result.get("supersededBy")
        if isinstance(newer, int) and not isinstance(newer, bool):
            return f"{entry.outcome} by #{newer}"
    return entry.outcome


def status_text(entry: JournalEntry) -> str:
    """The HTTP status, or empty."""
    return "" if entry.status is None else str(entry.status)


def duration_text(entry: JournalEntry) -> str:
    """``12 ms``, ``1.4 s``, or empty when unfinished."""
    ms = entry.duration_ms
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.1f} s"


#: Characters of a reason a table or a line shows (the whole one: --json, the detail view).
REASON_SHOWN: Final = 48


def reason_text(entry: JournalEntry, width: int = REASON_SHOWN) -> str:
    """The reason on one line, cut to ``width`` characters with ``…``; empty when none."""
    reason = entry.reason
    if not reason:
        return ""
    one_line = " ".join(reason.split())
    if len(one_line) <= width:
        return one_line
    return one_line[: max(0, width - 1)] + "…"


#: Hex digits of a journal's origin in a teammate's entry's short id.
SHORT_ORIGIN: Final = 8

#: What a face says once about entries journaled here before the team store.
NOT_SHARED_NOTE: Final = (
    "entries marked (not shared) were journaled here before the team store was configured"
)


def entry_ref(entry: JournalEntry) -> str:
    """How an entry is named to a person: one namespace for what is typed.

    This machine's entries by their local number, ``#7``, which never changes
    once shown (a store configured later does not renumber them: #27); a
    teammate's entry read from the shared journal by a short form of its event
    id, ``3f2a9c1b:17`` (its journal's origin and its number there), which no
    ``--before`` or undo takes for a local number.
    """
    if entry.local_id is not None and entry.origin:
        return f"{entry.origin.replace('-', '')[:SHORT_ORIGIN]}:{entry.local_id}"
    return f"#{entry.id}"


def entry_key(entry: JournalEntry) -> str:
    """A key no two entries of one view share (a table's row key): local numbers
    and teammates' event ids are two namespaces."""
    if entry.local_id is not None and entry.origin:
        return f"event:{entry.origin}:{entry.local_id}"
    return str(entry.id)


def run_key(entry: JournalEntry) -> str | None:
    """The key of the bulk run ``entry`` belongs to (None: none): run ids are
    per journal file, so a teammate's run #1 is not this machine's run #1."""
    if entry.run_id is None:
        return None
    if entry.local_id is not None and entry.origin:
        return f"{entry.origin}:{entry.run_id}"
    return str(entry.run_id)


def run_ref(entry: JournalEntry) -> str:
    """``run #4`` of this machine's journal; a teammate's ``run 3f2a9c1b:4``."""
    if entry.local_id is not None and entry.origin:
        return f"run {entry.origin.replace('-', '')[:SHORT_ORIGIN]}:{entry.run_id}"
    return f"run #{entry.run_id}"


def sharing_text(entry: JournalEntry) -> str:
    """``not shared`` (older than the store), ``not yet shared`` (waiting), or ""."""
    if entry.shared is not False:
        return ""
    return "not shared" if entry.before_store else "not yet shared"


def line(entry: JournalEntry) -> str:
    """One readable line (not cleaned: the caller cleans it)."""
    outcome = outcome_text(entry)
    if entry.status is not None:
        outcome += f" {entry.status}"
    parts = [
        when(entry),
        entry.operator,
        entry.profile,
        operation_text(entry),
        f"{entry.account}/{entry.project}",
        target_text(entry),
        outcome,
    ]
    duration = duration_text(entry)
    if duration:
        parts.append(duration)
    why = reason_text(entry)
    if why:
        parts.append(f"why: {why}")
    sharing = sharing_text(entry)
    if sharing:
        parts.append(f"({sharing})")
    return "  ".join(parts) + f"  {entry_ref(entry)}"


def export_format(path: Path, fmt: str | None = None) -> str:
    """``jsonl`` or ``csv``: ``fmt`` when given, else from the file's extension.

    Raises:
        ValidationError: neither says which (exit 2).
    """
    if fmt is not None:
        if fmt not in EXPORT_FORMATS:
            raise ValidationError("format", f"{fmt!r} is not one of: {', '.join(EXPORT_FORMATS)}")
        return fmt
    chosen = _EXTENSIONS.get(Path(path).suffix.lower())
    if chosen is None:
        raise ValidationError(
            "export file",
            f"cannot tell the format of {Path(path).name!r}: name it .jsonl or .csv "
            "(or pass --format jsonl|csv)",
        )
    return chosen


def export(
    entries: Iterable[JournalEntry], path: Path, fmt: str, *, overwrite: bool = False
) -> int:
    """Write ``entries`` to ``path`` (atomically) as ``fmt``, as they come; returns the count.

    An existing ``path`` is replaced only with ``overwrite``; a symlink never.

    Blocking: called on the store executor (:func:`export_stream`).

    Raises:
        StoreFileError: the file cannot be written (a previous file is kept).
    """
    if fmt == "csv":
        return export_csv(Path(path), entries, overwrite=overwrite)
    return export_jsonl(Path(path), entries, overwrite=overwrite)


#: Entries per store read of a stream: few round trips, a few MB at most in memory.
STREAM_PAGE: Final = 1000


async def read_page(
    journal: JournalReader,
    query: EntryQuery,
    *,
    limit: int,
    cursor: Cursor | None = None,
    slots: SlotTokens | None = None,
) -> EntryPage:
    """One page of ``query`` (at most ``limit`` entries) after ``cursor``, fit to show.

    Raises:
        JournalUnavailable: the journal cannot be read.
    """
    page = await journal.page(query, limit=limit, cursor=cursor)
    return await _fitted(page, slots or SlotTokens(None))


def _older(page: EntryPage, before: EntryId | None) -> EntryId | None:
    """The ``--before`` of the page after ``page``: a number of this machine's
    journal, the one namespace typed ids are read in (#27). A teammate's entry
    has none: the last of this machine's on the page stands for it (the next
    page may repeat a teammate's entry, never skip one)."""
    if page.next is None:
        return None
    mine = [e.id for e in page.entries if e.local_id is None]
    return EntryId(mine[-1]) if mine else before


class EntryStream:
    """The entries of ``query``, newest first, read one page at a time as they are used.

    Args:
        journal: The store to read.
        query: Which entries.
        limit: At most this many (``None``: to the end of the journal).
        tokens: The keyring, to mask the tokens of the entries' slots too.
        page_size: Entries per store read.

    After :meth:`pages` is exhausted, :attr:`count` is how many entries it
    gave and :attr:`older` the id to pass as ``--before`` for the entries
    after them (``None``: there are none).
    """

    def __init__(
        self,
        journal: JournalReader,
        query: EntryQuery,
        *,
        limit: int | None = None,
        tokens: TokenStore | None = None,
        page_size: int = STREAM_PAGE,
    ) -> None:
        self._journal = journal
        self._query = query
        self._limit = limit
        self._slots = SlotTokens(tokens)
        self._page_size = page_size
        #: Entries given so far.
        self.count = 0
        #: Entries older than the last given exist: the id the next page starts below.
        self.older: EntryId | None = None
        #: The newest entry given (``--follow`` goes on after it; None: none given).
        self.newest: EntryId | None = None
        #: Entries given that were journaled here before the team store and are not shared.
        self.not_shared = 0

    @property
    def filtered(self) -> bool:
        """True when a filter narrows the read: "none match" differs from "empty"."""
        return self._query != EntryQuery()

    async def pages(self) -> AsyncGenerator[tuple[JournalEntry, ...], None]:
        """Each page in turn (never empty); the caller may stop at any point.

        The next page is read while the caller uses this one (two pages in
        memory at most): the store's thread and the event loop work at once.
        """
        size = self._size()
        if size <= 0:
            return
        pending: asyncio.Future[EntryPage] | None = asyncio.ensure_future(
            self._journal.page(self._query, limit=size)
        )
        try:
            while pending is not None:
                raw = await pending
                pending = None
                if not raw.entries:
                    return
                if self.newest is None:
                    self.newest = EntryId(raw.entries[0].id)
                self.count += len(raw.entries)
                self.not_shared += sum(1 for e in raw.entries if e.before_store)
                self.older = _older(raw, self.older)
                size = self._size()
                if raw.next is not None and size > 0:
                    pending = asyncio.ensure_future(
                        self._journal.page(self._query, limit=size, cursor=raw.next)
                    )
                yield (await _fitted(raw, self._slots)).entries
        finally:
            if pending is not None:
                pending.cancel()
                # A read already under way ends in its thread; its error is nobody's.
                pending.add_done_callback(_quiet)

    def _size(self) -> int:
        """Entries to ask for next: a page, or what is left of the limit."""
        if self._limit is None:
            return self._page_size
        return min(self._page_size, self._limit - self.count)


def _quiet(future: asyncio.Future[EntryPage]) -> None:
    if not future.cancelled():
        future.exception()


async def _fitted(page: EntryPage, slots: SlotTokens) -> EntryPage:
    """``page`` with its entries fit to show, the tokens of new slots remembered first."""
    await slots.remember(page.entries)
    return EntryPage(tuple(fit(entry) for entry in page.entries), page.next)


async def export_stream(
    stream: EntryStream, path: Path, fmt: str, *, overwrite: bool = False
) -> int:
    """Write ``stream`` to ``path`` as ``fmt`` (atomically), page by page; returns the count.

    The file is written on the store executor (a blocking writer); it pulls
    each next page from this event loop when it needs it, so one page at a
    time is in memory whatever the journal's size.

    Raises:
        JournalUnavailable: the journal cannot be read (no file is left).
        StoreFileError: the file cannot be written (a previous file is kept).
    """
    loop = asyncio.get_running_loop()
    pages = stream.pages()
    # Set when this call stops waiting (cancelled): the writer must then fail,
    # so the half-written file is removed, not completed as if the journal ended.
    abandoned = threading.Event()

    async def next_page() -> tuple[JournalEntry, ...] | None:
        return await anext(pages, None)

    def wait(future: concurrent.futures.Future[tuple[JournalEntry, ...] | None]) -> None:
        # Woken now and then to notice an abandoned export while the loop is busy or gone.
        while not abandoned.is_set():
            try:
                future.result(timeout=0.25)
                return
            except concurrent.futures.TimeoutError:
                continue

    def entries() -> Iterator[JournalEntry]:
        while True:
            future = asyncio.run_coroutine_threadsafe(next_page(), loop)
            wait(future)
            # Checked after the wait too: a stream closed by the abandoning caller
            # ends as if the journal ended, and must not complete the file.
            if abandoned.is_set():
                future.cancel()
                raise ExportAbandoned("the export was cancelled")
            page = future.result()
            if page is None:
                return
            yield from page

    try:
        return await run_blocking(lambda: export(entries(), path, fmt, overwrite=overwrite))
    except BaseException:
        abandoned.set()
        raise
    finally:
        # A page still being read for the abandoned writer keeps the generator busy.
        with contextlib.suppress(RuntimeError):
            await pages.aclose()


class ExportAbandoned(Exception):
    """Raised in the writer of an export whose caller stopped waiting."""


async def read(
    journal: JournalReader, query: JournalQuery, *, tokens: TokenStore | None = None
) -> list[JournalEntry]:
    """The entries matching ``query`` (at most ``query.limit``), newest first, each :func:`fit`.

    A list: for a bounded read. A read of the whole journal streams (:class:`EntryStream`).

    Raises:
        ValidationError: ``since`` is not a time (exit 2).
        JournalUnavailable: the journal cannot be read.
    """
    stream = EntryStream(journal, entry_query(query), limit=query.limit, tokens=tokens)
    return [entry async for page in stream.pages() for entry in page]


# -- a teammate's change in words ------------------------------------------------------


def who(entry: TeamEntry) -> str:
    """``bob@bastion-2``: the operator, with the host unless the name has one."""
    operator = clean(entry.operator)
    return operator if "@" in operator or not entry.host else f"{operator}@{clean(entry.host)}"


def what(entry: TeamEntry) -> str:
    """``disabled rl-login on shop-prod``: the change in words, cleaned."""
    target: dict[str, Any] = entry.target if isinstance(entry.target, dict) else {}
    body: dict[str, Any] = entry.request_body if isinstance(entry.request_body, dict) else {}
    project = clean(entry.project)
    if entry.operation == "limiter.set-active":
        verb = "enabled" if body.get("isActive") is True else "disabled"
        return f"{verb} {clean(target.get('rate_limiter_id', '?'))} on {project}"
    if entry.operation == "thresholds.set":
        value = clean(value_text(body))
        return f"set {clean(target.get('dimension_id', '?'))} to {value} on {project}"
    if entry.operation == "grant.revoke":
        ids = " · ".join(clean(v) for v in target.values())
        return f"revoked the grant of {ids} on {project}"
    return f"{clean(entry.operation)} on {project}"


async def own_origin(session: Session) -> UUID | None:
    """The origin of this machine's journal file (None: no entry yet, or unreadable)."""
    try:
        page = await session.journal_store.page(limit=1)
    except (DatabaseUnavailable, StoreError):
        return None
    origin = page.entries[0].origin if page.entries else None
    try:
        return None if origin is None else UUID(origin)
    except ValueError:
        return None
