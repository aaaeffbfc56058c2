"""The key bar: Textual's ``Footer``, rebuilt once per burst of binding changes.

Textual 8.2.8's ``Footer`` recomposes all its keys once per "bindings
updated" signal. A screen's first show sends three in a row (the focus is
set, the screen stack changes, a refresh follows), so the 14 keys were
built three times, each key styled again with its component classes, before
the first frame could go out: ~20 ms of ``bottui demo``'s start-up, measured
with ``tests/bench/startup.py``. Here the signals that arrive before the
next refresh share one rebuild, which reads the bindings as they are by then.
"""

from __future__ import annotations

from textual.widgets import Footer


class KeyFooter(Footer):
    """A ``Footer`` whose recompose requests coalesce until the next refresh."""

    def __init__(self) -> None:
        super().__init__()
        self._rebuild_queued = False

    async def recompose(self) -> None:
        # Textual calls this after a refresh, once per signal; the first call
        # queues one rebuild after the next refresh and the rest find it queued.
        if not self._rebuild_queued:
            self._rebuild_queued = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_queued = False
        await super().recompose()
