"""Text fields that refuse a paste holding control characters.

Measured on Textual 8.2.8: an ``Input`` or ``TextArea`` writes its text to
the terminal as is, so a pasted ``ESC [ 2 J`` clears the operator's screen
and an OSC sequence can set the window title. Editing widgets cannot go
through ``safe()`` (the operator must edit the real text), so these refuse
such a paste instead and say why; tabs and line ends stay allowed (CSV,
TSV, Windows line ends). Replacing the characters would silently change
the ids that are sent; a file is the way to bring such input in: its bad
lines are reported and never shown raw. The ``TextArea`` variant is in
:mod:`bottui.tui.widgets.plain_text_area`, apart because it is costly to import.
"""

from __future__ import annotations

from typing import Final

from textual import events
from textual.widget import Widget
from textual.widgets import Input

from bottui.plaintext import has_control

#: Characters a pasted list of ids may hold.
_ALLOWED: Final = str.maketrans("", "", "\t\r\n")


def forbidden_in_paste(text: str) -> str | None:
    """The first character that makes ``text`` unsafe to show (``U+001B``), or None."""
    stripped = text.translate(_ALLOWED)
    if not has_control(stripped):
        return None
    first = next(ch for ch in stripped if has_control(ch))
    return f"U+{ord(first):04X}"


def refuse_paste(widget: Widget, event: events.Paste) -> bool:
    """Stop ``event`` and tell the operator when the paste is unsafe; True if refused."""
    code = forbidden_in_paste(event.text)
    if code is None:
        return False
    event.prevent_default()
    event.stop()
    widget.notify(
        f"The pasted text holds a control character ({code}) and was not pasted. "
        "Save it to a file and load the file: bad lines are reported and skipped.",
        title="Not pasted",
        severity="warning",
        markup=False,
    )
    return True


class PlainInput(Input):
    """An ``Input`` that refuses a paste holding control characters."""

    def _on_paste(self, event: events.Paste) -> None:
        # prevent_default() keeps Input's own paste handler from running.
        refuse_paste(self, event)
