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
    from bottui.ops.config_checks import run_checkers, summary
    from bottui.store.config import ConfigStore
    from bottui.store.errors import ConfigError
    from bottui.store.paths import Locations

    locations = Locations.default()
    try:
        ConfigStore(locations).load()
    except ConfigError:
        return
    problems = run_checkers(locations)
    if problems:
        out.message(summary(problems))


__all__ = ["warn_at_start"]
