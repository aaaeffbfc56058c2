"""The input of a bulk revocation: opening it, its first pass, and reading its ids.

Two formats, told apart by the first non-blank line:

* **one visitor id per line**;
* **CSV** whose header names ``visitorId`` and/or ``userAccountId`` (any
  case; other columns are ignored; comma, semicolon or tab separated).

Either way the bytes are UTF-8 with or without a BOM, lines end in LF or CRLF,
surrounding whitespace is trimmed, blank and ``#`` comment lines are skipped;
a one-id line holding a space (``id # note``) is invalid, never one id.

**Opening** (``--from-file``): the path is opened with ``O_NONBLOCK`` (opening
a FIFO without a writer would wait for one forever) and must be a regular file
or a pipe: a device (``/dev/zero``, ``/dev/urandom``, a terminal) or a
directory is refused, and so is a FIFO with no writer. A FIFO with a writer is
returned as a stream, its first bytes included, and spooled as stdin is: to an
unnamed temporary file, so it can be read twice and hashed like a file.

**The first pass** (:class:`Scanner`) reads a :class:`BulkSource` once up
front for its SHA-256 (the identity of a run, for ``--resume``) and its count
of non-blank lines (an upper bound of the ids, for progress). Lines are counted
at C speed (``bytes.count`` and one regular expression per block), never one
by one in Python: a 1,000,000-line input is scanned in about 0.1 s, so a run or
a resume sends its first request at once. This pass also bounds the input:
UTF-16 (its BOM), a NUL byte (binary input), a line longer than
:data:`MAX_INPUT_LINE_BYTES` (no line of ids is that long) or more than
:data:`MAX_INPUT_BYTES` in all refuses the whole input; a line between
:data:`MAX_LINE_BYTES` and that bound is only an invalid line.

**Reading** (:class:`SubjectReader`) yields per line a :class:`Subject` to
send, an :class:`InvalidLine` never sent (its 1-based line number and a
reason), or a :class:`Duplicate` of an earlier line. Each line is validated on
its own; subjects are deduplicated exactly on the (visitorId, userAccountId)
pair, on disk (:class:`~bottui.store.seen_ids.SeenIds`, a batch of lines at a
time), so memory stays flat at any size; everything else is streamed. A
subject is journaled under its key (:func:`subject_key`).

Every refusal is a :class:`BulkInputError` (exit 2), before anything is sent.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Final, Literal, NamedTuple, cast

import msgspec

from bottui.api.errors import RefusedError, ValidationError
from bottui.api.requests import SUBJECT_ID_MAX, subject
from bottui.store.seen_ids import SeenIds

# -- the first pass -------------------------------------------------------------------------------


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


# -- opening a file of ids ------------------------------------------------------------------------


_BLOCK: Final = 1 << 16


def open_input(path: Path) -> tuple[BinaryIO, bool]:
    """A blocking reader of ``path`` from its first byte, and whether it is a pipe.

    Raises:
        BulkInputError: it cannot be opened, is neither a regular file nor a
            pipe, or is a FIFO with no writer.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise BulkInputError(
            "Cannot read the input file", f"{path}: {exc.strerror or exc}"
        ) from None
    handle = open(fd, "rb", buffering=0)  # noqa: SIM115 (returned, or closed below)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISFIFO(mode):
            first = _first_from_pipe(fd, str(path))
            os.set_blocking(fd, True)
            return cast(BinaryIO, _Prefixed(first, handle)), True
        if not stat.S_ISREG(mode):
            raise BulkInputError(
                "Not a file of ids",
                f"{path} is a device or a directory, not a regular file or a pipe "
                "(use --from-file - to read stdin)",
            )
        os.set_blocking(fd, True)
    except BaseException:
        handle.close()
        raise
    return cast(BinaryIO, handle), False


def _first_from_pipe(fd: int, label: str) -> bytes:
    """The first bytes of a FIFO opened without blocking; refused when it has no writer.

    A read that would block means a writer is there (its bytes will come);
    an empty read means none is (or it wrote nothing and left).
    """
    try:
        first = os.read(fd, _BLOCK)
    except BlockingIOError:
        return b""
    except OSError as exc:
        if exc.errno == errno.EAGAIN:
            return b""
        raise BulkInputError("Cannot read the input file", f"{label}: {exc.strerror}") from None
    if not first:
        raise BulkInputError(
            "The pipe has no writer",
            f"{label} is a named pipe that nothing writes to: start its writer first, "
            "or pipe the ids into --from-file -",
        )
    return first


