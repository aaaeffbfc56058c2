"""``bottui demo``: the whole app against the embedded sandbox, touching nothing of the user's.

Everything lives in a temporary directory (config, inventory, journal) and an
in-memory keyring holds the demo tokens, so the demo works over SSH on a box
with no keyring at all and leaves no trace. The sandbox is served by a child
process (:class:`~bottui.sandbox.process.SandboxProcess`) on a port bound
here before the app starts. The child starts once the first frame is on
screen and boots on another core (starlette and uvicorn cost ~150 ms of CPU
to import); a request sent before it serves waits for it in the backlog.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from bottui.api.tokens import AccessToken, ProjectToken
from bottui.ops.session import Session, Settings
from bottui.store.errors import StoreError
from bottui.store.files import Locations, ensure
from bottui.store.inventory.records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    ProjectEntry,
    Source,
)
from bottui.store.keyring_tokens import MemoryKeyring, TokenStore
from bottui.store.utc import Clock

if TYPE_CHECKING:
    import threading

    from bottui.api.client import BotProtectionClient
    from bottui.demo_team import TeamDemo
    from bottui.sandbox.process import SandboxProcess

DEMO_PROFILE = "demo"


def _q(value: object) -> str:
    # JSON strings and numbers are valid TOML basic strings and numbers.
    return json.dumps(value, ensure_ascii=True)


def demo_snapshot(now: str, *, hostile: bool = False) -> InventorySnapshot:
    """The demo's inventory as an operator's team file would bring it in at ``now``."""
    from bottui.sandbox import demo as data

    account = data.DEMO_ACCOUNT
    projects = dict(data.DEMO_PROJECTS)
    limiters: list[tuple[str, str, str, bool | None]] = [
        (pid, limiter.id, limiter.name, limiter.active)
        for pid, seeded in data.DEMO_RATE_LIMITERS.items()
        for limiter in seeded
    ]
    if hostile:
        projects[data.HOSTILE_PROJECT_ID] = data.HOSTILE_MARKUP
        limiters += [
            (data.HOSTILE_PROJECT_ID, lid, data.HOSTILE_ANSI, None)
            for lid in data.HOSTILE_LIMITER_IDS
        ]
    dimensions = [
        (pid, d.id, d.name, repr(d.block), repr(d.challenge))
        for pid, seeded in data.DEMO_DIMENSIONS.items()
        for d in seeded
    ]
    imported = Source.IMPORT
    # Sorted by key (project, id), as a snapshot read from a file is.
    return InventorySnapshot(
        accounts=(AccountEntry(account, data.DEMO_ACCOUNT_NAME, now, imported),),
        projects=tuple(
            ProjectEntry(account, pid, name, now, imported)
            for pid, name in sorted(projects.items())
        ),
        limiters=tuple(
            LimiterEntry(account, pid, lid, name, active, now, imported)
            for pid, lid, name, active in sorted(limiters, key=lambda row: row[:2])
        ),
        dimensions=tuple(
            DimensionEntry(account, pid, did, name, block, challenge, now, imported)
            for pid, did, name, block, challenge in sorted(dimensions)
        ),
    )


def inventory_toml(*, hostile: bool = False) -> str:
    """The demo's team inventory file: what an operator would have been given.

    The records of :func:`demo_snapshot`, without the times and sources an
    import adds itself.
    """
    snapshot = demo_snapshot("", hostile=hostile)
    lines = ['format = "bottui-inventory"', "version = 1", ""]
    for a in snapshot.accounts:
        lines += ["[[accounts]]", f"account = {_q(a.account)}", f"name = {_q(a.name)}", ""]
    for p in snapshot.projects:
        lines += ["[[projects]]", *_ids(p.account, p.project), f"name = {_q(p.name)}", ""]
    for r in snapshot.limiters:
        lines += ["[[limiters]]", *_ids(r.account, r.project), f"id = {_q(r.id)}"]
        lines += [f"name = {_q(r.name)}"]
        lines += [f"is_active = {_q(r.is_active)}"] if r.is_active is not None else []
        lines += [""]
    for d in snapshot.dimensions:
        lines += ["[[dimensions]]", *_ids(d.account, d.project), f"id = {_q(d.id)}"]
        lines += [f"name = {_q(d.name)}", f"block = {_q(d.block)}"]
        lines += [f"challenge = {_q(d.challenge)}", ""]
    return "\n".join(lines) + "\n"


def _ids(account: str, project: str) -> list[str]:
    return [f"account = {_q(account)}", f"project = {_q(project)}"]


#: The playbooks ``bottui demo`` offers on screen 6 (its temporary config
#: directory's ``playbooks/``), written in the format the README describes.
DEMO_PLAYBOOKS: Final[dict[str, str]] = {
    "scraping-wave": """\
