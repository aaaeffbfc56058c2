"""The notice the Projects screen shows while the keyring cannot be used.

Says what failed (the :class:`~bottui.store.errors.KeyringUnavailable` title
and reason) and what to do about it: its ``details`` carry the remedies
(environment variables, a Secret Service session, keyring's configuration).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from bottui.store.errors import KeyringUnavailable
from bottui.tui.error_view import error_line


class KeyringNotice(Vertical):
    """A framed notice; hidden while the keyring works. Never takes the focus."""

    DEFAULT_CSS = """
    KeyringNotice {
        height: auto; border: round $error; padding: 0 1;
        border-title-color: $error; border-title-style: bold;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="keyring-notice-text")

    def on_mount(self) -> None:
        self.border_title = "Keyring unavailable"
        self.display = False

    def show(self, error: KeyringUnavailable | None) -> None:
        """Show ``error`` and its remedies; ``None`` hides the notice."""
        self.display = error is not None
        if error is None:
            return
        text = error_line("", error, sep=" (k checks again).\n", keep_newlines=True)
        self.query_one("#keyring-notice-text", Static).update(text)
