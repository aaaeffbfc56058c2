"""The session of one command: built from the options, warnings flushed, closed.

:func:`command_session` replaces the try/finally every command that talks to
the service used to repeat: whatever happens in the body (success, error,
Ctrl-C), the session's warnings reach stderr and its client is closed.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from bottui.cli import team_sharing
from bottui.cli.output import Output
from bottui.cli.parser import Args

if TYPE_CHECKING:
    from bottui.ops.session import Session


def make_session(args: Args) -> Session:
    """A session from the common options, the environment and the config."""
    from bottui.ops.session import session_from_options
    from bottui.store.config.config_file import ConfigStore
    from bottui.store.files import Locations

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
    sharing = await team_sharing.start(session)
    try:
        yield session
    finally:
        await team_sharing.finish(sharing, out)
        flush_warnings(session, out)
        await session.aclose()
