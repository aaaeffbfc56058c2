"""The scripted teammate of ``bottui demo --team``: bob, on another machine, mid-incident.

Bob is a second operator with a session of his own: his own directory, local
journal and inventory under the demo's temporary directory, the same sandbox
and the same throwaway PostgreSQL. Every change he makes goes through the
same pipeline as the operator's (:func:`bottui.ops.mutations.apply`: planned,
journaled locally first, sent to the sandbox) and is then pushed to the team
store by :class:`~bottui.ops.team_push.TeamSync`, exactly as a real teammate's
bottui would push it. So what the demo shows of him (the toast, the shared
Journal, the limiter's state "from bob's change", the collision warning in a
confirmation) is what the operator would see of a real teammate.

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
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from bottui.api.errors import BottuiError
from bottui.api.models import DimensionThresholds
from bottui.api.tokens import AccessToken, ProjectToken
from bottui.ops.session import Session, Settings
from bottui.store.memory_keyring import MemoryKeyring
from bottui.store.paths import Locations
from bottui.store.tokens import TokenStore

#: Who he is, as journaled and shown ("bob@bastion-2 disabled rl-login on shop-prod").
OPERATOR: Final = "bob@bastion-2"
#: Seconds from the first frame to his first change.
FIRST_AFTER: Final = 6.0
#: Seconds between two of his changes (drawn at random in this range).
PACE: Final = (20.0, 40.0)
#: The project he works on (the demo's current one).
PROJECT: Final = "shop-prod"


@dataclass(frozen=True)
class Step:
    """One change of bob's script: what it is, and why (his reason)."""

    #: Sends the change through the ops pipeline in bob's session.
    send: Callable[[Session, str], Awaitable[object]]
    reason: str


def _limiter(limiter: str, active: bool) -> Callable[[Session, str], Awaitable[object]]:
    async def send(session: Session, reason: str) -> object:
        from bottui.ops import mutations
        from bottui.sandbox import demo as data

        return await mutations.set_limiter(
            session, data.DEMO_ACCOUNT, PROJECT, limiter, active, confirmed=True, reason=reason
        )

    return send


def _thresholds(
    dimension: str, name: str, block: str, challenge: str
) -> Callable[[Session, str], Awaitable[object]]:
    async def send(session: Session, reason: str) -> object:
        from bottui.ops import mutations
        from bottui.sandbox import demo as data

        values = DimensionThresholds(name=name, block=block, challenge=challenge)
        return await mutations.set_thresholds(
            session, data.DEMO_ACCOUNT, PROJECT, dimension, values, confirmed=True, reason=reason
        )

    return send


def _revoke(visitor: str) -> Callable[[Session, str], Awaitable[object]]:
    async def send(session: Session, reason: str) -> object:
        from bottui.ops import mutations
        from bottui.sandbox import demo as data

        return await mutations.revoke(
            session, data.DEMO_ACCOUNT, PROJECT, visitor_id=visitor, confirmed=True, reason=reason
        )

    return send


#: Bob's incident, in order, then again from the top.
SCRIPT: Final = (
    Step(_limiter("rl-login", False), "INC-4312 credential stuffing: limiter locks out customers"),
    Step(_thresholds("bot-score", "Bot score", "0.7", "0.35"), "INC-4312 challenge more logins"),
    Step(_revoke("vis_7Hq2kP9xLm"), "INC-4312 grant passed from a stuffing IP range"),
    Step(_limiter("rl-login", True), "INC-4312 attack over, login limiter back on"),
    Step(_limiter("rl-search", True), "INC-4318 search scraping from a hosting range"),
    Step(_thresholds("bot-score", "Bot score", "0.8", "0.5"), "INC-4312 back to normal"),
    Step(_limiter("rl-search", False), "INC-4318 scraping stopped"),
)


def teammate_session(root: Path, base_url: str, store_url: str) -> Session:
    """Bob's session: his own directory under ``root``, the demo's sandbox and team store."""
    from bottui.sandbox import demo as data

    locations = Locations.under(root)
    settings = Settings(
        "bob",
        base_url,
        account=data.DEMO_ACCOUNT,
        project=PROJECT,
        operator=OPERATOR,
        store_url=store_url,
    )
    tokens = TokenStore(environ={}, backend=MemoryKeyring())  # type: ignore[arg-type]
    tokens.set_personal(base_url, data.DEMO_ACCOUNT, AccessToken(data.DEMO_ACCESS_TOKEN))
    for pid, value in data.project_tokens(False).items():
        tokens.set_project(base_url, data.DEMO_ACCOUNT, pid, ProjectToken(value))
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


__all__ = ["OPERATOR", "SCRIPT", "ScriptedTeammate", "Step", "teammate_session"]
