"""The running BottuiApp, typed, for the screens and dialogs that use its services."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from bottui.tui.app import BottuiApp


def bottui_app(node: MessagePump) -> BottuiApp:
    """``node.app`` as the BottuiApp it is (an assertion, not a conversion)."""
    from bottui.tui.app import BottuiApp  # here: the app module imports the screens

    app = node.app
    assert isinstance(app, BottuiApp)
    return app
