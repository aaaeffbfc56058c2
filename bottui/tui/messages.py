"""Messages the screens and the app exchange, and what the app returns to the CLI.

Workers only call :mod:`bottui.ops` and post one of these; handlers update
widgets. Nothing here holds a token. Below the app, its runner and the
first-run welcome (:mod:`bottui.tui.screens.projects`), which all read
:data:`START_DEMO`.
"""

from __future__ import annotations

from typing import Final

from textual.message import Message

#: What :func:`bottui.tui.launch.run_app` returns when the operator chose "Start the demo" on
#: the first-run welcome: the CLI then runs ``bottui demo`` (the tui layer may not
#: import :mod:`bottui.demo`). Never a process exit code.
START_DEMO: Final = -1


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