class _Prefixed(io.RawIOBase):
    """``first``, then the rest of ``stream`` (a pipe whose first bytes were read).

    Closing it closes ``stream``.
    """

    def __init__(self, first: bytes, stream: BinaryIO) -> None:
        super().__init__()
        self._first = first
        self._stream = stream

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._first:
            head, self._first = self._first, b""
            return head
        return self._stream.read(size) or b""

    def close(self) -> None:
        self._stream.close()
        super().close()


# -- what a line yields ---------------------------------------------------------------------------


class Subject(NamedTuple):
    """One valid line: the identity whose grant to revoke (a named tuple: cheap to make).

    Attributes:
        line: 1-based line number in the input.
        visitor_id: The visitor id, or None.
        user_account_id: The user account id, or None.
        key: 16-byte digest of the pair (deduplication and ``--resume``).
    """

    line: int
    visitor_id: str | None
    user_account_id: str | None
    key: bytes


class InvalidLine(msgspec.Struct, frozen=True):
    """A line that is not sent, and why (``reason`` holds no control characters)."""

    line: int
    reason: str

    def to_json(self) -> dict[str, int | str]:
        """``{"line", "reason"}`` as in the ``--json`` summary."""
        return {"line": self.line, "reason": self.reason}


class Duplicate(msgspec.Struct, frozen=True):
    """A valid line repeating the pair of an earlier line (not sent again)."""

    line: int


def subject_key(visitor_id: str | None, user_account_id: str | None) -> bytes:
    """The 16-byte digest of a (visitorId, userAccountId) pair.

    NUL separates the two: validated ids hold no control characters, so two
    different pairs never share the bytes that are hashed.
    """
    data = f"{visitor_id or ''}\x00{user_account_id or ''}".encode()
    return _blake2b(data, digest_size=16).digest()


_blake2b = hashlib.blake2b


# -- reading the ids ------------------------------------------------------------------------------


_SCAN_BLOCK: Final = 1 << 20


#: The csv module's message for a record that ends inside a quoted field.
_OPEN_QUOTE: Final = "unexpected end of data"


#: Lines read, validated and deduplicated together.
_BATCH: Final = 512


#: Joins the two ids of a pair in its de-duplication key: a control character,
#: which a valid id never holds, so two distinct pairs never share a key.
_PAIR: Final = "\x1f"

InputFormat = Literal["lines", "csv"]


def _decoded(raw: bytes | None) -> str | None:
    """A line's text; None when it is over the limit or not UTF-8."""
    if raw is None:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


