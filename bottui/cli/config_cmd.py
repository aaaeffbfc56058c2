"""``bottui config check``: every problem of config.toml and its keymap, by line.

Unknown keys (a misspelt ``protect`` for ``protected``), values of the wrong
type, and the ``[keymap]`` table against the TUI's bindings: a misspelt
binding id, a key that is not a key, a key bound twice in one place (the
same check and words as the TUI's start-up toast). Exit 0 when clean, 2
when a problem is found (CONVENTIONS: refused before sending, invalid values).
"""

from __future__ import annotations

from bottui.api.errors import EXIT_OK, EXIT_REFUSED
from bottui.cli.output import Output
from bottui.cli.parser import Args


def cmd_config(args: Args, out: Output) -> int:
    """``bottui config check``."""
    from bottui.cli.apps import known_bindings
    from bottui.ops.keymap_check import check_keymap
    from bottui.store.config_check import ConfigProblem, check_config_file
    from bottui.store.paths import Locations

    path = Locations.default().config_file
    found = check_config_file(path)
    if found is None:
        if out.as_json:
            out.document({"file": str(path), "exists": False, "problems": [], "count": 0})
        else:
            out.line(f"{path}: no such file, nothing to check")
        return EXIT_OK
    problems = list(found.problems)
    for mistake in check_keymap(found.keymap, known_bindings()):
        problems.append(ConfigProblem(found.keymap_lines.get(mistake.binding_id), mistake.message))
    problems.sort(key=lambda p: p.line or 0)
    if out.as_json:
        out.document(
            {
                "file": str(path),
                "exists": True,
                "problems": [{"line": p.line, "message": p.message} for p in problems],
                "count": len(problems),
            }
        )
    else:
        for problem in problems:
            where = f"{path}:{problem.line}" if problem.line else str(path)
            out.line(f"{where}: {problem.message}")
    if problems:
        out.message(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found")
        return EXIT_REFUSED
    keys = len(found.keymap)
    out.message(f"{path}: no problems ({keys} keymap entr{'y' if keys == 1 else 'ies'})")
    return EXIT_OK


__all__ = ["cmd_config"]
