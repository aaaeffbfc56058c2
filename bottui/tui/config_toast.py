"""Say the config files' problems (unknown keys, wrong values, playbooks) in one toast at start.

The same checkers as ``bottui config check`` and the CLI's start warning
(:data:`bottui.ops.config_checks.CHECKERS`), run on the store executor after
the first frame: reading and scanning the files never holds that frame back
nor blocks the event loop. The keymap's own mistakes have their toast
(:func:`bottui.tui.action_registry.keymap_toast`).
"""

from __future__ import annotations

from typing import Any, Final

#: Problems listed in the toast; the rest are counted.
SHOWN: Final = 6


async def say_config_problems(app: Any) -> None:
    """Check the session's config files off the loop; one lasting toast if any has a problem."""
    from bottui.ops.config_checks import CheckedFiles, run_checkers
    from bottui.plaintext import clean
    from bottui.store.executor import shared_executor

    files = CheckedFiles(app.session.locations)
    problems = await shared_executor().call(lambda: run_checkers(files))
    if not problems:
        return
    lines = [f"- {p.path.name}:{p.line or '?'}: {p.message}" for p in problems[:SHOWN]]
    if len(problems) > SHOWN:
        lines.append(f"- and {len(problems) - SHOWN} more")
    lines.append("Until fixed, what they say is not applied. bottui config check lists them all.")
    count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
    app.notify(
        clean("\n".join(lines), keep_newlines=True),
        title=f"Config files: {count}",
        severity="warning",
        timeout=20,
        markup=False,
    )


__all__ = ["say_config_problems"]
