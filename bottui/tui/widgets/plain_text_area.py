"""A ``TextArea`` that refuses a paste holding control characters.

Apart from :mod:`bottui.tui.widgets.untrusted_text` because Textual's
``TextArea`` costs ~5 ms to import and only the bulk dialog uses it.
"""

from __future__ import annotations

from textual import events
from textual.widgets import TextArea

from bottui.tui.widgets.untrusted_text import refuse_paste


class PlainTextArea(TextArea):
    """A ``TextArea`` that refuses a paste holding control characters."""

    async def _on_paste(self, event: events.Paste) -> None:
        refuse_paste(self, event)
