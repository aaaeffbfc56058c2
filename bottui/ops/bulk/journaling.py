"""The journal side of a bulk run: the run's identity, what ``--resume`` skips,
and the started, outcome and closing records of every id, written in batches.

``--resume`` never loads a run: the engine asks :meth:`JournalSink.states`
for the ids of each chunk just before sending it
(:meth:`~bottui.store.journal.journal_store.SqliteJournalStore.item_states`), so a resume
starts sending at once and its memory does not grow with the run. An id
whose earlier attempt left its entry unfinished (a crash lost the answer) is
sent again; once settled, :meth:`JournalSink.supersede` appends the closing
record of each such entry (outcome ``superseded``, pointing at the entry
that settled it): the journal stays append-only and no entry of a resumed
run stays unfinished.

While it runs, a run holds the liveness lock of its identity
(:mod:`bottui.store.files`): a second process running the same input is
refused, unless forced into a run of its own.

Every journal call is awaited on the async
:class:`~bottui.store.journal.journal_store.SqliteJournalStore` (its SQLite work runs on
the store executor's daemon threads), so a journal locked by another process
(up to its busy timeout) never stalls
the event loop, the requests in flight or a TUI. Started records are written
per chunk, before the chunk's ids are sent; outcomes are buffered here and
written by one pump task, in order, every :data:`FLUSH_SECONDS` or
:data:`FLUSH_COUNT` outcomes. A journal that cannot be opened or written
becomes a warning on the session: the run goes on and its exit code does
not change (CONVENTIONS.md).

The settled prefix of a bulk run: the input line up to which every id is settled.

Ids are sent out of order (many in flight) but read, looked up and journaled
in chunks, in input order. :class:`SettledPrefix` keeps the chunks not yet
wholly settled; when the oldest ones are, the prefix moves to their last
line. An id that ends otherwise than settled for ``--resume`` (failed,
unknown, not sent, not journaled) stops the prefix for the rest of the run:
a later resume must look it up and send it again.

The engine hands the prefix to the journal as a checkpoint (through the same
writer and queue as the outcomes, after them), so a resume skips the lines
it covers without asking the journal about each id.

A resume's covered lines, read on a thread of their own while the lines after them are sent.

The newest checkpoint of a run says every id up to input line ``L`` is
settled. A resume still owes the exact counts of those lines (valid, invalid,
repeated) and, above all, exact de-duplication: an id after line ``L`` that
repeats one of the covered lines is a duplicate, never sent. Reading and
deduplicating the covered lines costs about 2 µs per id (2 s at 1,000,000),
so instead of doing it before the first request, :class:`CoveredLines`
does it on a thread of its own (its own reader and its own on-disk set of
keys, :class:`~bottui.store.seen_ids.SeenIds`) while the engine reads on from
the byte offset of line ``L + 1`` and sends.

Why sending before that set is complete stays exact: every id on a covered
line is settled in the journal *for this run* (that is what the checkpoint
says, and it is written with or after those outcomes). So an id after line
``L`` that the journal's lookup finds unsettled, or does not know, is on no
covered line: it is sent at once. One the journal finds settled is never
sent either way; only whether to count it *skipped* or *duplicate* waits for
the covered set (:meth:`CoveredLines.hold`; at most :data:`HELD_MAX` held
in memory, then the engine waits for the set). When a lookup fails (the
journal away), the engine waits for the set and drops the repeats itself
(:meth:`CoveredLines.drop_known`).

Only for the one-id-per-line format (a CSV record may span lines), a file or
text (two readers of a spooled stdin would share one file offset), and a run
without per-id results (the CLI without ``--output``: per-id results come in
input order); otherwise the engine reads the covered lines first, as before.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import hashlib
import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, BinaryIO, Final, cast

import msgspec

from bottui.api.errors import RefusedError
from bottui.ops.bulk.input import BulkInputError, BulkSource, InvalidLine, Subject, SubjectReader
from bottui.ops.bulk.report import MAX_INVALID_KEPT, ItemStatus, Tally
from bottui.ops.session import Session
from bottui.plaintext import clean
from bottui.store.executor import run_blocking
from bottui.store.files import RunLive, RunLock, acquire_run_lock, describe_holder
from bottui.store.journal.journal_records import (
    EntryId,
    EntryQuery,
    ItemState,
    Operation,
    Outcome,
    RunId,
    StartRecord,
)
from bottui.store.seen_ids import SeenIds
from bottui.store.store_errors import JournalUnavailable

if TYPE_CHECKING:
    from bottui.store.journal.journal_store import SqliteJournalBatch


# -- the run's records ----------------------------------------------------------------------------


FLUSH_SECONDS: Final = 0.5

FLUSH_COUNT: Final = 256


#: Outcomes after which an earlier attempt may have withdrawn the grant
#: without our knowing: resent, a "nothing standing" reads "unknown (retried)".
UNCERTAIN_OUTCOMES: Final = (
    Outcome.NETWORK_ERROR.value,
    Outcome.UNKNOWN.value,
    Outcome.UNKNOWN_RETRIED.value,
    Outcome.INTERRUPTED.value,
)


#: Outcomes that settle an id for ``--resume`` (besides the store's own, withdrawn
#: and nothing standing): "unknown (retried)" was answered 2xx, so nothing
#: stands; sending it again would only say "unknown (retried)" once more.
RESUME_SETTLED: Final = (Outcome.UNKNOWN_RETRIED.value,)


class ResumeState(msgspec.Struct, frozen=True):
    """Whether an earlier run of the same input exists (its ids are looked up per chunk),
    and its settled prefix: every id on an input line up to ``settled_line`` is
    settled (its newest checkpoint; those ids are skipped without a lookup)."""

    earlier_run: bool = False
    settled_line: int = 0


class _Checkpoint(msgspec.Struct, frozen=True):
    """A settled prefix queued among the outcomes, written after those before it."""

    line: int


def run_key(profile: str, account: str, project: str, input_sha256: str) -> str:
    """The run lock's name for a run identity (hex; safe as a file name)."""
    data = json.dumps([profile, account, project, input_sha256.lower()]).encode()
    return hashlib.sha256(data).hexdigest()[:32]


