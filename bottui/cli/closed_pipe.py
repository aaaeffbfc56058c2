"""A reader that stops early (``bottui journal | head -1``) ends a command quietly.

Python ignores SIGPIPE, so a write to a pipe whose reader is gone raises
:class:`BrokenPipeError`: in the middle of a command, or when the interpreter
flushes stdout at exit ("Exception ignored ... BrokenPipeError", exit 120).
As Unix tools do, bottui then says nothing and keeps the exit code it would
otherwise have had (CONVENTIONS.md); a bulk run goes on, so every request in
flight finishes and is journaled. The CLI's streams are wrapped in a
:class:`PipeGuard`, and :func:`flush_at_exit` does the last flush.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, TextIO, cast


def silence(stream: TextIO) -> None:
    """Point the stream's file descriptor at the null device.

    Later writes, and the flush at exit of what is still buffered, then go
    nowhere instead of raising again. A stream without a descriptor (a
    ``StringIO``) is left alone.
    """
    # io.UnsupportedOperation (no descriptor) is an OSError and a ValueError.
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)


class PipeGuard:
    """A text stream that stops writing, quietly, once its reader has gone.

    Everything but ``write`` and ``flush`` is the wrapped stream's.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        #: The reader closed the pipe: writes are dropped from then on.
        self.reader_gone = False

    def __repr__(self) -> str:
        return f"PipeGuard({self.stream!r})"

    def write(self, text: str) -> int:
        """Write ``text``, or drop it once the reader has gone."""
        if not self.reader_gone:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._gone()
        return len(text)

    def flush(self) -> None:
        """Flush, or nothing once the reader has gone."""
        if not self.reader_gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._gone()

    def _gone(self) -> None:
        self.reader_gone = True
        silence(self.stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def guard(stream: TextIO) -> TextIO:
    """``stream`` wrapped in a :class:`PipeGuard` (once)."""
    if isinstance(stream, PipeGuard):
        return cast(TextIO, stream)
    return cast(TextIO, PipeGuard(stream))


def flush_at_exit(code: int) -> int:
    """Flush stdout and stderr now, quietly if their reader is gone; returns ``code``."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except BrokenPipeError:
            silence(stream)
        except (OSError, ValueError):
            pass
    return code


__all__ = ["PipeGuard", "flush_at_exit", "guard", "silence"]