class BulkSource:
    """The bytes of one bulk input, readable as many times as needed.

    Make one with :meth:`from_path`, :meth:`from_stream` (stdin: spooled to
    an unnamed temporary file, removed on :meth:`close`) or :meth:`from_text`
    (text pasted in the TUI).

    Attributes:
        label: What to call it in messages (the path, ``stdin``, ...).
        sha256: Hex SHA-256 of the bytes: with the profile, account and
            project, the identity of a run for ``--resume``.
        candidate_lines: Non-blank lines less a CSV header: an upper bound
            of the ids, exact when no line is invalid or repeated.
    """

    def __init__(
        self,
        label: str,
        *,
        sha256: str,
        candidate_lines: int,
        path: Path | None = None,
        spool: BinaryIO | None = None,
        data: bytes | None = None,
    ) -> None:
        self.label = label
        self.sha256 = sha256
        self.candidate_lines = candidate_lines
        self._path = path
        self._spool = spool
        self._data = data

    def __repr__(self) -> str:
        return f"BulkSource({self.label!r}, lines={self.candidate_lines})"

    @classmethod
    def from_path(cls, path: str | Path) -> BulkSource:
        """A file, read once now for its hash and line count; a FIFO, spooled as stdin is.

        Raises:
            BulkInputError: it cannot be read, is neither a regular file nor a
                pipe (a device), is a FIFO with no writer, or is refused by the
                first pass (binary, an overlong line, too large).
        """
        file = Path(path)
        reader, is_pipe = open_input(file)
        with reader:
            if is_pipe:
                return cls.from_stream(reader, label=str(file))
            scanner = Scanner()
            try:
                for block in iter(lambda: reader.read(_SCAN_BLOCK), b""):
                    scanner.feed(block)
            except OSError as exc:
                raise BulkInputError(
                    "Cannot read the input file", f"{file}: {exc.strerror or exc}"
                ) from None
        return cls._scanned(str(file), scanner, path=file)

    @classmethod
    def from_stream(cls, stream: BinaryIO, label: str = "stdin") -> BulkSource:
        """A stream (stdin), copied to an unnamed temporary file as it is read and hashed."""
        spool = tempfile.TemporaryFile(prefix="bottui-bulk-")  # noqa: SIM115 (closed by close)
        scanner = Scanner()
        try:
            for block in iter(lambda: stream.read(_BLOCK), b""):
                scanner.feed(block)
                spool.write(block)
            spool.flush()
        except BaseException:
            spool.close()
            raise
        return cls._scanned(label, scanner, spool=spool)

    @classmethod
    def from_text(cls, text: str, label: str = "pasted text") -> BulkSource:
        """Text already in memory (pasted or loaded in the TUI), as UTF-8."""
        data = text.encode("utf-8", "surrogatepass")
        scanner = Scanner()
        scanner.feed(data)
        return cls._scanned(label, scanner, data=data)

    @classmethod
    def _scanned(
        cls,
        label: str,
        scanner: Scanner,
        *,
        path: Path | None = None,
        spool: BinaryIO | None = None,
        data: bytes | None = None,
    ) -> BulkSource:
        """The source of the bytes ``scanner`` was fed, kept at ``path``, ``spool`` or ``data``."""
        scanner.finish()
        return cls(
            label,
            sha256=scanner.sha256.hexdigest(),
            candidate_lines=scanner.candidate_lines(),
            path=path,
            spool=spool,
            data=data,
        )

    def open(self) -> BinaryIO:
        """A new binary reader from the first byte (close it when done)."""
        if self._path is not None:
            try:
                return open(self._path, "rb")
            except OSError as exc:
                raise BulkInputError(
                    "Cannot read the input file", f"{self._path}: {exc.strerror or exc}"
                ) from None
        if self._spool is not None:
            handle = os.fdopen(os.dup(self._spool.fileno()), "rb")
            handle.seek(0)
            return handle
        return io.BytesIO(self._data or b"")

    def read(
        self, *, start: int = 0, first_line: int = 0, form: InputFormat | None = None
    ) -> SubjectReader:
        """A :class:`SubjectReader` over a new reader (closed when iteration ends).

        ``start``: the byte offset of line ``first_line + 1`` of an input of
        format ``form`` (a resume reading on after its covered lines).
        """
        stream = self.open()
        if start:
            stream.seek(start)
        return SubjectReader(stream, first_line=first_line, form=form)

    @property
    def rereadable(self) -> bool:
        """Whether two readers of it may read at once (a file or text, not a spool:
        the readers of a spool share one file offset)."""
        return self._spool is None

    def close(self) -> None:
        """Remove the spooled copy, if any."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None


class SubjectReader:
    """Iterates over the lines of an input: :class:`Subject`, :class:`InvalidLine`
    or :class:`Duplicate`, in input order; blank lines and the header yield nothing.

    Counters (``valid``, ``invalid``, ``duplicates``) grow as it goes.

    Args:
        stream: The bytes, from the start of line ``first_line + 1``.
        seen: The keys seen so far, kept open (the caller's) when given; else
            made on the first batch and dropped with the reader.
        first_line: Lines before the stream's first (line numbers go on from it).
        form: The format when known (read on after the first lines).
    """

    def __init__(
        self,
        stream: BinaryIO,
        *,
        seen: SeenIds | None = None,
        first_line: int = 0,
        form: InputFormat | None = None,
    ) -> None:
        self._stream = stream
        self._seen = seen
        self._own_seen = seen is None
        self.format: InputFormat | None = form
        self.valid = 0
        self.invalid = 0
        self.duplicates = 0
        self._delimiter = ","
        self._names: list[str] = []
        self._visitor_at: int | None = None
        self._user_at: int | None = None
        self._number = first_line  # lines read so far (both readers count here)
        self._lines = self._raw_lines()
        # Lines read ahead for a quoted field that never closed, to read again.
        self._pushed_back: list[tuple[int, bytes | None]] = []

    def _next_line(self) -> tuple[int, bytes | None] | None:
        if self._pushed_back:
            return self._pushed_back.pop()
        return next(self._lines, None)

    def close(self) -> None:
        """Close the underlying reader and drop the ids seen (iteration does when it ends)."""
        self._stream.close()
        seen, self._seen = self._seen, None
        if seen is not None and self._own_seen:
            seen.close()

    def sniff(self) -> InputFormat | None:
        """Read lines until the format is known (the first non-blank, readable line
        decides it); None if no line does. The reader is spent: close it."""
        while self.format is None:
            line = self._next_line()
            if line is None:
                break
            self._line(*line)
        return self.format

    def __iter__(self) -> Iterator[Subject | InvalidLine | Duplicate]:
        try:
            batch: list[Subject | InvalidLine] = []
            keys: list[str] = []
            done = False
            while not done:
                # Read a batch, dedupe its ids at once (one statement), yield it in order.
                if self.format == "lines" and not self._pushed_back:
                    done = self._lines_batch(batch, keys)
                while not done and len(batch) < _BATCH:
                    next_line = self._next_line()
                    if next_line is None:
                        done = True
                        break
                    item = self._line(*next_line)
                    if item is None:
                        continue
                    batch.append(item)
                    if type(item) is Subject:
                        user = item.user_account_id
                        visitor = item.visitor_id or ""
                        keys.append(visitor if user is None else f"{visitor}{_PAIR}{user}")
                if keys:
                    if self._seen is None:
                        self._seen = SeenIds()
                        self._own_seen = True
                    fresh = iter(self._seen.first_seen(keys))
                for item in batch:
                    if type(item) is Subject:
                        if next(fresh):
                            self.valid += 1
                            yield item
                        else:
                            self.duplicates += 1
                            yield Duplicate(item.line)
                    else:
                        self.invalid += 1
                        yield item
                batch = []
                keys = []
        finally:
            self.close()

    def _lines_batch(self, batch: list[Subject | InvalidLine], keys: list[str]) -> bool:
        """Read a batch of the one-id-per-line format in one loop; True at the end.

        The same rules as :meth:`_line` and :meth:`_subject`, without their
        calls per line (most of the time of a 1,000,000-line ``--resume``);
        a line they would treat otherwise goes through them.
        """
        readline = self._stream.readline
        blake2b = _blake2b
        limit = MAX_LINE_BYTES + 1
        while len(batch) < _BATCH:
            raw = readline(limit)
            if not raw:
                return True
            self._number += 1
            number = self._number
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                self._skip_rest()
                batch.append(InvalidLine(number, f"longer than {MAX_LINE_BYTES} bytes"))
                continue
            try:
                text = raw.decode("utf-8").strip(TRIMMED)
            except UnicodeDecodeError:
                item = self._line(number, raw)
            else:
                if not text or text[0] == COMMENT:
                    continue
                if len(text) <= SUBJECT_ID_MAX and text.isprintable() and " " not in text:
                    key = blake2b((text + "\x00").encode(), digest_size=16).digest()
                    batch.append(Subject(number, text, None, key))
                    keys.append(text)
                    continue
                item = self._line(number, raw)  # the rules in full (a space, a control)
            if item is not None:
                batch.append(item)
                if type(item) is Subject:
                    keys.append(item.visitor_id or "")
        return False

    def _skip_rest(self) -> None:
        """Skip the rest of a line over the limit."""
        while True:
            rest = self._stream.readline(_BLOCK)
            if not rest or rest.endswith(b"\n"):
                return

    def _raw_lines(self) -> Iterator[tuple[int, bytes | None]]:
        """(number, bytes) of each line; bytes None for a line over the limit."""
        readline = self._stream.readline
        while True:
            raw = readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            self._number += 1
            number = self._number
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                self._skip_rest()
                yield number, None
                continue
            if number == 1:
                if raw.startswith(UTF16_BOMS):
                    raise BulkInputError(
                        "The input is UTF-16", "save it as UTF-8 (with or without a BOM)"
                    )
                raw = raw.removeprefix(BOM)
            yield number, raw

    def _line(self, number: int, raw: bytes | None) -> Subject | InvalidLine | None:
        if raw is None:
            return InvalidLine(number, f"longer than {MAX_LINE_BYTES} bytes")
        try:
            text = trim(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            return InvalidLine(number, f"not valid UTF-8 (byte {exc.start + 1})")
        if not text or text[0] == COMMENT:
            return None
        if self.format is None:
            columns = header_columns(text)
            if columns is not None:
                self._header(*columns)
                return None
            self.format = "lines"
        if self.format == "lines":
            if " " in text:
                return InvalidLine(number, SPACE_IN_ID)
            return self._subject(number, text, None)
        return self._csv_row(number, text)

    def _header(self, delimiter: str, names: list[str]) -> None:
        for column in (VISITOR_COLUMN, USER_COLUMN):
            if names.count(column) > 1:
                raise BulkInputError("Invalid CSV header", f"the column {column!r} appears twice")
        self.format = "csv"
        self._delimiter = delimiter
        self._names = names
        self._visitor_at = names.index(VISITOR_COLUMN) if VISITOR_COLUMN in names else None
        self._user_at = names.index(USER_COLUMN) if USER_COLUMN in names else None

    def _csv_row(self, number: int, text: str) -> Subject | InvalidLine:
        fields = self._csv_record(number, text)
        if isinstance(fields, InvalidLine):
            return fields
        if len(fields) != len(self._names):
            return InvalidLine(
                number, f"{len(fields)} fields where the header has {len(self._names)}"
            )
        visitor = trim(fields[self._visitor_at]) if self._visitor_at is not None else ""
        user = trim(fields[self._user_at]) if self._user_at is not None else ""
        return self._subject(number, visitor or None, user or None)

    def _csv_record(self, number: int, text: str) -> list[str] | InvalidLine:
        """The fields of the record starting on line ``number``, by the csv module's rules.

        A quoted field may hold line breaks: the record then goes on over the
        next lines (and is numbered by its first). A quote that is still open
        at the end of the input, at an unreadable line or past
        :data:`MAX_LINE_BYTES` makes only line ``number`` invalid; the lines
        read ahead are read again as records of their own.
        """
        record = text
        ahead: list[tuple[int, bytes | None]] = []
        while True:
            try:
                return next(csv.reader([record], delimiter=self._delimiter, strict=True))
            except (csv.Error, StopIteration) as exc:
                if _OPEN_QUOTE not in str(exc):
                    self._pushed_back.extend(reversed(ahead))
                    return InvalidLine(number, f"not a CSV row ({exc})")
            following = self._next_line()
            if following is not None:
                ahead.append(following)
            more = _decoded(following[1]) if following is not None else None
            if more is None or len(record) + len(more) > MAX_LINE_BYTES:
                self._pushed_back.extend(reversed(ahead))
                return InvalidLine(number, "not a CSV row (a quoted field is not closed)")
            record += "\n" + more.removesuffix("\n").removesuffix("\r").rstrip(TRIMMED)

    @staticmethod
    def _subject(number: int, visitor: str | None, user: str | None) -> Subject | InvalidLine:
        if user is None and visitor and len(visitor) <= SUBJECT_ID_MAX and visitor.isprintable():
            # The common line, valid by validation.subject's rules (a printable
            # string holds no control character), without building its dict.
            key = _blake2b((visitor + "\x00").encode(), digest_size=16).digest()
            return Subject(number, visitor, None, key)
        try:
            checked = subject(visitor, user)
        except ValidationError as exc:
            if exc.field == "subject":
                return InvalidLine(number, "no visitorId and no userAccountId")
            return InvalidLine(number, f"{exc.field}: {exc.message}")
        visitor_id = checked.get("visitorId")
        user_id = checked.get("userAccountId")
        return Subject(number, visitor_id, user_id, subject_key(visitor_id, user_id))
