"""The terminal: TERM, colours, tmux's Esc delay and mouse, and the OSC 52 clipboard.

Everything here is read from the environment and from tmux, never by asking
the terminal itself: a query sequence would need a reply read from the
terminal, which a doctor run in a pipe or a script must not wait for. So
some facts cannot be known (whether the terminal honours OSC 52), and the
check says so instead of guessing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from bottui.ops.doctor.model import Check, Verdict
from bottui.ops.doctor.tmux import TmuxFacts

#: Above this Esc feels slow (tmux waits this long for a key sequence after Esc).
ESCAPE_TIME_MAX_MS: Final = 25
_TRUECOLOR: Final = frozenset({"truecolor", "24bit"})

#: Terminals known to honour OSC 52 (TERM_PROGRAM values, TERM prefixes) without asking.
_OSC52_TERM_PROGRAMS: Final = {"WezTerm": "WezTerm", "ghostty": "Ghostty"}
_OSC52_TERMS: Final = {"xterm-kitty": "kitty", "foot": "foot", "xterm-ghostty": "Ghostty"}


def check_terminal(environ: Mapping[str, str], tmux: TmuxFacts | None) -> Check:
    """TERM and COLORTERM: can the TUI draw, and in 24-bit colour?"""
    term = environ.get("TERM", "")
    colorterm = environ.get("COLORTERM", "")
    shown = f"TERM={term or '(unset)'}, COLORTERM={colorterm or '(unset)'}"
    if not term or term == "dumb":
        return Check(
            "terminal",
            "Terminal",
            Verdict.WARNING,
            f"{shown}: not a terminal the TUI can draw on (the CLI works anywhere)",
            "run bottui in a terminal emulator; TERM is set by it (xterm-256color and alike)",
        )
    if colorterm.lower() in _TRUECOLOR:
        return Check("terminal", "Terminal", Verdict.OK, f"{shown}: 24-bit colour")
    if tmux is not None and tmux.features is not None and "RGB" in tmux.features:
        return Check(
            "terminal",
            "Terminal",
            Verdict.OK,
            f"{shown}: tmux reports 24-bit colour (RGB) for the outer terminal",
        )
    return Check(
        "terminal",
        "Terminal",
        Verdict.WARNING,
        f"{shown}: 24-bit colour not announced; colours are reduced to 256",
        "if the terminal shows 24-bit colour, export COLORTERM=truecolor "
        "(under tmux also: set -as terminal-features ',*:RGB')",
    )


def check_tmux(environ: Mapping[str, str], tmux: TmuxFacts | None) -> Check:
    """Inside tmux: ``escape-time`` (Esc delay) and ``mouse``."""
    if tmux is None:
        return Check("tmux", "tmux", Verdict.SKIPPED, "not running inside tmux (TMUX unset)")
    if tmux.error is not None:
        return Check(
            "tmux",
            "tmux",
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
    return Check("tmux", "tmux", verdict, ", ".join(found), fix)


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


__all__ = ["ESCAPE_TIME_MAX_MS", "check_osc52", "check_terminal", "check_tmux"]