# A scraping wave on search and the public API.
description = "Scraping wave: search limiter on, bot score tighter, API limiter on"
duration = "2h"

[[steps]]
limiter = "rl-search"
action = "enable"

[[steps]]
dimension = "bot-score"
block = 0.9
challenge = 0.6

[[steps]]
limiter = "rl-api"
action = "enable"
""",
    "checkout-calm": """\
# After an incident: let checkout breathe again.
description = "Checkout calm: checkout flood limiter off, velocity looser"

[[steps]]
limiter = "rl-checkout"
action = "disable"

[[steps]]
dimension = "velocity"
block = 0.95
challenge = 0.7
""",
}


def write_demo_playbooks(locations: Locations) -> None:
    """The demo's playbooks, in the config directory's ``playbooks/``."""
    from bottui.ops.playbooks.library import playbook_dir

    folder = playbook_dir(locations)
    ensure(folder)
    for name, text in DEMO_PLAYBOOKS.items():
        (folder / f"{name}.toml").write_text(text, encoding="utf-8")


def prepare(
    root: Path,
    base_url: str,
    *,
    client_factory: Callable[[str], BotProtectionClient] | None = None,
    hostile: bool = False,
    project: str = "shop-prod",
    clock: Clock | None = None,
    store_url: str | None = None,
    profile: str = DEMO_PROFILE,
) -> Session:
    """A demo session under ``root``: profile, seeded inventory, tokens in memory.

    ``store_url`` names the team store (``bottui demo --team``'s own
    PostgreSQL); the demo reads neither ``BOTTUI_STORE_URL`` nor a profile's.
    """
    from bottui.sandbox import demo as data

    locations = Locations.under(root)
    # One profile on the sandbox. Written as text (a fresh file needs no
    # comment-preserving editor: tomlkit costs ~30 ms) for the edits made
    # later, such as a remembered theme; the session starts from the same
    # settings in memory, as reading the file back would give them (a test
    # checks it), without the config model (~2 ms of start-up).
    ensure(locations.config_dir)
    locations.config_file.write_text(
        f"current = {_q(profile)}\n\n[profiles.{profile}]\n"
        f"base_url = {_q(base_url)}\naccount = {_q(data.DEMO_ACCOUNT)}\n"
        f"project = {_q(project)}\n" + (f"store = {_q(store_url)}\n" if store_url else ""),
        encoding="utf-8",
    )
    settings = Settings(
        profile, base_url, account=data.DEMO_ACCOUNT, project=project, store_url=store_url
    )
    tokens = TokenStore(environ={}, backend=MemoryKeyring())  # type: ignore[arg-type]
    tokens.set_personal(base_url, data.DEMO_ACCOUNT, AccessToken(data.DEMO_ACCESS_TOKEN))
    for pid, value in data.project_tokens(hostile).items():
        tokens.set_project(base_url, data.DEMO_ACCOUNT, pid, ProjectToken(value))
    options: dict[str, Any] = {"clock": clock}
    if client_factory is not None:
        options["client_factory"] = client_factory
    session = Session(locations, settings, tokens, **options)
    # Seeded as an import of the team file would be (source "import"), before
    # any event loop runs: the store's synchronous class, closed at once (the
    # session's async store opens its own connections when first awaited).
    from bottui.store.errors import InventoryUnavailable
    from bottui.store.inventory.sync import Inventory

    try:
        inventory = (
            Inventory(locations.inventory_file, settings.inventory_scope, clock=clock)
            if clock is not None
            else Inventory(locations.inventory_file, settings.inventory_scope)
        )
    except InventoryUnavailable as exc:
        raise StoreError("The demo's inventory cannot be opened", exc.title) from None
    try:
        inventory.import_snapshot(demo_snapshot(inventory.now(), hostile=hostile))
    finally:
        inventory.close()
    return session


def run_demo(*, hostile: bool = False, team: bool = False) -> int:
    """Run the TUI against the sandbox in a throwaway directory; returns the exit code.

    With ``team`` (``bottui demo --team``), a throwaway PostgreSQL in that
    directory is the session's team store, and a scripted teammate changes
    things on it now and then (:mod:`bottui.demo_team`). What it needs is
    checked first: a :class:`~bottui.store.errors.StoreError` naming what to
    install when it is missing.

    SIGHUP (an SSH drop) and SIGTERM end it as ``q`` does, directory,
    sandbox and PostgreSQL removed, with exit code 128 + the signal number.
    """
    from bottui.demo_dirs import PREFIX, remove_abandoned_later, write_owner
    from bottui.demo_signals import EndOnSignal, Terminated
    from bottui.sandbox.process import SandboxProcess

    if team:
        from bottui.demo_team import check_installed

        check_installed()  # before the screen is taken: the message stays readable
    roots: list[Path] = []
    sandboxes: list[SandboxProcess] = []
    teams: list[TeamDemo] = []
    signals = EndOnSignal(lambda: _force_cleanup(roots, sandboxes, teams))
    result: object = None
    failure = None
    try:
        with signals, tempfile.TemporaryDirectory(prefix=PREFIX) as tmp:
            root = Path(tmp)
            roots.append(root)
            write_owner(root)
            sweeps: list[threading.Thread] = []
            # The port is bound now, so the profile can name it; the child starts
            # once the first frame is up and boots on another core, and a request
            # sent before it serves waits in the listen backlog.
            sandbox = SandboxProcess(hostile=hostile, log_path=root / "sandbox.log")
            sandboxes.append(sandbox)
            try:
                options: dict[str, Any] = {}
                if team:
                    options = _start_team(root, teams)
                session = prepare(root, sandbox.base_url, hostile=hostile, **options)
                from bottui.tui.app import BottuiApp

                def when_up() -> None:
                    sandbox.start()
                    # Screen 6's files, written after the first frame (read when shown).
                    write_demo_playbooks(session.locations)
                    if teams:
                        _team_up(teams[0], sandbox.base_url, signals.app)
                    # Directories of demos ended by SIGKILL, removed off the start-up path.
                    sweeps.append(remove_abandoned_later(root.parent))

                signals.app = BottuiApp(session, demo=True, when_up=when_up)
                if teams:
                    signals.app.sub_title = "team demo (sandbox, PostgreSQL, scripted teammate)"
                result = signals.app.run()
                signals.app = None
                failure = sandbox.failure()
            finally:
                signals.cleaning = True
                for started in teams:
                    started.stop()
                sandbox.stop()
                for sweep in sweeps:
                    sweep.join(timeout=2)
    except Terminated:
        pass  # raised by the signal handler; the with-blocks above cleaned up
    if signals.exit_code is not None:
        return signals.exit_code
    if failure is not None:
        print(f"bottui demo: {failure}", file=sys.stderr)
    return result if isinstance(result, int) else 0


def _start_team(root: Path, teams: list[TeamDemo]) -> dict[str, Any]:
    """The team demo's PostgreSQL, started and migrated: the session's options for it."""
    from bottui.demo_team import TEAM_PROFILE, TeamDemo

    print("bottui demo --team: starting a throwaway PostgreSQL...", file=sys.stderr, flush=True)
    started = TeamDemo(root)
    teams.append(started)  # before it starts: a signal meanwhile stops what did
    started.start()
    return {"store_url": started.store_url, "profile": TEAM_PROFILE}


def _team_up(team: TeamDemo, base_url: str, app: Any) -> None:
    """After the first frame: bob starts his shift, and a toast says who he is."""
    from bottui.demo_team import INTRO

    team.start_teammate(base_url)
    if app is not None:
        app.notify(INTRO, title="Team demo", timeout=20, markup=False)


def _force_cleanup(
    roots: list[Path], sandboxes: list[SandboxProcess], teams: list[TeamDemo]
) -> None:
    # The signal watchdog's last resort, on its own thread: no waiting.
    for team in teams:
        team.kill()
    for sandbox in sandboxes:
        if sandbox.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(sandbox.pid, signal.SIGKILL)
    for root in roots:
        shutil.rmtree(root, ignore_errors=True)
