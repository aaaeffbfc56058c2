"""``bottui demo --team``: team mode with nothing to set up.

A throwaway PostgreSQL in the demo's temporary directory (a Unix socket
there, no TCP port: :class:`~bottui.store.team.local_server.LocalPostgres`),
migrated as ``bottui store migrate`` would, named as the demo session's
team store; and a scripted teammate, bob
(:class:`~bottui.demo_teammate.ScriptedTeammate`), whose changes reach it
the way a real teammate's do and arrive in the demo live.

What it needs is checked before anything starts: psycopg (the driver) and
PostgreSQL's binaries (pgserver's, or the machine's). When either is missing
the demo stops with one message naming ``pip install 'bottui[demo]'``
(exit 2, as every refusal before sending), never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Final

from bottui.store.team.local_server import (
    INSTALL_DEMO,
    LocalPostgres,
    NoPostgres,
    find_binaries,
    server_account,
)
from bottui.store.team.store_target import check_store_url, driver_works

if TYPE_CHECKING:
    from bottui.demo_teammate import ScriptedTeammate

#: The profile name the team demo's header shows.
TEAM_PROFILE: Final = "team-demo"
#: The first toast: who bob is, and what to try.
INTRO: Final = (
    "bob@bastion-2 is a scripted teammate working incident INC-4312 on shop-prod. "
    "His changes go through a throwaway PostgreSQL and arrive here live, as toasts; "
    "5 shows the shared journal (who, why), and changing a limiter he just touched "
    "warns you first."
)


def check_installed() -> tuple[Path, str]:
    """PostgreSQL's binaries and where they came from; :class:`NoPostgres` naming what
    to install when the driver or the binaries are missing."""
    if not driver_works():
        raise NoPostgres(
            "bottui demo --team needs the PostgreSQL driver (psycopg), which is not installed",
            f"Install what the team demo needs with: {INSTALL_DEMO}",
        )
    try:
        return find_binaries()
    except NoPostgres as exc:
        raise NoPostgres(
            "bottui demo --team needs PostgreSQL, which was not found", exc.details
        ) from None


class TeamDemo:
    """The team part of one demo: its PostgreSQL under ``root``, and bob.

    Args:
        root: The demo's temporary directory (the server's files go in ``root/pg``).
    """

    def __init__(self, root: Path) -> None:
        self._root = root
        self.server: LocalPostgres | None = None
        self.teammate: ScriptedTeammate | None = None

    @property
    def store_url(self) -> str:
        """The team store's URL (the Unix socket; trusted, no password)."""
        assert self.server is not None, "start() first"
        return self.server.url()

    def start(self) -> None:
        """Check what is needed, make and start the server, migrate it (a few seconds)."""
        bindir, origin = check_installed()
        self.server = LocalPostgres(
            self._root / "pg", bindir=bindir, origin=origin, account=server_account()
        )
        self.server.initdb()
        self.server.start()
        asyncio.run(_migrate(self.store_url))

    def start_teammate(self, base_url: str) -> None:
        """Bob starts his shift (his first change comes a few seconds later)."""
        from bottui.demo_teammate import ScriptedTeammate

        self.teammate = ScriptedTeammate(self._root / "bob", base_url, self.store_url)
        self.teammate.start()

    def stop(self) -> None:
        """Bob stops, then the server (waits for both; idempotent)."""
        if self.teammate is not None:
            self.teammate.stop()
        if self.server is not None:
            self.server.stop()

    def kill(self) -> None:
        """The signal watchdog's last resort: the server's immediate shutdown, no waiting."""
        if self.server is not None:
            with contextlib.suppress(Exception):
                self.server.kill()


async def _migrate(url: str) -> None:
    from bottui.store.team.pg_store import TeamStore

    store = TeamStore(check_store_url(url, {}), timeout=30)
    try:
        await store.migrate()
    finally:
        await store.close()


__all__ = ["INTRO", "TEAM_PROFILE", "TeamDemo", "check_installed"]
