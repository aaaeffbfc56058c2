"""The terminal and tmux, as doctor sees them: TERM, colours, tmux's options, the OSC 52 clipboard.

:func:`read_tmux` asks the tmux server once; the checks below judge what it
and the environment say.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Final

from bottui.ops.doctor.checks import Check, Verdict

# The terminal: TERM, colours, tmux's Esc delay and mouse, and the OSC 52 clipboard.
#
# Everything here is read from the environment and from tmux, never by asking
# the terminal itself: a query sequence would need a reply read from the
# terminal, which a doctor run in a pipe or a script must not wait for. So
# some facts cannot be known (whether the terminal honours OSC 52), and the
# check says so instead of guessing.

#: Above this Esc feels slow (tmux waits this long for a key sequence after Esc).
ESCAPE_TIME_MAX_MS: Final = 25
_TRUECOLOR: Final = frozenset({"truecolor", "24bit"})

#: Terminals known to honour OSC 52 (TERM_PROGRAM values, TERM prefixes) without asking.
_OSC52_TERM_PROGRAMS: Final = {"WezTerm": "WezTerm", "ghostty": "Ghostty"}


_OSC52_TERMS: Final = {"xterm-kitty": "kitty", "foot": "foot", "xterm-ghostty": "Ghostty"}


_terminal: Final = partial(Check, "terminal", "Terminal")
_tmux: Final = partial(Check, "tmux", "tmux")


def check_terminal(environ: Mapping[str, str], tmux: TmuxFacts | None) -> Check:
    """TERM and COLORTERM: can the TUI draw, and in 24-bit colour?"""
    term = environ.get("TERM", "")
    colorterm = environ.get("COLORTERM", "")
    shown = f"TERM={term or '(unset)'}, COLORTERM={colorterm or '(unset)'}"
    if not term or term == "dumb":
        return _terminal(
            Verdict.WARNING,
            f"{shown}: not a terminal the TUI can draw on (the CLI works anywhere)",
            "run bottui in a terminal emulator; TERM is set by it (xterm-256color and alike)",
        )
    if colorterm.lower() in _TRUECOLOR:
        return _terminal(Verdict.OK, f"{shown}: 24-bit colour")
    if tmux is not None and tmux.features is not None and "RGB" in tmux.features:
        return _terminal(
            Verdict.OK,
            f"{shown}: tmux reports 24-bit colour (RGB) for the outer terminal",
        )
    return _terminal(
        Verdict.WARNING,
        f"{shown}: 24-bit colour not announced; colours are reduced to 256",
        "if the terminal shows 24-bit colour, export COLORTERM=truecolor "
        "(under tmux also: set -as terminal-features ',*:RGB')",
    )


def check_tmux(environ: Mapping[str, str], tmux: TmuxFacts | None) -> Check:
    """Inside tmux: ``escape-time`` (Esc delay) and ``mouse``."""
    if tmux is None:
        return _tmux(Verdict.SKIPPED, "not running inside tmux (TMUX unset)")
    if tmux.error is not None:
        return _tmux(
            Verdict.WARNING,
            f"{tmux.error}: escape-time and mouse unknown",
            "check that `tmux show -gv escape-time` answers in this pane",
        )
    found: list[str] = []
    fixes: list[str] = []
    slow = tmux.escape_time_ms is not None and tmux.escape_time_ms > ESCAPE_TIME_MAX_MS
    found.append(
        f"escape-time {tmux.escape_time_ms if tmux.escape_time_ms is not None else '?'} ms"
        + (f" (above {ESCAPE_TIME_MAX_MS} ms: Esc feels slow)" if slow else "")
    )
    if slow:
        fixes.append("set -sg escape-time 10")
    mouse_off = tmux.mouse != "on"
    found.append(
        f"mouse {tmux.mouse or '?'}"
        + (" (clicks and scrolling do not reach bottui)" if mouse_off else "")
    )
    if mouse_off:
        fixes.append("set -g mouse on")
    verdict = Verdict.WARNING if fixes else Verdict.OK
    fix = ""
    if fixes:
        fix = "add to ~/.tmux.conf: " + "; ".join(fixes) + " (then: tmux source ~/.tmux.conf)"
    return _tmux(verdict, ", ".join(found), fix)


def check_osc52(environ: Mapping[str, str], tmux: TmuxFacts | None) -> Check:
    """Can ``c`` (copy, OSC 52) reach the clipboard? As far as can be known without asking."""
    title = "Clipboard (OSC 52)"
    unknowable = (
        "whether the terminal honours OSC 52 cannot be known without asking it, "
        "and terminals do not answer that question"
    )
    if tmux is not None:
        if tmux.error is not None:
            return Check("clipboard", title, Verdict.SKIPPED, f"{tmux.error}; {unknowable}")
        if tmux.set_clipboard != "on":
            return Check(
                "clipboard",
                title,
                Verdict.WARNING,
                f"tmux set-clipboard is {tmux.set_clipboard or '?'}: tmux drops the copy "
                "sequences applications send, so c (copy) does not reach the clipboard",
                "add to ~/.tmux.conf: set -s set-clipboard on",
            )
        if tmux.features is not None and "clipboard" in tmux.features:
            return Check(
                "clipboard",
                title,
                Verdict.OK,
                "tmux set-clipboard on, and tmux reports the outer terminal takes OSC 52",
            )
        return Check(
            "clipboard",
            title,
            Verdict.SKIPPED,
            f"tmux set-clipboard on; {unknowable} (tmux does not list it for this terminal)",
            "press c on a request in bottui and paste to try; if nothing comes, "
            "set -as terminal-features ',*:clipboard' for a terminal that does take it",
        )
    program = environ.get("TERM_PROGRAM", "")
    term = environ.get("TERM", "")
    known = _OSC52_TERM_PROGRAMS.get(program) or next(
        (name for prefix, name in _OSC52_TERMS.items() if term.startswith(prefix)), None
    )
    if known is not None:
        return Check("clipboard", title, Verdict.OK, f"{known} takes OSC 52")
    if program == "Apple_Terminal":
        return Check(
            "clipboard",
            title,
            Verdict.WARNING,
            "macOS Terminal ignores OSC 52: c (copy) does not reach the clipboard",
            "select with the mouse to copy, or use a terminal that takes OSC 52 "
            "(iTerm2, WezTerm, kitty, Ghostty)",
        )
    if program == "iTerm.app":
        return Check(
            "clipboard",
            title,
            Verdict.SKIPPED,
            "iTerm2 takes OSC 52 when 'Applications in terminal may access clipboard' is on; "
            "whether it is cannot be known from here",
            "iTerm2: Settings > General > Selection > "
            "Applications in terminal may access clipboard",
        )
    return Check(
        "clipboard",
        title,
        Verdict.SKIPPED,
        f"{unknowable} (TERM={term or '(unset)'}, TERM_PROGRAM={program or '(unset)'})",
        "press c on a request in bottui and paste to try",
    )


# What the tmux server bottui runs under says about itself (``tmux show -gv``).
#
# One ``tmux`` process asks for the options that matter to a TUI: how long
# tmux waits after Esc (``escape-time``), whether it passes the mouse on
# (``mouse``), whether it lets applications set the clipboard
# (``set-clipboard``), and what it knows of the outer terminal
# (``client_termfeatures``: ``RGB``, ``clipboard``). It is bounded by a timeout
# and killed past it: a tmux server that does not answer costs seconds, never
# the doctor.


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
