"""The one line a command prints on stderr when the config files have problems.

A misspelt key (``protect = true``) is otherwise silently ignored: the
command would run as if it were not there. The line names the first problem
and how many more, and points to ``bottui config check``; it never changes
the exit code (a value the command cannot use stops it with its own error).
"""

from __future__ import annotations

from bottui.cli.output import Output


def warn_at_start(out: Output) -> None:
    """Run every checker; print one warning line on stderr if any found a problem.

    Not when config.toml cannot be loaded at all (not TOML, a value of the
    wrong type): every command that reads it stops with that error itself,
    and the same words twice would only be noise.
    """
    from bottui.ops.config_checks import CheckedFiles, run_checkers, summary
    from bottui.store.files import Locations

    files = CheckedFiles(Locations.default())  # config.toml read once, for both questions
    if files.config is not None and not files.config.loads:
        return
    problems = run_checkers(files)
    if problems:
        out.message(summary(problems))


__all__ = ["warn_at_start"]
