"""Every dialog keeps the header: the profile and project are on screen whatever is open.

A dialog is a modal screen over the main one, and a tall one (bulk
revocation, a journal entry, the threshold editor at 80x24) used to cover
the main screen's context bar, so the operator could not see which profile
and project a confirmation would act on. :func:`keep_header` gives each of
bottui's dialogs a context bar of its own, docked on the top row (its
contents are then laid out under it); the app calls it whenever a screen
comes up (Textual's public ``screen_change_signal``). Textual's own modal
screens (the command palette) are left as they are.
"""

from __future__ import annotations

from typing import Any

from textual.screen import ModalScreen, Screen

from bottui.tui.widgets.context_bar import ContextBar


def keep_header(screen: Screen[Any]) -> None:
    """Dock a context bar on top of ``screen`` if it is one of bottui's dialogs without one."""
    if not isinstance(screen, ModalScreen) or not type(screen).__module__.startswith("bottui."):
        return
    if screen.query(ContextBar):
        return
    screen.mount(ContextBar(classes="dialog-header"))


__all__ = ["keep_header"]
