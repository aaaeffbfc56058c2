"""Focus never rests on something the operator cannot see.

Textual lets a widget keep (and take) the focus while it, or a container
above it, has ``display: none``: an empty table hidden behind its "no
dimension known" words, or the filter line after Esc hid it. The keys then
went to that invisible widget: the key bar listed its keys ("esc Clear the
filter", "⏎ Edit thresholds"), letters were typed into a filter nobody could
see (and narrowed the next rows out of view), and the screen's own keys
(``a`` "Press a to add one") did nothing.

:func:`focus_shown` is how a screen gives the focus to a widget it may have
hidden; :func:`show_widget` shows or hides one and moves the focus off it
when hidden; :func:`release_hidden_focus` is the app's safety net, run
before every key is routed: a hidden focused widget loses the focus, so the
screen's keys work.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widget import Widget


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
