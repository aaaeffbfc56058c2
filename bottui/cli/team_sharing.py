"""A command's push to the team store: in the background while it runs, once at its end.

Only with a team store configured. The push runs as a task beside the
command (psycopg's async connection, the outbox on the store executor), so
the change never waits for PostgreSQL; at the end the command gives the
push :data:`~bottui.ops.team_sync.EXIT_BUDGET` seconds and, when the store
could not take it, prints one warning line on stderr saying how many
entries wait (they go with the next command, ``bottui store sync``, or the
TUI).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from bottui.cli.output import Output

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.ops.team_sync import SyncState, TeamSync

#: Seconds between two pushes while a command runs (a bulk run's batches).
INTERVAL: Final = 1.0


@dataclass
class Sharing:
    """The push task of one command (``team`` None: no team store)."""

    team: TeamSync | None
    task: asyncio.Task[None] | None = None
    stop: asyncio.Event | None = None


async def _loop(team: TeamSync, stop: asyncio.Event) -> None:
    while not stop.is_set():
        state = await team.sync()
        # A store that is down is tried again less often.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), INTERVAL if state.down is None else 5 * INTERVAL)
    # The command is over: what it journaled after the last push goes now.
    await team.sync()


async def start(session: Session) -> Sharing:
    """Register the journal with the store and start pushing (nothing without a store)."""
    from bottui.store.errors import StoreError

    team = await session.team()
    if team is None:
        return Sharing(None)
    with contextlib.suppress(StoreError):
        # Before the command's first entry: entries from here on are shared.
        await team.register()
    stop = asyncio.Event()
    return Sharing(team, asyncio.create_task(_loop(team, stop)), stop)


def warning(state: SyncState) -> str | None:
    """The one line a command prints when its entries could not be shared."""
    if state.down is None:
        return None
    return (
        f"warning: team journal: {state.waiting} not yet shared ({state.down}); "
        "they will be pushed by the next command or `bottui store sync`"
    )


async def finish(sharing: Sharing, out: Output) -> None:
    """Stop the background push, push once more (bounded), warn if the store is down."""
    from bottui.ops.team_sync import EXIT_BUDGET

    if sharing.team is None:
        return
    if sharing.task is None or sharing.stop is None:
        state = await sharing.team.sync_within(EXIT_BUDGET)
    else:
        # Stopped, not cancelled: a push under way ends cleanly, then the last one goes.
        sharing.stop.set()
        try:
            await asyncio.wait_for(sharing.task, EXIT_BUDGET)
            state = sharing.team.state
        except TimeoutError:
            state = await sharing.team.gave_up(EXIT_BUDGET)
    line = warning(state)
    if line is not None:
        out.message(line)


__all__ = ["INTERVAL", "Sharing", "finish", "start", "warning"]
