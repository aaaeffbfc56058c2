"""Messages the screens and the app exchange.

Workers only call :mod:`bottui.ops` and post one of these; handlers update
widgets. Nothing here holds a token.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class ProjectChosen(Message):
    """The operator chose the current project (None: no project)."""

    account: str | None
    project: str | None


class InventoryChanged(Message):
    """The inventory changed: screens that show it refresh."""
