"""A masked input for a token: shows dots, never copies its value anywhere.

Textual's password ``Input`` masks what it draws, but its copy and cut
actions would still send the clear value to the terminal's clipboard (an
OSC 52 escape on the output stream). This one refuses both.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input


class SecretInput(Input):
    """``Input(password=True)`` whose copy and cut do nothing."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["password"] = True
        super().__init__(**kwargs)

    def action_copy(self) -> None:
        """Never copy a secret."""

    def action_cut(self) -> None:
        """Never cut a secret to the clipboard."""

    def forget(self) -> None:
        """Clear the value (and with it the only clear copy outside the keyring)."""
        self.value = ""
