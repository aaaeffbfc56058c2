"""Say the config files' problems (unknown keys, wrong values, playbooks) in one toast at start.

The same checkers as ``bottui config check`` and the CLI's start warning
(:data:`bottui.ops.config_checks.CHECKERS`), run on the store executor after
the first frame: reading and scanning the files never holds that frame back
nor blocks the event loop. The keymap's own mistakes have their toast
(:func:`bottui.tui.action_registry.keymap_toast`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

#: Problems listed in the toast; the rest are counted.
SHOWN: Final = 6


def problems_toast(app: Any, subject: str, messages: Sequence[str], closing: str) -> None:
    """One lasting warning toast: the first :data:`SHOWN` ``messages``, how many more, ``closing``.

    Its title is ``subject`` and the count (``Config files: 2 problems``); the
    config files' toast and the keymap's (:func:`~bottui.tui.action_registry.keymap_toast`).
    """
    from bottui.plaintext import clean

    lines = [f"- {message}" for message in messages[:SHOWN]]
    if len(messages) > SHOWN:
        lines.append(f"- and {len(messages) - SHOWN} more")
    lines.append(closing)
    count = f"{len(messages)} problem{'s' if len(messages) != 1 else ''}"
    app.notify(
        clean("\n".join(lines), keep_newlines=True),
        title=f"{subject}: {count}",
        severity="warning",
        timeout=20,
        markup=False,
    )


async def say_config_problems(app: Any) -> None:
    """Check the session's config files off the loop; one lasting toast if any has a problem."""
    from bottui.ops.config_checks import CheckedFiles, run_checkers
    from bottui.store.executor import shared_executor

    files = CheckedFiles(app.session.locations)  # read when checked, on the executor
    problems = await shared_executor().call(lambda: run_checkers(files))
    if not problems:
        return
    problems_toast(
        app,
        "Config files",
        [f"{p.path.name}:{p.line or '?'}: {p.message}" for p in problems],
        "Until fixed, what they say is not applied. bottui config check lists them all.",
    )


__all__ = ["problems_toast", "say_config_problems"]
