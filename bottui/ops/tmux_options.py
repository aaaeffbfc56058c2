"""What the tmux server bottui runs under says about itself (``tmux show -gv``), for the doctor.

One ``tmux`` process asks for the options that matter to a TUI: how long
tmux waits after Esc (``escape-time``), whether it passes the mouse on
(``mouse``), whether it lets applications set the clipboard
(``set-clipboard``), and what it knows of the outer terminal
(``client_termfeatures``: ``RGB``, ``clipboard``). It is bounded by a timeout
and killed past it: a tmux server that does not answer costs seconds, never
the doctor.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Mapping
from typing import Final

import msgspec

#: Asked in this order, one answer line each.
_ASKED: Final = ("escape-time", "mouse", "set-clipboard")


_FEATURES_FORMAT: Final = "#{client_termfeatures}"


class TmuxFacts(msgspec.Struct, frozen=True):
    """The tmux options read; ``None`` where tmux gave no answer for one.

    ``error`` says why nothing could be read (no tmux binary, no answer in
    time, an error from the server); the other fields are then ``None``.
    """

    escape_time_ms: int | None = None
    mouse: str | None = None
    set_clipboard: str | None = None
    #: The outer terminal's features as tmux knows them (``RGB``, ``clipboard``, ...).
    features: frozenset[str] | None = None
    error: str | None = None


def inside_tmux(environ: Mapping[str, str]) -> bool:
    """Whether this process runs in a tmux pane (tmux sets ``TMUX`` there)."""
    return bool(environ.get("TMUX"))


async def read_tmux(environ: Mapping[str, str], *, timeout: float) -> TmuxFacts:
    """Ask the tmux server of ``TMUX`` for its options, within ``timeout`` seconds."""
    binary = shutil.which("tmux", path=environ.get("PATH"))
    if binary is None:
        return TmuxFacts(error="TMUX is set but no tmux program is on PATH")
    argv: list[str] = [binary]
    for name in _ASKED:
        argv += ["show", "-gv", name, ";"]
    argv += ["display", "-p", _FEATURES_FORMAT]
    try:
        code, out = await _run(argv, environ, timeout)
    except TimeoutError:  # before OSError: it is one
        return TmuxFacts(error=f"tmux did not answer within {timeout:g} s")
    except OSError as exc:
        return TmuxFacts(error=f"tmux could not be started: {exc.strerror or exc}")
    lines = out.decode("utf-8", "replace").splitlines()
    if not lines:
        return TmuxFacts(error=f"tmux answered nothing (exit {code}): no server at TMUX's socket?")
    return _facts(lines)


async def _run(argv: list[str], environ: Mapping[str, str], timeout: float) -> tuple[int, bytes]:
    """Run ``argv``; its exit code and output, or TimeoutError after ``timeout`` s (killed).

    The output comes through a pipe of our own, not ``asyncio.subprocess.PIPE``:
    the tmux client hands its stdout to the server, so a server that hangs
    keeps that pipe open after the client is killed, and asyncio's own pipe
    would then never close. Ours is closed here whatever the server does.
    """
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=asyncio.subprocess.DEVNULL,
            env=dict(environ),
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    try:
        async with asyncio.timeout(timeout):
            out = await reader.read()
            code = await proc.wait()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        raise
    finally:
        transport.close()
    return code, out


def _facts(lines: list[str]) -> TmuxFacts:
    answers = [*lines, *[""] * (len(_ASKED) + 1)]
    escape = answers[0].strip()
    features = answers[len(_ASKED)].strip()
    return TmuxFacts(
        escape_time_ms=int(escape) if escape.isdigit() else None,
        mouse=answers[1].strip() or None,
        set_clipboard=answers[2].strip() or None,
        features=frozenset(f for f in features.split(",") if f) if features else None,
    )
