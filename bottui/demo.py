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

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bottui.api.tokens import AccessToken, ProjectToken
from bottui.ops.session import Session, Settings
from bottui.store.config import ConfigStore
from bottui.store.memory_keyring import MemoryKeyring
from bottui.store.paths import Locations, ensure
from bottui.store.tokens import TokenStore
from bottui.store.utc import Clock

if TYPE_CHECKING:
    from bottui.api.client import BotProtectionClient

DEMO_PROFILE = "demo"


def _q(value: object) -> str:
    # JSON strings and numbers are valid TOML basic strings and numbers.
    return json.dumps(value, ensure_ascii=True)


def inventory_toml(*, hostile: bool = False) -> str:
    """The demo's team inventory file: what an operator would have been given."""
    from bottui.sandbox import demo as data

    lines = ['format = "bottui-inventory"', "version = 1", ""]
    lines += [
        "[[accounts]]",
        f"account = {_q(data.DEMO_ACCOUNT)}",
        f"name = {_q(data.DEMO_ACCOUNT_NAME)}",
        "",
    ]
    projects = dict(data.DEMO_PROJECTS)
    if hostile:
        projects[data.HOSTILE_PROJECT_ID] = data.HOSTILE_MARKUP
    for pid, name in projects.items():
        lines += [
            "[[projects]]",
            f"account = {_q(data.DEMO_ACCOUNT)}",
            f"project = {_q(pid)}",
            f"name = {_q(name)}",
            "",
        ]
    for pid, limiters in data.DEMO_RATE_LIMITERS.items():
        for limiter in limiters:
            lines += [
                "[[limiters]]",
                f"account = {_q(data.DEMO_ACCOUNT)}",
                f"project = {_q(pid)}",
                f"id = {_q(limiter.id)}",
                f"name = {_q(limiter.name)}",
                f"is_active = {_q(limiter.active)}",
                "",
            ]
    for pid, dimensions in data.DEMO_DIMENSIONS.items():
        for dim in dimensions:
            lines += [
                "[[dimensions]]",
                f"account = {_q(data.DEMO_ACCOUNT)}",
                f"project = {_q(pid)}",
                f"id = {_q(dim.id)}",
                f"name = {_q(dim.name)}",
                f"block = {_q(repr(dim.block))}",
                f"challenge = {_q(repr(dim.challenge))}",
                "",
            ]
    if hostile:
        for lid in data.HOSTILE_LIMITER_IDS:
            lines += [
                "[[limiters]]",
                f"account = {_q(data.DEMO_ACCOUNT)}",
                f"project = {_q(data.HOSTILE_PROJECT_ID)}",
                f"id = {_q(lid)}",
                f"name = {_q(data.HOSTILE_ANSI)}",
                "",
            ]
    return "\n".join(lines) + "\n"


def prepare(
    root: Path,
    base_url: str,
    *,
    client_factory: Callable[[str], BotProtectionClient] | None = None,
    hostile: bool = False,
    project: str = "shop-prod",
    clock: Clock | None = None,
) -> Session:
    """A demo session under ``root``: profile, seeded inventory, tokens in memory."""
    from bottui.sandbox import demo as data
    from bottui.store.inventory import Inventory

    locations = Locations.under(root)
    # Written as text: a fresh file needs no comment-preserving editor, and
    # tomlkit costs the demo ~30 ms of start-up. ConfigStore reads it back.
    ensure(locations.config_dir)
    locations.config_file.write_text(
        f"current = {_q(DEMO_PROFILE)}\n\n[profiles.{DEMO_PROFILE}]\n"
        f"base_url = {_q(base_url)}\naccount = {_q(data.DEMO_ACCOUNT)}\n"
        f"project = {_q(project)}\n",
        encoding="utf-8",
    )
    seed = ensure(root) / "demo-inventory.toml"
    seed.write_text(inventory_toml(hostile=hostile), encoding="utf-8")
    options = {"clock": clock} if clock else {}
    with Inventory.at(locations, DEMO_PROFILE, **options) as inventory:
        inventory.import_toml(seed)
    tokens = TokenStore(environ={}, backend=MemoryKeyring())  # type: ignore[arg-type]
    tokens.set_personal(base_url, data.DEMO_ACCOUNT, AccessToken(data.DEMO_ACCESS_TOKEN))
    for pid, value in data.project_tokens(hostile).items():
        tokens.set_project(base_url, data.DEMO_ACCOUNT, pid, ProjectToken(value))
    settings = Settings.resolve(ConfigStore(locations).load(), environ={})
    if client_factory is None:
        return Session(locations, settings, tokens, clock=clock)
    return Session(locations, settings, tokens, client_factory=client_factory, clock=clock)


def run_demo(*, hostile: bool = False) -> int:
    """Run the TUI against the sandbox in a throwaway directory; returns the exit code."""
    from bottui.sandbox.process import SandboxProcess

    with tempfile.TemporaryDirectory(prefix="bottui-demo-") as tmp:
        root = Path(tmp)
        # The port is bound now, so the profile can name it; the child starts
        # once the first frame is up and boots on another core, and a request
        # sent before it serves waits in the listen backlog.
        sandbox = SandboxProcess(hostile=hostile, log_path=root / "sandbox.log")
        try:
            session = prepare(root, sandbox.base_url, hostile=hostile)
            from bottui.tui.app import BottuiApp

            result = BottuiApp(session, demo=True, when_up=sandbox.start).run()
            failure = sandbox.failure()
        finally:
            sandbox.stop()
    if failure is not None:
        print(f"bottui demo: {failure}", file=sys.stderr)
    return result if isinstance(result, int) else 0