def is_settled(state: ItemState) -> bool:
    """Whether ``--resume`` skips an id in this state."""
    return state.settled or state.last_outcome in RESUME_SETTLED


def is_uncertain(state: ItemState | None) -> bool:
    """Whether an earlier attempt of the id may have done its work unseen.

    Its answer was lost (an unfinished entry: a crash), or its outcome was
    unknown: sent again, the id is reported "unknown (retried)".
    """
    if state is None:
        return False
    return bool(state.unfinished) or state.last_outcome in UNCERTAIN_OUTCOMES


class JournalSink:
    """Journals one bulk run; every method is safe to call when the journal is away.

    Args:
        session: Gives the journal and takes the warnings.
    """

    def __init__(self, session: Session, *, reason: str | None = None) -> None:
        self._session = session
        self._reason = reason
        self._writer: SqliteJournalBatch | None = None
        self._pending: list[tuple[int, dict[str, Any]] | _Checkpoint] = []
        self._wake = asyncio.Event()
        self._closing = False
        self._pump: asyncio.Task[None] | None = None
        self._lock: RunLock | None = None
        self._states_warned = False
        #: A lookup of earlier attempts failed (its ids were taken as unknown).
        self.lookup_failed = False
        self._profile = ""
        self._base_url = ""
        self.run_id: int | None = None

    @property
    def available(self) -> bool:
        """Whether records are being written."""
        return self._writer is not None

    def _warn(self, what: str, exc: BaseException) -> None:
        title = getattr(exc, "title", type(exc).__name__)
        details = getattr(exc, "details", "")
        self._session.warn(f"{what}: {title}. {details}".strip())

    async def open(
        self,
        *,
        account: str,
        project: str,
        input_sha256: str,
        operation: str,
        resume: bool,
        force: bool = False,
    ) -> ResumeState:
        """Make a run of its own, or with ``resume`` take the input's newest run and
        read what its earlier attempts settled (a fresh run of an input that ran
        before is never joined to that run: #27 item 5).

        Refused (:class:`RefusedError`) while another process runs the same
        input, unless ``force``: a forced run is a run of its own, with its
        own run id (its identity mixes the input's hash with a random nonce,
        so no later ``--resume`` takes it for the input's run).
        """
        profile = self._session.settings.inventory_scope
        if force:
            nonce = f"{input_sha256}\nforced\n{uuid.uuid4().hex}"
            input_sha256 = hashlib.sha256(nonce.encode()).hexdigest()
        else:
            self._take_lock(profile, account, project, input_sha256)
        try:
            journal = self._session.journal_store
            state = ResumeState()
            try:
                run_id = await journal.run(
                    profile=profile,
                    account=account,
                    project=project,
                    input_sha256=input_sha256,
                    operation=operation,
                    # A fresh run is a run of its own; --resume continues the newest (#27 item 5).
                    resume=resume,
                )
                if resume:
                    first = await journal.page(EntryQuery(run_id=run_id), limit=1)
                    if first.entries:
                        line = await journal.settled_prefix(run_id)
                        state = ResumeState(earlier_run=True, settled_line=line or 0)
                self.run_id = run_id
                if self._lock is not None:
                    self._lock.note_run(run_id)
                self._profile = profile
                self._base_url = self._session.base_url
                self._writer = await journal.batch()
            except JournalUnavailable as exc:
                self._warn("this run is NOT journaled", exc)
                if resume:
                    self._session.warn("cannot resume: sending every id")
                return ResumeState()
            self._pump = asyncio.create_task(self._pump_loop(), name="bottui-bulk-journal")
            return state
        except BaseException:
            self._release_lock()
            raise

    def _take_lock(self, profile: str, account: str, project: str, input_sha256: str) -> None:
        """Hold the run's liveness lock, or refuse: another process runs this input."""
        key = run_key(profile, account, project, input_sha256)
        try:
            self._lock = acquire_run_lock(self._session.locations.state_dir, key)
        except RunLive as live:
            raise RefusedError(
                "Another run of this input is live",
                f"{describe_holder(live.holder)}; wait for it to end, or pass --force "
                "to start a run of its own (ids that run sends too are sent twice)",
            ) from None
        except OSError as exc:
            self._session.warn(
                f"cannot lock this run ({exc.strerror or exc}): "
                "a second run of the same input would not be refused"
            )
            return
        if self._lock is None:
            self._session.warn(
                "this system has no file locks: a second run of the same input is not refused"
            )

    def _release_lock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()

    async def states(self, keys: Sequence[str]) -> dict[str, ItemState]:
        """What earlier attempts of this run left for ``keys`` (one chunk of ids).

        A journal that cannot be read now warns once and answers nothing: the
        ids are sent again (harmless: a revocation of nothing reports so).
        """
        if self.run_id is None or self._writer is None or not keys:
            return {}
        try:
            return await self._session.journal_store.item_states(RunId(self.run_id), keys)
        except JournalUnavailable as exc:
            self.lookup_failed = True
            if not self._states_warned:
                self._states_warned = True
                self._warn("cannot read what earlier runs settled; sending those ids again", exc)
            return {}

    def supersede(self, entries: Sequence[EntryId], by: int | None) -> None:
        """Queue the closing records of ``entries``, left unfinished, now settled by ``by``."""
        for entry_id in entries:
            self.finish(
                int(entry_id),
                outcome=Outcome.SUPERSEDED.value,
                result={"supersededBy": by},
            )

    async def start(self, records: list[StartRecord]) -> list[int] | None:
        """Write the started records of a chunk now; their entry ids (None: not journaled)."""
        writer = self._writer
        if writer is None or not records:
            return None
        try:
            return list(await writer.start_many(records))
        except JournalUnavailable as exc:
            self._warn("some ids are NOT journaled", exc)
            return None

    def record(
        self, account: str, project: str, subject: Subject, key: str | None = None
    ) -> StartRecord:
        """The started record of one id of this run (``key``: its item key, if known)."""
        target: dict[str, str] = {}
        if subject.visitor_id is not None:
            target["visitorId"] = subject.visitor_id
        if subject.user_account_id is not None:
            target["userAccountId"] = subject.user_account_id
        return StartRecord(
            profile=self._profile,
            base_url=self._base_url,
            operation=Operation.REVOKE_GRANT,
            account=account,
            project=project,
            target=target,
            request_body={"subject": target},  # what request.body holds, without parsing it
            run_id=self.run_id,
            item_key=subject.key.hex() if key is None else key,
            operator=self._session.settings.operator,
            reason=self._reason,
        )

    def finish(self, entry_id: int | None, **fields: Any) -> None:
        """Queue the outcome of an entry (written by the pump, in order).

        ``fields`` are the keywords of the journal writer's ``finish``.
        """
        if entry_id is None or self._writer is None:
            return
        self._pending.append((entry_id, fields))
        if len(self._pending) >= FLUSH_COUNT:
            self._wake.set()

    def checkpoint(self, settled_line: int) -> None:
        """Queue a settled prefix: every id up to input line ``settled_line`` is
        settled and its outcome already queued here (so written before it)."""
        if self._writer is None or self.run_id is None:
            return
        self._pending.append(_Checkpoint(settled_line))

    async def close(self) -> None:
        """Write every queued outcome and close the writer."""
        self._closing = True
        self._wake.set()
        if self._pump is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
            self._pump = None
        writer, self._writer = self._writer, None
        try:
            if writer is not None:
                try:
                    await writer.close()
                except JournalUnavailable as exc:
                    self._warn("outcomes NOT journaled", exc)
                except ValueError as exc:  # outcomes the journal refused; the rest is written
                    self._session.warn(f"journal: {exc}")
        finally:
            # Only now: every outcome is written, a --resume may start.
            self._release_lock()

    async def _pump_loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), FLUSH_SECONDS)
            self._wake.clear()
            batch, self._pending = self._pending, []
            if batch:
                await self._write(batch)
            if self._closing and not self._pending:
                return

    async def _write(self, batch: list[tuple[int, dict[str, Any]] | _Checkpoint]) -> None:
        writer = self._writer
        if writer is None or self.run_id is None:
            return
        try:
            for item in batch:
                if isinstance(item, _Checkpoint):
                    await writer.checkpoint(RunId(self.run_id), item.line)
                else:
                    await writer.finish(EntryId(item[0]), **item[1])
            await writer.flush()
        except JournalUnavailable as exc:
            self._warn("some outcomes are NOT journaled", exc)
        except ValueError as exc:  # an outcome the journal refused; the rest is written
            self._session.warn(f"journal: {exc}")


