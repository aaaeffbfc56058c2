"""The one safe way bottui reads a TOML file: bounded in size, kind, nesting and time.

``tomllib`` trusts its input: 100,000 nested brackets raise ``RecursionError``,
a 100,000-part dotted key takes quadratic time, and reading the file is the
caller's business (a symlink to ``/dev/zero`` or a FIFO never ends). So,
before ``tomllib`` sees a byte:

- the file is opened with ``O_NONBLOCK`` and ``fstat``-ed on the open
  descriptor, so a FIFO cannot block the open and no name can be swapped
  between check and read; anything but a regular file is refused, except
  the process's own stdin when the caller allows it (``/dev/stdin``, ``-``);
- at most ``cap + 1`` bytes are read, whatever the kind: more is refused;
- a cheap scan of the text (strings and comments skipped) bounds the
  nesting of ``[ ]``/``{ }`` and the parts of a dotted key, naming the line.

A ``RecursionError`` from ``tomllib`` is still caught as a last resort. Every
problem is a :class:`TomlProblem`; callers turn it into their own error
(``ConfigError``, ``StoreFileError``) with their own wording.
"""

from __future__ import annotations

import fcntl
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any, Final

from bottui.plaintext import clean

#: Nesting of arrays and inline tables; real files use two or three levels.
MAX_DEPTH: Final = 64
#: Parts of one dotted key (``a.b.c`` has three); real files use a handful.
MAX_KEY_PARTS: Final = 64
#: ``-`` names stdin where the caller allows it.
STDIN_NAME: Final = "-"
_CHUNK: Final = 1024 * 1024

# What the scan looks at, outside strings and comments. Multi-line strings
# come first so that ``"""`` is not read as an empty string and a quote.
_TOKEN: Final = re.compile(
    r'"""(?:[^"\\]++|\\.|"(?!""))*+"""(?:"{1,2})?'
    r"|'''.*?'''(?:'{1,2})?"
    r'|"(?:[^"\\\n]++|\\.)*+"'
    r"|'[^'\n]*+'"
    r"|#[^\n]*+"
    r"|[\[\]{}.,=\n]",
    re.DOTALL,
)
_TOML_POSITION: Final = re.compile(r"\(at line (\d+), column (\d+)\)")
_OPEN: Final = frozenset("[{")
_CLOSE: Final = frozenset("]}")
_KEY_BREAK: Final = frozenset("[]{},=\n")


def toml_error_parts(error: ValueError) -> tuple[str, int | None, int | None]:
    """A ``tomllib.TOMLDecodeError`` as (reason without the position, line, column)."""
    message = str(error)
    found = _TOML_POSITION.search(message)
    reason = _TOML_POSITION.sub("", message).strip()
    if found is None:
        return reason, None, None
    return reason, int(found.group(1)), int(found.group(2))


class TomlProblem(Exception):
    """Why a TOML file was not read: a reason in our words, and where when known."""

    def __init__(self, reason: str, *, line: int | None = None, column: int | None = None):
        super().__init__(reason)
        #: What is wrong, already safe to show (``clean``-ed).
        self.reason = reason
        #: 1-based line, when known.
        self.line = line
        #: 1-based column, when known.
        self.column = column


def where(problem: TomlProblem) -> str:
    """`` (line L, column C)``, `` (line L)`` or "", to follow a message."""
    if problem.line is None:
        return ""
    column = f", column {problem.column}" if problem.column is not None else ""
    return f" (line {problem.line}{column})"


def read_bytes(path: Path, cap: int, *, allow_stdin: bool = False) -> bytes:
    """At most ``cap`` bytes of ``path``; refuse a larger file or one that is not regular.

    Raises:
        TomlProblem: not a regular file (nor stdin, when allowed), larger
            than ``cap``, or not readable.
        FileNotFoundError: the file does not exist (callers treat it apart).
    """
    if allow_stdin and str(path) == STDIN_NAME:
        fd = os.dup(0)
    else:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise TomlProblem(f"cannot be read: {clean(exc.strerror or exc)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) and not (allow_stdin and _is_stdin(info)):
            raise TomlProblem(f"is not a regular file ({_kind(info.st_mode)}); nothing was read")
        # Reads block again: a regular file ignores the flag, stdin must wait for its writer.
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        return _read_capped(fd, cap)
    except OSError as exc:
        raise TomlProblem(f"cannot be read: {clean(exc.strerror or exc)}") from None
    finally:
        os.close(fd)


def _is_stdin(opened: os.stat_result) -> bool:
    """True when ``opened`` is the very file (pipe, tty, file) this process has as stdin."""
    try:
        ours = os.fstat(0)
    except OSError:
        return False
    return (ours.st_dev, ours.st_ino) == (opened.st_dev, opened.st_ino)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO or pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a plain file"


def _read_capped(fd: int, cap: int) -> bytes:
    # Chunks joined once at the end: a growing buffer would copy itself as it grows.
    chunks: list[bytes] = []
    total = 0
    while total <= cap:
        chunk = os.read(fd, min(_CHUNK, cap + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
    raise TomlProblem(f"is larger than {cap} bytes; nothing was read")


def decode(raw: bytes) -> str:
    """UTF-8 text without a leading BOM; a bad byte is refused with its line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise TomlProblem("is not UTF-8 text", line=line) from None
    return text.removeprefix("\ufeff")


def check_shape(
    text: str, *, max_depth: int = MAX_DEPTH, max_key_parts: int = MAX_KEY_PARTS
) -> None:
    """Refuse nesting deeper than ``max_depth`` or a key of more than ``max_key_parts`` parts.

    A scan, not a parser: it only has to agree with ``tomllib`` on what is
    inside a string or comment. Dots are counted between separators, so a
    float value (``0.5``) counts as a two-part key, far below any limit.
    """
    depth = 0
    dots = 0
    line = 1
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first in "\"'":
            if len(token) >= 6 and token[1:3] == first * 2:
                line += token.count("\n")
            continue
        if first == "#":
            continue
        if first == ".":
            dots += 1
            if dots >= max_key_parts:
                raise TomlProblem(f"has a dotted key of more than {max_key_parts} parts", line=line)
            continue
        if first in _KEY_BREAK:
            dots = 0
        if first == "\n":
            line += 1
        elif first in _OPEN:
            depth += 1
            if depth > max_depth:
                raise TomlProblem(
                    f"nests arrays or tables deeper than {max_depth} levels", line=line
                )
        elif first in _CLOSE:
            depth = max(0, depth - 1)


def parse(text: str) -> dict[str, Any]:
    """``tomllib.loads`` after :func:`check_shape`; every failure is a :class:`TomlProblem`."""
    check_shape(text)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason, line, column = toml_error_parts(exc)
        raise TomlProblem(f"is not valid TOML: {clean(reason)}", line=line, column=column) from None
    except RecursionError:  # the scan missed a nesting: never a traceback
        raise TomlProblem(f"nests arrays or tables deeper than {MAX_DEPTH} levels") from None


def read(path: Path, cap: int, *, allow_stdin: bool = False) -> tuple[str, dict[str, Any]]:
    """Read, bound and parse a TOML file: its text and its data.

    Raises:
        TomlProblem: see :func:`read_bytes`, :func:`decode`, :func:`parse`.
        FileNotFoundError: the file does not exist.
    """
    raw = read_bytes(path, cap, allow_stdin=allow_stdin)
    text = decode(raw)
    del raw  # the text alone from here: memory stays a small multiple of the file
    return text, parse(text)
