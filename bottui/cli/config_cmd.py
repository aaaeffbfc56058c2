"""``bottui config check``: every problem of config.toml and its keymap, by line.

Unknown keys (a misspelt ``protect`` for ``protected``), every value of the
wrong type, the files of every checker of
:data:`bottui.ops.config_checks.CHECKERS`, and the ``[keymap]`` table
against the TUI's bindings: a misspelt binding id, a key that is not a key,
a key bound twice in one place (the same check and words as the TUI's
start-up toast). Exit 0 when clean, 2
when a problem is found (CONVENTIONS: refused before sending, invalid values).
"""

from __future__ import annotations

from bottui.api.errors import EXIT_OK, EXIT_REFUSED
from bottui.cli.output import Output
from bottui.cli.parser import Args


def cmd_config(args: Args, out: Output) -> int:
    """``bottui config check``."""
    from bottui.cli.apps import known_bindings
    from bottui.ops.config_checks import CheckedFiles, keymap_problems, run_checkers
    from bottui.store.paths import Locations

    files = CheckedFiles(Locations.default())
    path = files.locations.config_file
    found = files.config
    # Every checker (config.toml, and any other file registered in CHECKERS), then the keymap.
    problems = run_checkers(files)
    if found is not None:
        problems += keymap_problems(files, known_bindings())
    # config.toml's by line first; each other file's as its checker gave them.
    problems.sort(key=lambda p: (p.path != path, (p.line or 0) if p.path == path else 0))
    if out.as_json:
        out.document(
            {
                "file": str(path),
                "exists": found is not None,
                "problems": [
                    {"file": str(p.path), "line": p.line, "message": p.message} for p in problems
                ],
                "count": len(problems),
            }
        )
    else:
        if found is None:
            out.line(f"{path}: no such file, nothing to check")
        for problem in problems:
            out.line(f"{problem.where}: {problem.message}")
    if problems:
        out.message(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found")
        return EXIT_REFUSED
    if found is not None:
        keys = len(found.keymap)
        out.message(f"{path}: no problems ({keys} keymap entr{'y' if keys == 1 else 'ies'})")
    return EXIT_OK


__all__ = ["cmd_config"]
