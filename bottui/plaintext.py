"""The one place that makes untrusted text safe to show.

Anything that comes from the server, the user, a file or the inventory goes
through :func:`clean` before it reaches a terminal: C0 and C1 control
characters (ESC, BEL, backspace, carriage return, CSI and the rest) are
replaced, so nothing can move the cursor, change colours or set the window
title. The TUI wraps the result as plain ``Content`` (see
``bottui.tui.widgets.safe``); the CLI prints it as is.
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


def has_control(value: str) -> bool:
    """True when ``value`` holds a character that :func:`clean` would replace."""
    return _CONTROL.search(value) is not None
