"""The one place that makes untrusted text safe to show.

Anything that comes from the server, the user, a file or the inventory goes
through :func:`clean` before it reaches a terminal: C0 and C1 control
characters (ESC, BEL, backspace, carriage return, CSI and the rest) are
replaced, so nothing can move the cursor, change colours or set the window
title. The TUI wraps the result as plain ``Content`` (see
``bottui.tui.widgets.untrusted_text``); the CLI prints it as is.

:func:`show_id` goes one step further for ids shown to a person: characters
that are invisible yet make two ids differ (zero-width spaces and joiners,
the word joiner, the Arabic letter mark, the BOM, the soft hyphen, the
Mongolian vowel separator) are written as ``\\u200b`` and the like, so two ids
that look the same can be told apart. Data outputs (``--json``, ``--output``,
TOML) keep ids exact. :func:`repair_surrogates` turns lone surrogates, which
no UTF-8 stream can carry, into U+FFFD.
"""

from __future__ import annotations

import re
from typing import Final

# C0 (U+0000-U+001F), DEL, C1 (U+0080-U+009F), and the Unicode line/paragraph
# separators and bidi overrides, which re-order or break what is shown.
_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_KEEP_NEWLINES: Final = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
REPLACEMENT: Final = "\N{REPLACEMENT CHARACTER}"
#: Invisible characters that :func:`clean` keeps and :func:`show_id` reveals.
INVISIBLE: Final = (
    "\u00ad\u034f\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
)
# An invisible character, or a backslash that starts a literal "\u".
_INVISIBLE: Final = re.compile(f"[{INVISIBLE}]|\\\\(?=u)")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def clean(value: object, *, keep_newlines: bool = False) -> str:
    """Return ``value`` as a string with every control character replaced.

    Args:
        value: Any value; ``None`` becomes the empty string.
        keep_newlines: Keep ``\\n`` (for multi-line detail views).
    """
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    pattern = _CONTROL_KEEP_NEWLINES if keep_newlines else _CONTROL
    return pattern.sub(REPLACEMENT, text)


def show_id(value: object) -> str:
    """An id as shown to a person: :func:`clean`, with invisible characters made visible.

    Each character of :data:`INVISIBLE` becomes its ``\\uXXXX`` escape, and a
    backslash before ``u`` is doubled so that an id holding the text
    ``\\u200b`` still reads differently from one holding the character.
    """
    return _INVISIBLE.sub(_escape, clean(value))


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    return "\\\\" if char == "\\" else f"\\u{ord(char):04x}"


def repair_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (from a ``\\ud800`` JSON escape) as U+FFFD."""
    if text.isascii():
        return text
    return _SURROGATE.sub(REPLACEMENT, text)


def has_control(value: str) -> bool:
    """True when ``value`` holds a character that :func:`clean` would replace."""
    return _CONTROL.search(value) is not None