# -- the settled prefix (checkpoints) -------------------------------------------------------------


#: Statuses that leave an id settled for ``--resume`` (when journaled).
SETTLED_STATUSES: Final = frozenset(
    {ItemStatus.WITHDRAWN, ItemStatus.NOTHING_STANDING, ItemStatus.UNKNOWN_RETRIED}
)


#: A checkpoint is written at most this often (seconds) ...
CHECKPOINT_SECONDS: Final = 2.0


#: ... or when the prefix has moved this many lines since the last one.
CHECKPOINT_LINES: Final = 20_000


class _Chunk(msgspec.Struct):
    first: int
    last: int
    outstanding: int


class SettledPrefix:
    """Where a run's settled prefix stands (see the module docstring).

    Args:
        line: The prefix the run starts from (a resume: the newest checkpoint).
    """

    def __init__(self, line: int = 0) -> None:
        self.line = line
        self.written = line
        self._written_at = time.monotonic()
        self._chunks: deque[_Chunk] = deque()
        self._firsts: deque[int] = deque()
        self._broken = False

    def add(self, first: int, last: int, outstanding: int) -> None:
        """A chunk of lines ``first``..``last`` dispatched, ``outstanding`` of its ids sent."""
        if self._broken:
            return
        self._chunks.append(_Chunk(first, last, outstanding))
        self._firsts.append(first)
        self._advance()

    def settled(self, line: int, status: ItemStatus, journaled: bool) -> None:
        """The id on ``line`` ended with ``status`` (``journaled``: its outcome is queued)."""
        if self._broken or not self._chunks:
            return
        at = bisect.bisect_right(self._firsts, line) - 1
        if at < 0 or line > self._chunks[at].last:
            return  # never dispatched (stopped before): a later chunk, the prefix stops anyway
        if not (journaled and status in SETTLED_STATUSES):
            self._broken = True
            self._chunks.clear()
            self._firsts.clear()
            return
        self._chunks[at].outstanding -= 1
        if at == 0:
            self._advance()

    def due(self, *, final: bool = False) -> int | None:
        """The line to checkpoint now, if the prefix moved enough (``final``: at all)."""
        if self.line <= self.written:
            return None
        now = time.monotonic()
        if not final and (
            self.line - self.written < CHECKPOINT_LINES
            and now - self._written_at < CHECKPOINT_SECONDS
        ):
            return None
        self.written, self._written_at = self.line, now
        return self.line

    def _advance(self) -> None:
        chunks = self._chunks
        while chunks and chunks[0].outstanding <= 0:
            self.line = max(self.line, chunks.popleft().last)
            self._firsts.popleft()


