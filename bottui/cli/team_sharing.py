"""A command's push to the team store: on its own thread while it runs, once more at its end.

Only with a team store configured. The journal is registered with the
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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from bottui.cli.output import Output

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.ops.team_push import SharingThread, SyncState

#: Seconds between two pushes while a command runs (a bulk run's batches).
INTERVAL: Final = 1.0


@dataclass
class Sharing:
    """The push thread of one command (``thread`` None: no team store)."""

    thread: SharingThread | None


async def start(session: Session) -> Sharing:
    """Register the journal with the store and start pushing (nothing without a store)."""
    from bottui.ops.team_push import SharingThread
    from bottui.store.errors import StoreError

    team = await session.team()
    if team is None:
        return Sharing(None)
    with contextlib.suppress(StoreError):
        # Before the command's first entry: entries from here on are shared.
        await team.register()
    thread = SharingThread(team, interval=INTERVAL)
    thread.start()
    session.hand_over_team()
    return Sharing(thread)


def warning(state: SyncState) -> str | None:
    """The one line a command prints when its entries could not be shared."""
    if state.down is None:
        return None
    return (
        f"warning: team journal: {state.waiting} not yet shared ({state.down}); "
        "they will be pushed by the next command or `bottui store sync`"
    )


async def finish(sharing: Sharing, out: Output) -> None:
    """Push once more (bounded), stop, and warn when the store could not take it."""
    from bottui.ops.team_push import EXIT_BUDGET, SyncState
    from bottui.store.errors import StoreError
    from bottui.store.executor import run_blocking

    if sharing.thread is None:
        return
    thread = sharing.thread
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


__all__ = ["INTERVAL", "Sharing", "finish", "start", "warning"]
