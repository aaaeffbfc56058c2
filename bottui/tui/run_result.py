"""What the app returns to the CLI on leaving, besides an exit code.

Below the app, its runner (:mod:`bottui.tui.run`) and the first-run welcome
(:mod:`bottui.tui.screens.projects`), which all read it.
"""

from __future__ import annotations

from typing import Final

#: What :func:`bottui.tui.run.run_app` returns when the operator chose "Start the demo" on
#: the first-run welcome: the CLI then runs ``bottui demo`` (the tui layer may not
#: import :mod:`bottui.demo`). Never a process exit code.
START_DEMO: Final = -1

__all__ = ["START_DEMO"]
