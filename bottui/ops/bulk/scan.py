"""The first pass over a bulk input: its SHA-256, its non-blank lines, the first of them.

The hash is the run's identity (``--resume``); the count of lines bounds the
ids for progress. Lines are counted at C speed (``bytes.count`` and one
regular expression per block), never one by one in Python: a 1,000,000-line
input is scanned in about 0.1 s, so a run or a resume sends its first
request at once.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

from bottui.api.errors import RefusedError

#: Longest line read; a longer one is reported invalid and skipped.
MAX_LINE_BYTES: Final = 1 << 16
UTF16_BOMS: Final = (b"\xff\xfe", b"\xfe\xff")
#: A line of ASCII whitespace only (``bytes.strip``'s), from its start to its end.
_BLANK_LINE: Final = re.compile(rb"(?m)^[ \t\r\x0b\x0c]*\n")


class BulkInputError(RefusedError):
    """The input as a whole cannot be used (unreadable, UTF-16, a bad header): exit 2."""


class Scanner:
    """Fed the input block by block: SHA-256, non-blank lines, the first of them."""

    def __init__(self) -> None:
        self.sha256 = hashlib.sha256()
        self.nonblank = 0
        self.first: bytes | None = None
        self._partial = b""
        self._partial_nonblank = False
        self._start = True

    def feed(self, block: bytes) -> None:
        if self._start and block:
            self._start = False
            if block.startswith(UTF16_BOMS):
                raise BulkInputError(
                    "The input is UTF-16", "save it as UTF-8 (with or without a BOM)"
                )
        self.sha256.update(block)
        end = block.rfind(b"\n")
        if end < 0:
            self._carry(block)
            return
        first_end = block.find(b"\n")
        self._carry(block[:first_end])
        self._line_end()
        body = block[first_end + 1 : end + 1]  # whole lines only
        lines = body.count(b"\n")
        if lines:
            nonblank = lines - len(_BLANK_LINE.findall(body))
            self.nonblank += nonblank
            if self.first is None and nonblank:
                self.first = next(line for line in body.split(b"\n") if line.strip())[
                    :MAX_LINE_BYTES
                ]
        self._carry(block[end + 1 :])

    def _carry(self, part: bytes) -> None:
        """More of the line not ended yet."""
        if not self._partial_nonblank and part.strip():
            self._partial_nonblank = True
        if self.first is None and len(self._partial) < MAX_LINE_BYTES:
            self._partial += part[: MAX_LINE_BYTES - len(self._partial)]

    def _line_end(self) -> None:
        if self._partial_nonblank:
            self.nonblank += 1
            if self.first is None:
                self.first = self._partial[:MAX_LINE_BYTES]
        self._partial = b""
        self._partial_nonblank = False

    def finish(self) -> None:
        self._line_end()


__all__ = ["MAX_LINE_BYTES", "UTF16_BOMS", "BulkInputError", "Scanner"]
