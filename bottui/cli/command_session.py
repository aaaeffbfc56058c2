"""What every command does around its work: the config warning, its session, the team push.

:func:`warn_at_start` runs before every command but ``config``, ``help``,
``completion``, ``demo`` and ``sandbox``: one line on stderr when the config
files have problems. A misspelt key (``protect = true``) is otherwise
silently ignored: the command would run as if it were not there. The line
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
from typing import Final

from bottui.cli.output import Output
from bottui.cli.parser import Args
from bottui.ops.config_checks import CheckedFiles, run_checkers, summary
from bottui.ops.session import Session, session_from_options
from bottui.ops.team_push import EXIT_BUDGET, SharingThread, SyncState
from bottui.store.config.config_file import ConfigStore
from bottui.store.executor import run_blocking
from bottui.store.files import Locations
from bottui.store.store_errors import StoreError

#: Seconds between two pushes while a command runs (a bulk run's batches).
INTERVAL: Final = 1.0


async def start(session: Session) -> SharingThread | None:
    """Register the journal with the store and start pushing (None: no team store)."""
    team = await session.team()
    if team is None:
        return None
    with contextlib.suppress(StoreError):
        # Before the command's first entry: entries from here on are shared.
        await team.register()
    thread = SharingThread(team, interval=INTERVAL)
    thread.start()
    session.hand_over_team()
    return thread


def warning(state: SyncState) -> str | None:
    """The one line a command prints when its entries could not be shared."""
    if state.down is None:
        return None
    return (
        f"warning: team journal: {state.waiting} not yet shared ({state.down}); "
        "they will be pushed by the next command or `bottui store sync`"
    )


async def finish(thread: SharingThread | None, out: Output) -> None:
    """Push once more (bounded), stop, and warn when the store could not take it."""
    if thread is None:
        return
    # Joined off the loop: the loop stays free for whatever else is closing.
    state = await run_blocking(lambda: thread.stop(EXIT_BUDGET), lane="team-push-stop")
    if state is None:
        waiting = thread.team.state.waiting
        with contextlib.suppress(StoreError):
            waiting = (await thread.team.backlog()).waiting
        state = SyncState(
            waiting, None, f"the team store did not take the entries within {EXIT_BUDGET:g} s"
        )
    line = warning(state)
    if line is not None:
        out.message(line)


def warn_at_start(out: Output) -> None:
    """Run every checker; print one warning line on stderr if any found a problem.

    Not when config.toml cannot be loaded at all (not TOML, a value of the
    wrong type): every command that reads it stops with that error itself,
    and the same words twice would only be noise.
    """
    files = CheckedFiles(Locations.default())  # config.toml read once, for both questions
    if files.config is not None and not files.config.loads:
        return
    problems = run_checkers(files)
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
    sharing = await start(session)
    try:
        yield session
    finally:
        await finish(sharing, out)
        flush_warnings(session, out)
        await session.aclose()