# -- a resume's covered lines ---------------------------------------------------------------------


#: Settled ids after the covered lines held for counting before the engine
#: waits for the covered set (each a short string: a few MB at most).
HELD_MAX: Final = 50_000


#: The lane of the executor the covered lines are read on.
LANE: Final = "bulk-covered"

_BLOCK: Final = 1 << 20


def line_end_offset(source: BulkSource, line: int) -> int:
    """The byte offset just after input line ``line`` (the input's size if it is shorter).

    Lines are counted as the reader counts them, one per line feed, at C
    speed (about 10 ms per 1,000,000 lines).
    """
    offset, left = 0, line
    with source.open() as stream:
        while left > 0:
            block = stream.read(_BLOCK)
            if not block:
                break
            feeds = block.count(b"\n")
            if feeds < left:
                left -= feeds
                offset += len(block)
                continue
            head = block.split(b"\n", left)[:left]
            return offset + sum(map(len, head)) + left
    return offset


class CoveredCounts(msgspec.Struct):
    """What the covered lines hold (those read, if the run stopped first)."""

    valid: int = 0
    duplicates: int = 0
    invalid_count: int = 0
    invalid: list[InvalidLine] = msgspec.field(default_factory=list)


class CoveredLines:
    """The covered lines of a resume, read on a thread; see the module docstring.

    Make one with :meth:`start`; the engine reads on from :attr:`offset`.
    """

    def __init__(self, source: BulkSource, line: int, offset: int, tally: Tally) -> None:
        self.line = line
        self.offset = offset
        self._source = source
        self._tally = tally
        self._seen = SeenIds()
        self._stop = threading.Event()
        self._held: list[str] = []
        self.counts = CoveredCounts()
        self._done = False
        self._reading: asyncio.Future[CoveredCounts] | None = None

    @classmethod
    async def start(cls, source: BulkSource, line: int, tally: Tally) -> CoveredLines | None:
        """Start reading lines 1 to ``line`` on a thread; None when it does not apply
        (the engine then reads them itself): not the one-id-per-line format, a spool."""
        if line <= 0 or not source.rereadable:
            return None
        offset = await run_blocking(lambda: line_end_offset(source, line), lane=LANE)
        sniffer = source.read()
        try:
            form = await run_blocking(sniffer.sniff, lane=LANE)
        except (BulkInputError, OSError):
            form = None  # the engine's own reading reports it
        finally:
            sniffer.close()
        if form != "lines":
            return None
        covered = cls(source, line, offset, tally)
        covered._reading = asyncio.ensure_future(run_blocking(covered._read, lane=LANE))
        return covered

    def _read(self) -> CoveredCounts:
        """Lines 1 to :attr:`line`, read, validated and deduplicated (on the thread)."""
        counts = CoveredCounts()
        stream = cast(BinaryIO, _Upto(self._source.open(), self.offset))
        reader = SubjectReader(stream, seen=self._seen)
        try:
            for n, item in enumerate(reader):
                if n % 4096 == 0 and self._stop.is_set():
                    break
                if type(item) is Subject:
                    counts.valid += 1
                elif isinstance(item, InvalidLine):
                    counts.invalid_count += 1
                    if len(counts.invalid) < MAX_INVALID_KEPT:  # cleaned as the engine does
                        counts.invalid.append(InvalidLine(item.line, clean(item.reason)))
                else:
                    counts.duplicates += 1
        finally:
            reader.close()
        return counts

    def hold(self, subject: Subject) -> bool:
        """An id after the covered lines that the journal finds settled: counted
        when the covered set is complete. True when the engine should
        :meth:`flush` first (too many held)."""
        self._held.append(subject.visitor_id or "")
        return len(self._held) >= HELD_MAX

    async def flush(self) -> None:
        """Wait for the covered set; count the ids held: duplicates of a covered line or skipped."""
        await self._wait()
        held, self._held = self._held, []
        tally = self._tally
        for start in range(0, len(held), 4096):
            part = held[start : start + 4096]
            repeats = await run_blocking(partial(self._seen.known, part), lane=LANE)
            dups = sum(1 for key in part if key in repeats)
            tally.taken -= dups
            tally.duplicates += dups
            tally.counts[ItemStatus.SKIPPED] += len(part) - dups
            tally.done += len(part) - dups

    async def drop_known(self, chunk: list[Subject]) -> list[Subject]:
        """``chunk`` without the ids a covered line holds (counted as duplicates); waits
        for the covered set. For a chunk the journal could not be asked about."""
        await self._wait()
        keys = [subject.visitor_id or "" for subject in chunk]
        repeats = await run_blocking(lambda: self._seen.known(keys), lane=LANE)
        if not repeats:
            return chunk
        kept = [s for s, key in zip(chunk, keys, strict=True) if key not in repeats]
        self._tally.taken -= len(chunk) - len(kept)
        self._tally.duplicates += len(chunk) - len(kept)
        return kept

    async def finish(self, *, stopping: bool) -> None:
        """Count the covered lines and the ids held into the tally (``stopping``: what
        was read of them so far, the ids held against that)."""
        if stopping:
            self._stop.set()
        await self.flush()
        counts, tally = self.counts, self._tally
        tally.taken += counts.valid
        tally.counts[ItemStatus.SKIPPED] += counts.valid
        tally.done += counts.valid
        tally.duplicates += counts.duplicates
        tally.invalid_count += counts.invalid_count
        # The covered lines come first: their invalid lines before the others.
        tally.invalid[:0] = counts.invalid
        del tally.invalid[MAX_INVALID_KEPT:]

    async def _wait(self) -> None:
        if not self._done and self._reading is not None:
            self.counts = await asyncio.shield(self._reading)
            self._done = True

    def close(self) -> None:
        """Stop reading (if it still does) and drop the set once the thread is done."""
        self._stop.set()
        if self._reading is None or self._reading.done():
            self._seen.close()
        else:  # the thread still reads into it
            self._reading.add_done_callback(lambda _: self._seen.close())


class _Upto:
    """A binary stream read only up to a byte offset (the end of the covered lines)."""

    def __init__(self, stream: BinaryIO, end: int) -> None:
        self._stream = stream
        self._left = end

    def readline(self, limit: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        size = self._left if limit < 0 else min(limit, self._left)
        line: bytes = self._stream.readline(size)
        self._left -= len(line)
        return line

    def close(self) -> None:
        self._stream.close()
