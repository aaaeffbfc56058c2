"""``bottui demo --team``: team mode with nothing to set up.

A throwaway PostgreSQL in the demo's temporary directory (a Unix socket
there, no TCP port: :class:`~bottui.store.team.local_server.LocalPostgres`),
migrated as ``bottui store migrate`` would, named as the demo session's
team store; and a scripted teammate, bob
(:class:`ScriptedTeammate`), whose changes reach it
the way a real teammate's do and arrive in the demo live.

What it needs is checked before anything starts: psycopg (the driver) and
PostgreSQL's binaries (pgserver's, or the machine's). When either is missing
the demo stops with one message naming ``pip install 'bottui[demo]'``
(exit 2, as every refusal before sending), never a traceback.

The scripted teammate: bob, on another machine, mid-incident. Bob is a second operator
with a session of his own: his own directory, local journal and inventory under the
demo's temporary directory, the same sandbox and the same throwaway PostgreSQL. Every
change he makes goes through the same pipeline as the operator's
(:func:`bottui.ops.mutations.apply`: planned, journaled locally first, sent to the
sandbox) and is then pushed to the team store by
:class:`~bottui.ops.team_push.TeamSync`, exactly as a real teammate's bottui would push
it. So what the demo shows of him (the toast, the shared Journal, the limiter's state
"from bob's change", the collision warning in a confirmation) is what the operator would
see of a real teammate.

He runs on a daemon thread with an event loop of his own, so his requests and
pushes never wait for the TUI's loop, nor it for them. His first change comes
a few seconds after the first frame, so a newcomer sees one; then one every
:data:`PACE` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import sys
import threading
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any, Final

import msgspec

from bottui.api.errors import BottuiError
from bottui.api.models import DimensionThresholds
from bottui.api.tokens import AccessToken, ProjectToken
from bottui.ops import mutations
from bottui.ops.session import Session, Settings
from bottui.sandbox import demo_data
from bottui.store.files import Locations
from bottui.store.keyring_tokens import MemoryKeyring, TokenStore
from bottui.store.team.local_server import (
    INSTALL_DEMO,
    LocalPostgres,
    NoPostgres,
    find_binaries,
    server_account,
)
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.store_target import check_store_url, driver_works

# -- the team store: a throwaway PostgreSQL ------------------------------------------------

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

    def start(self) -> dict[str, Any]:
        """Check what is needed, make and start the server, migrate it (a few seconds);
        the demo session's options for it (its team store, its profile name)."""
        print("bottui demo --team: starting a throwaway PostgreSQL...", file=sys.stderr, flush=True)
        bindir, origin = check_installed()
        self.server = LocalPostgres(
            self._root / "pg", bindir=bindir, origin=origin, account=server_account()
        )
        self.server.initdb()
        self.server.start()
        asyncio.run(_migrate(self.store_url))
        return {"store_url": self.store_url, "profile": TEAM_PROFILE}

    def start_teammate(self, base_url: str, app: Any = None) -> None:
        """After the first frame: bob starts his shift (his first change comes a few
        seconds later), and a toast on ``app`` says who he is."""
        self.teammate = ScriptedTeammate(self._root / "bob", base_url, self.store_url)
        self.teammate.start()
        if app is not None:
            app.notify(INTRO, title="Team demo", timeout=20, markup=False)

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
    store = TeamStore(check_store_url(url, {}), timeout=30)
    try:
        await store.migrate()
    finally:
        await store.close()


# -- bob, the scripted teammate ---------------------------------------------------------

#: Who he is, as journaled and shown ("bob@bastion-2 disabled rl-login on shop-prod").
OPERATOR: Final = "bob@bastion-2"
#: Seconds from the first frame to his first change.
FIRST_AFTER: Final = 6.0
#: Seconds between two of his changes (drawn at random in this range).
PACE: Final = (20.0, 40.0)
#: The project he works on (the demo's current one).
PROJECT: Final = "shop-prod"


class Step(msgspec.Struct, frozen=True):
    """One change of bob's script: what it is, and why (his reason)."""

    #: Sends the change through the ops pipeline in bob's session.
    send: Callable[[Session, str], Awaitable[object]]
    reason: str


async def _limiter(limiter: str, active: bool, session: Session, reason: str) -> object:
    return await mutations.set_limiter(
        session, demo_data.DEMO_ACCOUNT, PROJECT, limiter, active, confirmed=True, reason=reason
    )


