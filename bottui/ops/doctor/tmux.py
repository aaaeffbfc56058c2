"""What the tmux server bottui runs under says about itself (``tmux show -gv``).

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
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

#: Asked in this order, one answer line each.
_ASKED: Final = ("escape-time", "mouse", "set-clipboard")
_FEATURES_FORMAT: Final = "#{client_termfeatures}"


@dataclass(frozen=True)
class TmuxFacts:
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
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(environ),
        )
    except OSError as exc:
        return TmuxFacts(error=f"tmux could not be started: {exc.strerror or exc}")
    try:
        async with asyncio.timeout(timeout):
            out, err = await proc.communicate()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        return TmuxFacts(error=f"tmux did not answer within {timeout:g} s")
    lines = out.decode("utf-8", "replace").splitlines()
    if not lines:
        reason = " ".join(err.decode("utf-8", "replace").split()) or f"exit {proc.returncode}"
        return TmuxFacts(error=f"tmux answered nothing: {reason}")
    return _facts(lines)


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


__all__ = ["TmuxFacts", "inside_tmux", "read_tmux"]
