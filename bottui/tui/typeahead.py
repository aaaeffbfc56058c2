"""Keys typed ahead never act on the screen below a dialog that just closed.

"id, Enter, 30m": an operator typing into a confirmation does not look up
when the Enter sends it, and the rest of what they typed reaches the screen
under the dialog as commands (the ``3`` of ``30m`` switched to Grants, a
``t`` opened another confirmation). For :data:`WINDOW` seconds after a
dialog that sends (or refused to) closes, :class:`TypeaheadGuard` tells the
app to drop printable keys and Enter that would reach a screen that is not
a dialog; the key bar says so (k9s and lazygit keep text typed into a
dialog from triggering actions the same way). The clock is injectable so
tests drive the window without sleeping.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App
from textual.screen import ModalScreen

from bottui.tui.widgets.key_bar import KeyBar

#: How long keys are kept from the screen below, in seconds.
WINDOW = 1.0
#: What the key bar says while keys are dropped.
NOTE = "keys typed ahead ignored"
#: How long the note stays after the window, in seconds: time to read it.
NOTE_AFTER = 0.5


class TypeaheadGuard:
    """When to drop a key: within :data:`WINDOW` of a sending dialog's close."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, window: float | None = None
    ) -> None:
        self.clock = clock
        #: Seconds; :data:`WINDOW` unless given.
        self.window = WINDOW if window is None else window
        self._until: float | None = None
        #: How many keys were dropped since the guard was last armed.
        self.dropped = 0

    def arm(self) -> None:
        """A dialog that sends closed: keys typed ahead are dropped from now on."""
        self._until = self.clock() + self.window
        self.dropped = 0

    @property
    def armed(self) -> bool:
        """Whether keys are being kept from the screen below right now."""
        if self._until is None:
            return False
        if self.clock() >= self._until:
            self._until = None
            return False
        return True

    def keeps_off(self, app: App[Any], event: events.Event) -> bool:
        """Drop ``event`` if it is a key typed ahead for the screen below; the key bar
        says so until the window is over. True: dropped."""
        if (
            not isinstance(event, events.Key)
            or event.is_forwarded
            or isinstance(app.screen, ModalScreen)  # a dialog still takes its keys
            or not self.drops(event)
        ):
            return False
        for bar in app.screen.query(KeyBar):
            bar.say(NOTE)
        screen = app.screen

        def clear() -> None:
            # By the guard's clock, not the timer's: the note stays while keys are
            # dropped (a busy machine's late timer, or a test's stopped clock).
            if self.armed:
                app.set_timer(self.remaining() + NOTE_AFTER, clear)
                return
            for bar in screen.query(KeyBar):
                bar.say("")

        app.set_timer(self.window + NOTE_AFTER, clear)
        return True

    def remaining(self) -> float:
        """Seconds left in the window (0 when it is over)."""
        return 0.0 if self._until is None else max(self._until - self.clock(), 0.0)

    def drops(self, event: events.Key) -> bool:
        """Whether ``event`` is a key typed ahead: printable or Enter, within the window."""
        if not (event.is_printable or event.key == "enter"):
            return False
        if not self.armed:
            return False
        self.dropped += 1
        return True


def arm(app: App[Any]) -> None:
    """Open the window of ``app`` (bottui's app: others have no guard, and nothing happens)."""
    guard = getattr(app, "typeahead", None)
    if isinstance(guard, TypeaheadGuard):
        guard.arm()


__all__ = ["NOTE", "NOTE_AFTER", "WINDOW", "TypeaheadGuard", "arm"]
