"""Rules every screen keeps so the operator never acts blind.

**States never by colour alone** (:func:`tone`). Every state (ON/OFF/unknown,
outcomes, token states) is told by its words, then by an attribute (bold,
underline); colour only helps. Under NO_COLOR Textual turns every colour into
a grey of the same brightness, and a dark red or green becomes a grey that
vanishes on a dark background (OFF was colour 237 on 235), so there the
colour is left out and the text keeps the screen's own foreground. Textual
tests the variable the same way: set, to any value, is NO_COLOR
(``App.__init__``); it is read at each call, so an app created after the
variable changes follows it.

**Focus never rests on something the operator cannot see.** Textual lets a
widget keep (and take) the focus while it, or a container above it, has
``display: none``: an empty table hidden behind its "no dimension known"
words, or the filter line after Esc hid it. The keys then went to that
invisible widget: the key bar listed its keys, letters were typed into a
filter nobody could see, and the screen's own keys did nothing.
:func:`focus_shown` is how a screen gives the focus to a widget it may have
hidden; :func:`show_widget` shows or hides one and moves the focus off it
when hidden; :func:`release_hidden_focus` is the app's safety net, run
before every key is routed.

**Tab from a dialog's last field never lands on Cancel with typing to lose**
(:func:`tab_target`). Dialogs open with focus where a stray Enter is harmless
(Cancel, or the first field), and Tab follows the fields in order. Left to
the DOM order, Tab from the *last* field lands on **Cancel**, so Tab then
Enter, the way one leaves a form, threw away what was just typed. So, for
every modal dialog:

* Tab from a dialog's last field, while any of its fields holds text, goes
  to the dialog's primary button when it can be pressed: the change's
  **Confirm** (Enter there is the deliberate second key the confirmation
  asks for anyway) or the form's primary action (Add, Save, Store in
  keyring; never a destructive neighbour such as Delete stored);
* when that button cannot be pressed yet (a protected profile's project id
  not typed right, a form not valid), Tab goes back to the field to fix
  (the first one marked invalid, else the first field);
* with nothing typed, Tab follows the DOM order: Cancel loses nothing;
* Shift+Tab is never changed: Cancel stays one key away, and Esc cancels.

**Keys typed ahead never act on the screen below a dialog that just closed**
(:class:`TypeaheadGuard`). "id, Enter, 30m": an operator typing into a
confirmation does not look up when the Enter sends it, and the rest of what
they typed reached the screen under the dialog as commands (the ``3`` of
``30m`` switched to Grants, a ``t`` opened another confirmation). For
:data:`WINDOW` seconds after a dialog that sends (or refused to) closes, the
app drops printable keys and Enter that would reach a screen that is not a
dialog; the key bar says so (k9s and lazygit keep text typed into a dialog
from triggering actions the same way). The clock is injectable so tests
drive the window without sleeping.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, Input

from bottui.tui.widgets.screen_bars import KeyBar

# -- states never by colour alone ------------------------------------------------------


def no_color() -> bool:
    """True when NO_COLOR is set (any value), as Textual reads it."""
    return "NO_COLOR" in os.environ


def tone(attributes: str, extra: str) -> str:
    """A Rich style: ``attributes`` always, ``extra`` (colours, dim) only with colour."""
    if no_color():
        return attributes
    return f"{attributes} {extra}".strip()


# -- focus never on a hidden widget ----------------------------------------------------


def is_shown(widget: Widget) -> bool:
    """Whether the widget and every container up to its screen are displayed."""
    if not widget.is_attached:
        return False
    for node in widget.ancestors_with_self:
        if isinstance(node, Screen):
            return True
        if isinstance(node, Widget) and not node.display:
            return False
    return False


def release_hidden_focus(screen: Screen[Any]) -> bool:
    """Take the focus off a widget that is not shown; True when it was taken.

    Nothing is focused then: the keys go to the screen, whose bindings work.
    """
    focused = screen.focused
    if focused is None or is_shown(focused):
        return False
    screen.set_focus(None)
    return True


def focus_shown(widget: Widget) -> None:
    """Focus ``widget`` if it is shown, else nothing: the screen's keys work.

    The focus leaves where it was either way (Enter in the filter line
    goes back to the table, or to the screen while the table is hidden).
    """
    widget.screen.set_focus(widget if is_shown(widget) else None)


def show_widget(widget: Widget, shown: bool, *, take_focus: bool = False) -> None:
    """Show or hide ``widget``; hidden, it (or what it holds) gives the focus up.

    With ``take_focus``, a widget shown while nothing has the focus takes it
    (a table whose first rows arrived: Enter and the arrows act on it).
    """
    widget.display = shown
    if not widget.is_attached:
        return
    screen = widget.screen
    if not shown:
        release_hidden_focus(screen)
    elif take_focus and screen.focused is None and is_shown(widget) and widget.focusable:
        screen.set_focus(widget)


# -- Tab from a dialog's last field ----------------------------------------------------


def _is_cancel(widget: Widget | None) -> bool:
    return isinstance(widget, Button) and (widget.id or "").split("-")[-1] == "cancel"


def _primary(screen: Screen[Any]) -> Button | None:
    """The button the dialog is for: a change's Confirm, or a form's primary action."""
    for button in screen.query(Button):
        if (
            button.id == "confirm"
            or button.variant == "primary"
            or button.has_class("primary-action")
        ):
            return button if button.focusable else None  # disabled: not focusable
    return None


def tab_target(screen: Screen[Any]) -> Widget | None:
    """Where Tab should go instead of the next widget, or None for the usual order."""
    if not isinstance(screen, ModalScreen):
        return None
    chain = screen.focus_chain
    focused = screen.focused
    if focused is None or focused not in chain:
        return None
    # Here, not at the top: TextArea costs the first frame ~5 ms to import.
    from textual.widgets import TextArea

    fields = [w for w in chain if isinstance(w, Input | TextArea)]
    if not fields or focused is not fields[-1]:
        return None
    following = chain[(chain.index(focused) + 1) % len(chain)]
    typed = any((f.value if isinstance(f, Input) else f.text) for f in fields)
    if not typed or not _is_cancel(following):
        return None
    primary = _primary(screen)
    if primary is not None:
        return primary
    # A change's confirmation knows which field keeps it from being sent.
    to_fix = getattr(screen, "field_to_fix", None)
    if callable(to_fix) and isinstance(found := to_fix(), Widget):
        return found
    invalid = [f for f in fields if f.has_class("-invalid")]
    return (invalid or fields)[0]


# -- keys typed ahead ------------------------------------------------------------------

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
