"""The journal read page by page: what ``bottui journal`` streams and the Journal screen scrolls.

A journal may hold ten million entries, so no face ever reads "all of them"
into memory. Every read here asks the store for one bounded page
(:meth:`~bottui.store.journal.protocol.JournalStore.page`, newest first, with
the store's opaque cursor) and hands it on before the next is read:

* :func:`read_page`: one page, each entry :func:`~bottui.ops.journal_view.fit`
  to show (tokens in use masked, lone surrogates replaced);
* :func:`read`: a bounded read, as a list;
* :class:`EntryStream`: pages one after another up to a limit (or to the
  end), holding one page at a time; afterwards it says how many were read
  and which id the next page starts below (``bottui journal --before ID``);
* :func:`export_stream`: a stream written to an export file as it is read.

The keyring's tokens of the slots the entries name are looked up once per
slot over a whole stream (:class:`~bottui.ops.tokens_in_use.SlotTokens`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol

from bottui.ops.journal_view import JournalQuery, entry_query, export, fit
from bottui.ops.tokens_in_use import SlotTokens
from bottui.store.journal.protocol import EntryId, EntryPage, EntryQuery
from bottui.store.journal.records import JournalEntry
from bottui.store.paging import Cursor

if TYPE_CHECKING:
    from bottui.store.journal.protocol import JournalStore
    from bottui.store.keyring_tokens import TokenStore


class Pages(Protocol):
    """What a stream reads: the ``page`` of a journal store (local, or shared with a team)."""

    async def page(
        self, query: EntryQuery | None = None, *, limit: int = ..., cursor: Cursor | None = None
    ) -> EntryPage:
        """Up to ``limit`` entries of ``query`` after ``cursor``, newest first."""
        ...


#: Entries per store read of a stream: few round trips, a few MB at most in memory.
STREAM_PAGE: Final = 1000


async def read_page(
    journal: Pages | JournalStore,
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
        journal: Pages | JournalStore,
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
    from bottui.store.executor import run_blocking

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
    journal: JournalStore, query: JournalQuery, *, tokens: TokenStore | None = None
) -> list[JournalEntry]:
    """The entries matching ``query`` (at most ``query.limit``), newest first, each :func:`fit`.

    A list: for a bounded read. A read of the whole journal streams (:class:`EntryStream`).

    Raises:
        ValidationError: ``since`` is not a time (exit 2).
        JournalUnavailable: the journal cannot be read.
    """
    stream = EntryStream(journal, entry_query(query), limit=query.limit, tokens=tokens)
    return [entry async for page in stream.pages() for entry in page]


__all__ = ["STREAM_PAGE", "EntryStream", "ExportAbandoned", "export_stream", "read", "read_page"]
