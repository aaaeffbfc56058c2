"""What every command does around its work: the config warning, its session, the team push.

:func:`warn_at_start` runs before every command but ``config``, ``help``,
``completion``, ``demo`` and ``sandbox``: one line on stderr when the files the
command reads have problems (config.toml; for ``playbook``, the playbooks
too). A misspelt key (``protect = true``) is otherwise silently ignored: the
command would run as if it were not there. The line
names the first problem and how many more, and points to ``bottui config
check``; it never changes the exit code (a value the command cannot use
stops it with its own error).

:func:`command_session` replaces the try/finally every command that talks to
the service used to repeat: whatever happens in the body (success, error,
Ctrl-C), the session's warnings reach stderr and its client is closed.

With a team store configured, the command's push runs on its own thread while
it runs, and once more at its end. The journal is registered with the
store before the command's first entry (entries from then on are shared);
the push then runs on :class:`~bottui.ops.team_push.SharingThread`, so
the change never waits for PostgreSQL. At the end the command gives the
push :data:`~bottui.ops.team_push.EXIT_BUDGET` seconds and, when the store
could not take it, prints one warning line on stderr saying how many
entries wait (they go with the next command, ``bottui store sync``, or the
TUI).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Final

from bottui.cli.output import Output
from bottui.cli.parser import Args
from bottui.ops.config_checks import CheckedFiles, checkers_at_start, run_checkers, summary
from bottui.ops.session import Session, session_from_options
from bottui.store.config.config_file import ConfigStore
from bottui.store.files import Locations

if TYPE_CHECKING:
    from bottui.ops.team_push import SharingThread

#: Seconds between two pushes while a command runs (a bulk run's batches).
INTERVAL: Final = 1.0


def warn_at_start(out: Output, command: str) -> None:
    """Run the checks of the files ``command`` reads; print one warning line on stderr
    if any found a problem.

    Not when config.toml cannot be loaded at all (not TOML, a value of the
    wrong type): every command that reads it stops with that error itself,
    and the same words twice would only be noise.
    """
    files = CheckedFiles(Locations.default())  # config.toml read once, for both questions
    if files.config is not None and not files.config.loads:
        return
    problems = run_checkers(files, checkers_at_start(command))
    if problems:
        out.message(summary(problems))


def make_session(args: Args) -> Session:
    """A session from the common options, the environment and the config."""
    locations = Locations.default()
    return session_from_options(locations, ConfigStore(locations).load(), args)


def flush_warnings(session: Session, out: Output) -> None:
    """Print the session's pending warnings on stderr."""
    for warning in session.take_warnings():
        out.message(f"warning: {warning}")


@contextlib.asynccontextmanager
async def command_session(args: Args, out: Output) -> AsyncIterator[Session]:
    """The command's session; on the way out its warnings are printed and it is closed.

    With a team store configured, what the command journals is pushed while
    it runs and once more at its end (at most ``EXIT_BUDGET`` seconds): a
    store that is down costs one warning line, never the change.
    """
    session = make_session(args)
    sharing = await start_sharing(session)
    try:
        yield session
    finally:
        if sharing is not None:
            line = await sharing.finish()
            if line is not None:
                out.message(line)
        flush_warnings(session, out)
        await session.aclose()


async def start_sharing(session: Session) -> SharingThread | None:
    """The push of what the command journals (None without a team store).

    The push's module is imported by :meth:`Session.team` only when a store is
    configured: a command on a profile without one never loads it.
    """
    team = await session.team()
    if team is None:
        return None
    thread = await team.share_in_background(INTERVAL)
    session.hand_over_team()
    return thread