async def _thresholds(
    dimension: str, name: str, block: str, challenge: str, session: Session, reason: str
) -> object:
    values = DimensionThresholds(name=name, block=block, challenge=challenge)
    return await mutations.set_thresholds(
        session, demo_data.DEMO_ACCOUNT, PROJECT, dimension, values, confirmed=True, reason=reason
    )


async def _revoke(visitor: str, session: Session, reason: str) -> object:
    return await mutations.revoke(
        session, demo_data.DEMO_ACCOUNT, PROJECT, visitor_id=visitor, confirmed=True, reason=reason
    )


#: Bob's incident, in order, then again from the top.
SCRIPT: Final = (
    Step(
        partial(_limiter, "rl-login", False),
        "INC-4312 credential stuffing: limiter locks out customers",
    ),
    Step(
        partial(_thresholds, "bot-score", "Bot score", "0.7", "0.35"),
        "INC-4312 challenge more logins",
    ),
    Step(partial(_revoke, "vis_7Hq2kP9xLm"), "INC-4312 grant passed from a stuffing IP range"),
    Step(partial(_limiter, "rl-login", True), "INC-4312 attack over, login limiter back on"),
    Step(partial(_limiter, "rl-search", True), "INC-4318 search scraping from a hosting range"),
    Step(partial(_thresholds, "bot-score", "Bot score", "0.8", "0.5"), "INC-4312 back to normal"),
    Step(partial(_limiter, "rl-search", False), "INC-4318 scraping stopped"),
)


def teammate_session(root: Path, base_url: str, store_url: str) -> Session:
    """Bob's session: his own directory under ``root``, the demo's sandbox and team store."""
    locations = Locations.under(root)
    settings = Settings(
        "bob",
        base_url,
        account=demo_data.DEMO_ACCOUNT,
        project=PROJECT,
        operator=OPERATOR,
        store_url=store_url,
    )
    tokens = TokenStore(environ={}, backend=MemoryKeyring())  # type: ignore[arg-type]
    tokens.set_personal(base_url, demo_data.DEMO_ACCOUNT, AccessToken(demo_data.DEMO_ACCESS_TOKEN))
    for pid, value in demo_data.project_tokens(False).items():
        tokens.set_project(base_url, demo_data.DEMO_ACCOUNT, pid, ProjectToken(value))
    return Session(locations, settings, tokens)


class ScriptedTeammate:
    """Bob, on a thread of his own: a change from :data:`SCRIPT` now and then, pushed.

    Args:
        root: His directory (his journal and inventory; made when he starts).
        base_url: The demo's sandbox.
        store_url: The demo's team store.
        first_after: Seconds before his first change.
        pace: Seconds between two changes (a random draw in this range).
    """

    def __init__(
        self,
        root: Path,
        base_url: str,
        store_url: str,
        *,
        first_after: float = FIRST_AFTER,
        pace: tuple[float, float] = PACE,
    ) -> None:
        self._root = root
        self._base_url = base_url
        self._store_url = store_url
        self._first_after = first_after
        self._pace = pace
        self._thread = threading.Thread(target=self._main, name="bottui-demo-bob", daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        #: Changes sent so far (whatever their outcome).
        self.changes = 0

    def start(self) -> None:
        """Start his shift (returns at once)."""
        self._thread.start()

    def stop(self, budget: float = 3.0) -> None:
        """End his shift, waiting at most ``budget`` seconds (a change under way ends first)."""
        if not self._thread.is_alive():
            return
        self._ready.wait(budget)
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None:
            with contextlib.suppress(RuntimeError):  # his loop has ended already
                loop.call_soon_threadsafe(stopping.set)
        self._thread.join(budget)

    def _main(self) -> None:
        # A thread's uncaught exception would print a traceback over the TUI.
        with contextlib.suppress(Exception):
            asyncio.run(self._run())

    async def _run(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self._ready.set()
        session = teammate_session(self._root, self._base_url, self._store_url)
        try:
            team = await session.team()
            if team is not None:
                with contextlib.suppress(BottuiError):
                    await team.register()  # share what he journals from now on
            wait = self._first_after
            for step in itertools.cycle(SCRIPT):
                if await self._stopped_within(wait):
                    return
                with contextlib.suppress(BottuiError):
                    await step.send(session, step.reason)
                self.changes += 1
                session.take_warnings()  # his, not the operator's
                if team is not None:
                    await team.sync()  # never raises for the store
                wait = random.uniform(*self._pace)
        finally:
            with contextlib.suppress(Exception):
                await session.aclose()

    async def _stopped_within(self, seconds: float) -> bool:
        assert self._stopping is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)
        return self._stopping.is_set()
