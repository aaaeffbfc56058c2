"""Opening a bulk input named by ``--from-file``: a regular file or a pipe, never blocking.

The path is opened with ``O_NONBLOCK`` (opening a FIFO without a writer
would wait for one forever) and must be a regular file or a pipe: a device
(``/dev/zero``, ``/dev/urandom``, a terminal) or a directory is refused. A
FIFO with no writer is refused at once; one with a writer is returned as a
stream, its first bytes included, to be spooled as stdin is (it cannot be
read twice). Every refusal is a
:class:`~bottui.ops.bulk.scan.BulkInputError` (exit 2), before anything is sent.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path
from typing import BinaryIO, Final, cast

from bottui.ops.bulk.scan import BulkInputError

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


__all__ = ["open_input"]
