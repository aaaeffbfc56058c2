"""``bottui demo``: the whole app against the embedded sandbox, touching nothing of the user's.

Everything lives in a temporary directory (config, inventory, journal) and an
in-memory keyring holds the demo tokens, so the demo works over SSH on a box
with no keyring at all and leaves no trace. The sandbox is served by a child
process (:class:`~bottui.sandbox.process.SandboxProcess`) on a port bound
here before the app starts. The child starts once the first frame is on
screen and boots on another core (uvicorn and the sandbox cost ~100 ms of CPU
to import: ``time.process_time()`` around ``import bottui.sandbox.server``, on
the busy 2-core machine); a request sent before it serves waits for it in the
backlog.

The temporary directories: who owns each, and removing those of dead demos. A demo ended
by SIGKILL (or a power cut) cannot remove its directory. Each demo writes its owner (pid
and host) into its directory when it starts, and a later demo, once its first frame is
on screen, removes the directories whose owner is certainly gone: same user, same host,
a recorded pid that no longer runs. A directory without an owner file (another version,
or a demo still starting) or of another host (a shared ``/tmp`` seen from a container
with its own pids) is left alone: when in doubt, nothing is removed.

SIGHUP and SIGTERM end ``bottui demo`` as ``q`` does, so nothing of it stays behind. An
SSH drop hangs the terminal up (SIGHUP); ``kill`` and service managers send SIGTERM.
Python's default for both is to die on the spot, which left ``$TMPDIR/bottui-demo-*``
behind. :class:`EndOnSignal` turns either into an orderly end: the app is asked to exit,
the ``with`` and ``finally`` blocks around it stop the sandbox and remove the directory,
and the demo exits with 128 + the signal number, as a shell reports a process ended by a
signal.

``bottui demo --team`` adds a throwaway PostgreSQL and a scripted teammate:
:mod:`bottui.demo_team`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Final, Self

from bottui.api.tokens import AccessToken, ProjectToken
from bottui.ops.session import Session, Settings
from bottui.sandbox import demo_data
from bottui.sandbox.process import SandboxProcess
from bottui.store.files import Locations, ensure
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.inventory.inventory_records import (
    AccountEntry,
    DimensionEntry,
    InventorySnapshot,
    LimiterEntry,
    ProjectEntry,
    Source,
)
from bottui.store.keyring_tokens import MemoryKeyring, TokenStore
from bottui.store.store_errors import InventoryUnavailable, StoreError
from bottui.store.utc import Clock, system_clock
from bottui.tui.app import BottuiApp, need_terminal

if TYPE_CHECKING:
    from bottui.api.client import BotProtectionClient
    from bottui.demo_team import TeamDemo

DEMO_PROFILE = "demo"


# -- the demo's directory ----------------------------------------------------------------

#: The prefix ``tempfile`` gives a demo's directory.
PREFIX: Final = "bottui-demo-"
#: The owner file inside a demo's directory.
OWNER_FILE: Final = "owner.json"


def write_owner(root: Path) -> None:
    """Record this process as the owner of the demo directory ``root``."""
    owner = {"pid": os.getpid(), "host": socket.gethostname()}
    (root / OWNER_FILE).write_text(json.dumps(owner), encoding="utf-8")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


def _abandoned(directory: Path) -> bool:
    """Whether ``directory`` is a demo's whose owner certainly no longer runs."""
    try:
        if directory.is_symlink() or not directory.is_dir():
            return False
        if directory.stat().st_uid != os.getuid():
            return False
        owner = json.loads((directory / OWNER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(owner, dict) or owner.get("host") != socket.gethostname():
        return False
    pid = owner.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or pid == os.getpid():
        return False
    return not _alive(pid)


def _remove(directory: Path) -> None:
    # The owner file goes last: a removal cut short is found and finished next time.
    for child in directory.iterdir():
        if child.name == OWNER_FILE:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                child.unlink()
    with contextlib.suppress(OSError):
        (directory / OWNER_FILE).unlink()
        directory.rmdir()


def remove_abandoned(parent: Path) -> list[Path]:
    """Remove the directories of dead demos directly under ``parent``; those removed."""
    removed = []
    try:
        candidates = [p for p in parent.iterdir() if p.name.startswith(PREFIX)]
    except OSError:
        return []
    for directory in candidates:
        if _abandoned(directory):
            _remove(directory)
            removed.append(directory)
    return removed


def _sweep(parent: Path) -> None:
    # A thread's uncaught exception would print a traceback over the TUI.
    with contextlib.suppress(Exception):
        remove_abandoned(parent)


def remove_abandoned_later(parent: Path) -> threading.Thread:
    """:func:`remove_abandoned` on a daemon thread (never on the start-up path)."""
    thread = threading.Thread(target=_sweep, args=(parent,), name="bottui-demo-sweep", daemon=True)
    thread.start()
    return thread


# -- ending on a signal -------------------------------------------------------------------

#: How long the orderly end may take (the app winding down, the sandbox
#: stopping) before :class:`EndOnSignal` cleans up itself and exits.
GRACE: Final = 8.0

_SIGNALS: Final = tuple(
    sig for sig in (getattr(signal, "SIGHUP", None), signal.SIGTERM) if sig is not None
)


class Terminated(Exception):
    """Raised in the main thread by a signal that came while no app was running."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class EndOnSignal:
    """While entered, SIGHUP and SIGTERM end the demo in an orderly way.

    Before and after the app's event loop runs, the signal raises
    :class:`Terminated` where the main thread is, so the blocks around it
    clean up. While the loop runs, the app's ``exit`` is scheduled on it
    (``call_soon_threadsafe`` wakes a loop waiting for input). Either way a
    watchdog starts: if the process has not ended within :data:`GRACE`
    seconds (say the app is stuck writing to a terminal that is gone),
    ``force_cleanup`` runs on the watchdog's thread and the process exits.

    Args:
        force_cleanup: The watchdog's last resort; must not raise and must
            not wait for the main thread.
    """

    def __init__(self, force_cleanup: Callable[[], None]) -> None:
        self._force_cleanup = force_cleanup
        self._previous: dict[int, Any] = {}
        self._watchdog: threading.Timer | None = None
        #: The app to ask to exit while it runs; set by the caller.
        self.app: Any = None
        #: The first signal received, if any.
        self.signum: int | None = None
        #: Set once the caller is cleaning up: a signal then only counts.
        self.cleaning = False

    @property
    def exit_code(self) -> int | None:
        """128 + the signal number once one came, else None."""
        return None if self.signum is None else 128 + self.signum

    def __enter__(self) -> Self:
        for sig in _SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        if self._watchdog is not None:
            self._watchdog.cancel()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:
            return  # the first one is being acted on
        self.signum = signum
        self._watchdog = threading.Timer(GRACE, self._force)
        self._watchdog.daemon = True
        self._watchdog.start()
        if self.cleaning:
            return
        app = self.app
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no app loop in this thread: unwind from here
            loop = None
        if app is None or loop is None:
            raise Terminated(signum)
        loop.call_soon_threadsafe(app.exit)

    def _force(self) -> None:
        try:
            self._force_cleanup()
        finally:
            os._exit(self.exit_code or 1)


# -- the demo --------------------------------------------------------------------------


def _q(value: object) -> str:
    # JSON strings and numbers are valid TOML basic strings and numbers.
    return json.dumps(value, ensure_ascii=True)


def demo_snapshot(now: str, *, hostile: bool = False) -> InventorySnapshot:
    """The demo's inventory as an operator's team file would bring it in at ``now``."""
    account = demo_data.DEMO_ACCOUNT
    projects = dict(demo_data.DEMO_PROJECTS)
    limiters: list[tuple[str, str, str, bool | None]] = [
        (pid, limiter.id, limiter.name, limiter.active)
        for pid, seeded in demo_data.DEMO_RATE_LIMITERS.items()
        for limiter in seeded
    ]
    if hostile:
        projects[demo_data.HOSTILE_PROJECT_ID] = demo_data.HOSTILE_MARKUP
        limiters += [
            (demo_data.HOSTILE_PROJECT_ID, lid, demo_data.HOSTILE_ANSI, None)
            for lid in demo_data.HOSTILE_LIMITER_IDS
        ]
    dimensions = [
        (pid, d.id, d.name, repr(d.block), repr(d.challenge))
        for pid, seeded in demo_data.DEMO_DIMENSIONS.items()
        for d in seeded
    ]
    imported = Source.IMPORT
    # Sorted by key (project, id), as a snapshot read from a file is.
    return InventorySnapshot(
        accounts=(AccountEntry(account, demo_data.DEMO_ACCOUNT_NAME, now, imported),),
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
    tables: dict[str, tuple[Any, ...]] = {
        "accounts": snapshot.accounts,
        "projects": snapshot.projects,
        "limiters": snapshot.limiters,
        "dimensions": snapshot.dimensions,
    }
    lines = ['format = "bottui-inventory"', "version = 1"]
    for table, records in tables.items():
        for record in records:
            lines += ["", f"[[{table}]]"]
            lines += [
                f"{key} = {_q(value)}"
                for key, value in record.to_json().items()
                if value is not None and key not in _ADDED_BY_IMPORT
            ]
    return "\n".join(lines) + "\n"


#: The members of a record an import fills in itself.
_ADDED_BY_IMPORT: Final = frozenset({"updated_at", "known_at", "source"})


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
    locations = Locations.under(root)
    # One profile on the sandbox. Written as text (a fresh file needs no
    # comment-preserving editor: tomlkit costs ~30 ms) for the edits made
    # later, such as a remembered theme; the session starts from the same
    # settings in memory, as reading the file back would give them (a test
    # checks it), without the config model (~2 ms of start-up).
    ensure(locations.config_dir)
    locations.config_file.write_text(
        f"current = {_q(profile)}\n\n[profiles.{profile}]\n"
        f"base_url = {_q(base_url)}\naccount = {_q(demo_data.DEMO_ACCOUNT)}\n"
        f"project = {_q(project)}\n" + (f"store = {_q(store_url)}\n" if store_url else ""),
        encoding="utf-8",
    )
    settings = Settings(
        profile, base_url, account=demo_data.DEMO_ACCOUNT, project=project, store_url=store_url
    )
    tokens = TokenStore(environ={}, backend=MemoryKeyring())  # type: ignore[arg-type]
    tokens.set_personal(base_url, demo_data.DEMO_ACCOUNT, AccessToken(demo_data.DEMO_ACCESS_TOKEN))
    for pid, value in demo_data.project_tokens(hostile).items():
        tokens.set_project(base_url, demo_data.DEMO_ACCOUNT, pid, ProjectToken(value))
    options: dict[str, Any] = {"clock": clock}
    if client_factory is not None:
        options["client_factory"] = client_factory
    session = Session(locations, settings, tokens, **options)
    # Seeded as an import of the team file would be (source "import"), before
    # any event loop runs: the store's synchronous class, closed at once (the
    # session's async store opens its own connections when first awaited).
    try:
        inventory = Inventory(
            locations.inventory_file, settings.inventory_scope, clock=clock or system_clock
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
    checked first: a :class:`~bottui.store.store_errors.StoreError` naming what to
    install when it is missing.

    SIGHUP (an SSH drop) and SIGTERM end it as ``q`` does, directory,
    sandbox and PostgreSQL removed, with exit code 128 + the signal number.
    """
    if team:
        # Here, not at the top: its PostgreSQL and teammate modules cost ~12 ms of CPU
        # (measured) that the solo demo's first frame does not pay.
        from bottui.demo_team import TeamDemo, check_installed

        check_installed()  # before the screen is taken: the message stays readable
    need_terminal("bottui demo")  # before anything is started
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
                    teams.append(TeamDemo(root))  # before it starts: a signal meanwhile stops it
                    options = teams[0].start()
                session = prepare(root, sandbox.base_url, hostile=hostile, **options)

                def when_up() -> None:
                    sandbox.start()
                    # Screen 6's files, written after the first frame (read when shown).
                    write_demo_playbooks(session.locations)
                    if teams:
                        teams[0].start_teammate(sandbox.base_url, signals.app)
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
