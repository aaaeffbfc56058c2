"""Where the CLI prints, and what it does when it cannot: streams, errors, a y/N question.

Every line and message goes through :func:`bottui.plaintext.clean` here
(:class:`Output`), so a command passes untrusted values (server answers, file
names, ids, warnings) as they are and nothing it prints can move the cursor
or recolour the terminal. Ids shown to a person still go through
:func:`~bottui.plaintext.show_id` at the caller, which reveals invisible
characters as well (cleaning its result again changes nothing). The JSON
document is written by :mod:`bottui.store.safe_export` (C1 and bidi controls
escaped). With ``--json`` stdout holds exactly one JSON document and every
message goes to stderr.

Every error the CLI reports is a :class:`~bottui.api.errors.BottuiError`
(store errors included): :func:`render_error` puts its title and details on
stderr, its :meth:`~bottui.api.errors.BottuiError.to_json` document on stdout
under ``--json``; its ``exit_code`` is the command's (CONVENTIONS.md).

A stdout that cannot be written (``| head -1``, ``>&-``, ``>/dev/full``) ends a
command quietly. Python ignores SIGPIPE, so a write to a pipe whose reader is gone raises
:class:`BrokenPipeError`: in the middle of a command, or when the interpreter
flushes stdout at exit ("Exception ignored ... BrokenPipeError", exit 120).
A full device raises ``OSError`` (ENOSPC) the same way, and a stream closed
before start (``>&-``) is ``None`` in :mod:`sys`. As Unix tools do, bottui
then says nothing more on that stream and keeps the exit code it would
otherwise have had (CONVENTIONS.md): what happened to a change decides it,
never where its report could not be printed; a bulk run goes on, so every
request in flight finishes and is journaled. The CLI's streams are wrapped
in a :class:`PipeGuard`, :func:`flush_at_exit` does the last flush, and
:func:`reserve_standard_fds` keeps a closed descriptor 0, 1 or 2 from being
reused by a file bottui opens (the journal would then receive stdout).

:func:`confirm_on_terminal` is the y/N question a protected change, a
playbook run or a warned change asks; the commands call it through this
module (``output.confirm_on_terminal``), so a test can answer it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable
from typing import Any, Final, TextIO, cast

from bottui.api.errors import BottuiError, RefusedError
from bottui.plaintext import clean
from bottui.store import safe_export


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


#: What a write to an unwritable stream raises: a reader gone (BrokenPipeError),
#: a full or failing device (OSError), a stream closed under us (ValueError).
#: Not an encoding error (UnicodeError is a ValueError): that is a bug to see.
UNWRITABLE: Final = (OSError, ValueError)


def _unwritable(exc: BaseException) -> bool:
    """Whether ``exc`` says the stream cannot be written (not that the text was wrong)."""
    return isinstance(exc, UNWRITABLE) and not isinstance(exc, UnicodeError)


def reserve_standard_fds() -> None:
    """Open the null device on each of descriptors 0, 1 and 2 that is closed.

    A command started with ``>&-`` has no descriptor 1: the next file opened
    (the journal) would get it, and anything written to "stdout" would land
    in that file. The null device takes the place instead, and a stream
    :mod:`sys` left as ``None`` is opened on it (so ``--help`` goes nowhere,
    not to stderr).
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                opened = os.open(os.devnull, os.O_RDWR)
                if opened != fd:  # a lower descriptor was free after all: keep none of it
                    os.close(opened)
    with contextlib.suppress(OSError):
        if sys.stdout is None:
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        if sys.stderr is None:
            sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115


class PipeGuard:
    """A text stream that stops writing, quietly, once it cannot be written.

    Everything but ``write`` and ``flush`` is the wrapped stream's. A stream
    that is ``None`` (closed before start) drops every write.
    """

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        #: The stream cannot be written (reader gone, device full, closed):
        #: writes are dropped from then on.
        self.reader_gone = stream is None

    def __repr__(self) -> str:
        return f"PipeGuard({self.stream!r})"

    def write(self, text: str) -> int:
        """Write ``text``, or drop it once the reader has gone."""
        if not self.reader_gone and self.stream is not None:
            try:
                return self.stream.write(text)
            except UNWRITABLE as exc:
                if not _unwritable(exc):
                    raise
                self._gone()
        return len(text)

    def flush(self) -> None:
        """Flush, or nothing once the reader has gone."""
        if not self.reader_gone and self.stream is not None:
            try:
                self.stream.flush()
            except UNWRITABLE as exc:
                if not _unwritable(exc):
                    raise
                self._gone()

    def _gone(self) -> None:
        self.reader_gone = True
        if self.stream is not None:
            silence(self.stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def guard(stream: TextIO | None) -> TextIO:
    """``stream`` wrapped in a :class:`PipeGuard` (once)."""
    if isinstance(stream, PipeGuard):
        return cast(TextIO, stream)
    return cast(TextIO, PipeGuard(stream))


def flush_at_exit(code: int) -> int:
    """Flush stdout and stderr now, quietly if they cannot be written; returns ``code``.

    A stream that fails is pointed at the null device, so the interpreter's
    own flush at exit has nothing left to fail on (it would exit 120).
    """
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except UNWRITABLE:
            silence(stream)
            with contextlib.suppress(*UNWRITABLE):
                stream.flush()
    return code


class Output:
    """The CLI's two streams, and whether stdout holds one JSON document (``--json``)."""

    def __init__(self, as_json: bool, out: TextIO | None = None, err: TextIO | None = None):
        self.as_json = as_json
        self.out = guard(out or sys.stdout)
        self.err = guard(err or sys.stderr)

    def line(self, text: str = "") -> None:
        """A human line, cleaned: stdout normally, stderr under --json."""
        print(clean(text), file=self.err if self.as_json else self.out)

    def message(self, text: str) -> None:
        """A cleaned message that is never part of the result: always stderr."""
        print(clean(text), file=self.err)

    def document(self, doc: Any) -> None:
        """The one JSON document of --json (C1 and bidi controls escaped)."""
        safe_export.dump(doc, self.out, indent=2)
        self.out.write("\n")

    def result(self, doc: Any, text: str | Iterable[str]) -> None:
        """A command's result: ``doc`` as the one document under --json, else ``text``
        (one line, or lines: an iterable is only walked without --json)."""
        if self.as_json:
            self.document(doc)
            return
        for line in [text] if isinstance(text, str) else text:
            self.line(line)


def render_error(out: Output, error: BottuiError) -> int:
    """Report ``error``: words on stderr, its document under --json; its exit code."""
    out.message(f"error: {error.title}")
    details = error.details
    if details:
        for part in clean(details, keep_newlines=True).splitlines():
            out.message(f"  {part}")
    if out.as_json:
        out.document(error.to_json())
    return error.exit_code


class UsageError(RefusedError):
    """Invalid flags or values, or a change not confirmed (exit 2)."""


def confirm_on_terminal(out: Output, question: str) -> None:
    """Ask y/N on a terminal; refuse (exit 2) when there is none or the answer is not yes."""
    if not sys.stdin.isatty():
        raise UsageError(
            "Not confirmed", "stdin is not a terminal: pass --yes to confirm; nothing was sent"
        )
    out.err.write(f"{question} [y/N] ")
    out.err.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise UsageError("Not confirmed", "nothing was sent")
