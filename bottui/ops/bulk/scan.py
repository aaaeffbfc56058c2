"""The first pass over a bulk input: its SHA-256, its non-blank lines, the first of them.

The hash is the run's identity (``--resume``); the count of lines bounds the
ids for progress. The rules the reader shares with this pass (a CSV header,
trimming) are here too. Lines are counted at C speed (``bytes.count`` and one
regular expression per block), never one by one in Python: a 1,000,000-line
input is scanned in about 0.1 s, so a run or a resume sends its first
request at once.

This pass also bounds the input, before anything is sent: a NUL byte (binary
input: ``/dev/urandom``, an image), a line longer than
:data:`MAX_INPUT_LINE_BYTES` (no line of ids is that long) or more than
:data:`MAX_INPUT_BYTES` in all refuses the whole input (exit 2). A line
between :data:`MAX_LINE_BYTES` and that bound is only an invalid line.
"""

from __future__ import annotations

import csv
import hashlib
import re
from typing import Final

from bottui.api.errors import RefusedError

#: Longest line read; a longer one is reported invalid and skipped.
MAX_LINE_BYTES: Final = 1 << 16
#: A line longer than this refuses the whole input (it is not a list of ids).
MAX_INPUT_LINE_BYTES: Final = 1 << 20
#: Largest input accepted (about 100,000,000 ids of 40 bytes).
MAX_INPUT_BYTES: Final = 1 << 32
_OVERLONG: Final = re.compile(rb"[^\n]{%d}" % (MAX_INPUT_LINE_BYTES + 1))
UTF16_BOMS: Final = (b"\xff\xfe", b"\xfe\xff")
BOM: Final = b"\xef\xbb\xbf"
#: A line of ASCII whitespace only (``bytes.strip``'s), from its start to its end.
_BLANK_LINE: Final = re.compile(rb"(?m)^[ \t\r\x0b\x0c]*\n")


VISITOR_COLUMN: Final = "visitorid"
USER_COLUMN: Final = "useraccountid"
_DELIMITERS: Final = (",", ";", "\t")
#: What trimming removes: spaces, tabs, line ends and the Unicode spaces. Not
#: str.strip()'s default, which also eats the controls U+001C-U+001F and U+0085:
#: a control character at the edge of an id must be refused, not dropped.
TRIMMED: Final = (
    " \t\r\n\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)

#: A line starting with this (after trimming) is a comment, never an id.
COMMENT: Final = "#"
#: Why a line of the one-id-per-line format that holds a space is not sent.
SPACE_IN_ID: Final = (
    "holds a space: one id per line (an id with a space goes in a CSV with a visitorId column)"
)


def trim(text: str) -> str:
    """``text`` without surrounding whitespace; control characters are kept (and refused)."""
    return text.strip(TRIMMED)


def header_columns(first_line: str) -> tuple[str, list[str]] | None:
    """The delimiter and column names when ``first_line`` is a CSV header naming ours."""
    for delimiter in _DELIMITERS:
        try:
            names = next(csv.reader([first_line], delimiter=delimiter, strict=True))
        except (csv.Error, StopIteration):
            continue
        folded = [trim(name).lower() for name in names]
        if VISITOR_COLUMN in folded or USER_COLUMN in folded:
            return delimiter, folded
    return None


def _decode_first(raw: bytes) -> str | None:
    try:
        return trim(raw.removeprefix(BOM).decode("utf-8"))
    except UnicodeDecodeError:
        return None


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
        #: Bytes fed so far, and of the line not ended yet.
        self.size = 0
        self._run = 0

    def feed(self, block: bytes) -> None:
        """Take the next block; BulkInputError when the input cannot be a bulk input."""
        if self._start and block:
            self._start = False
            if block.startswith(UTF16_BOMS):
                raise BulkInputError(
                    "The input is UTF-16", "save it as UTF-8 (with or without a BOM)"
                )
        self._bound(block)
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

    def _bound(self, block: bytes) -> None:
        """Refuse binary input, an overlong line or too much input (nothing is sent)."""
        nul = block.find(b"\x00")
        if nul >= 0:
            raise BulkInputError(
                "The input is binary",
                f"a NUL byte at byte {self.size + nul + 1:,}: a bulk input is text, one id per "
                "line or CSV (a device such as /dev/zero or /dev/urandom is not one)",
            )
        self.size += len(block)
        if self.size > MAX_INPUT_BYTES:
            raise BulkInputError(
                "The input is too large",
                f"more than {MAX_INPUT_BYTES:,} bytes: split it into several runs",
            )
        first_end = block.find(b"\n")
        if first_end < 0:
            self._run += len(block)
            overlong = self._run > MAX_INPUT_LINE_BYTES
        else:
            overlong = (
                self._run + first_end > MAX_INPUT_LINE_BYTES
                or _OVERLONG.search(block, first_end) is not None
            )
            self._run = len(block) - block.rfind(b"\n") - 1
        if overlong:
            raise BulkInputError(
                "The input is not a list of ids",
                f"a line longer than {MAX_INPUT_LINE_BYTES:,} bytes (near byte {self.size:,})",
            )

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

    def candidate_lines(self) -> int:
        """Non-blank lines, less the CSV header if there is one."""
        if self.first is None:
            return 0
        text = _decode_first(self.first)
        header = text is not None and header_columns(text) is not None
        return self.nonblank - (1 if header else 0)


__all__ = [
    "BOM",
    "MAX_INPUT_BYTES",
    "MAX_INPUT_LINE_BYTES",
    "MAX_LINE_BYTES",
    "TRIMMED",
    "USER_COLUMN",
    "UTF16_BOMS",
    "VISITOR_COLUMN",
    "BulkInputError",
    "Scanner",
    "header_columns",
    "trim",
]
