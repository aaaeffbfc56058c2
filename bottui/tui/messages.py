"""Messages the screens and the app exchange.

Workers only call :mod:`bottui.ops` and post one of these; handlers update
widgets. Nothing here holds a token.
"""

from __future__ import annotations

from textual.message import Message


class ProjectChosen(Message):
    """The operator chose the current project (None: no project)."""

    # A plain __init__, not a dataclass: defined before the first frame,
    # where a dataclass costs ~0.3 ms.
    def __init__(self, account: str | None, project: str | None) -> None:
        super().__init__()
        self.account = account
        self.project = project


class InventoryChanged(Message):
    """The inventory changed: screens that show it refresh."""
