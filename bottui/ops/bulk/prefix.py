"""The settled prefix of a bulk run: the input line up to which every id is settled.

Ids are sent out of order (many in flight) but read, looked up and journaled
in chunks, in input order. :class:`SettledPrefix` keeps the chunks not yet
wholly settled; when the oldest ones are, the prefix moves to their last
line. An id that ends otherwise than settled for ``--resume`` (failed,
unknown, not sent, not journaled) stops the prefix for the rest of the run:
a later resume must look it up and send it again.

The engine hands the prefix to the journal as a checkpoint (through the same
writer and queue as the outcomes, after them), so a resume skips the lines
it covers without asking the journal about each id.
"""

from __future__ import annotations

import bisect
import time
from collections import deque
from dataclasses import dataclass
from typing import Final

from bottui.ops.bulk.status import ItemStatus

#: Statuses that leave an id settled for ``--resume`` (when journaled).
SETTLED_STATUSES: Final = frozenset(
    {ItemStatus.WITHDRAWN, ItemStatus.NOTHING_STANDING, ItemStatus.UNKNOWN_RETRIED}
)
#: A checkpoint is written at most this often (seconds) ...
CHECKPOINT_SECONDS: Final = 2.0
#: ... or when the prefix has moved this many lines since the last one.
CHECKPOINT_LINES: Final = 20_000


@dataclass(slots=True)
class _Chunk:
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


__all__ = ["CHECKPOINT_LINES", "CHECKPOINT_SECONDS", "SETTLED_STATUSES", "SettledPrefix"]
