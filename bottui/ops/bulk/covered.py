"""A resume's covered lines, read on a thread of their own while the lines after them are sent.

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
import threading
from dataclasses import dataclass, field
from functools import partial
from typing import BinaryIO, Final, cast

from bottui.ops.bulk.input import BulkInputError, BulkSource, InvalidLine, Subject, SubjectReader
from bottui.ops.bulk.meter import Tally
from bottui.ops.bulk.status import MAX_INVALID_KEPT, ItemStatus
from bottui.plaintext import clean
from bottui.store.executor import run_blocking
from bottui.store.seen_ids import SeenIds

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


@dataclass
class CoveredCounts:
    """What the covered lines hold (those read, if the run stopped first)."""

    valid: int = 0
    duplicates: int = 0
    invalid_count: int = 0
    invalid: list[InvalidLine] = field(default_factory=list)


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


__all__ = ["HELD_MAX", "CoveredCounts", "CoveredLines", "line_end_offset"]
