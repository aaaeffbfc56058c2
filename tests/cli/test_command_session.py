"""command_session: whatever the command's body does, warnings are printed and stores closed."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys

import pytest

from bottui.api.errors import RefusedError
from bottui.cli import parse
from bottui.cli.command_session import command_session
from bottui.cli.output import Output
from bottui.ops.session import Session


def test_a_failing_command_still_prints_its_warnings_and_closes_its_session() -> None:
    out, err = io.StringIO(), io.StringIO()
    args = parse(["journal", "--base-url", "http://127.0.0.1:9", "--account", "a"])
    seen: list[Session] = []

    async def command() -> None:
        async with command_session(args, Output(False, out, err)) as session:
            seen.append(session)
            await session.inventory_store.accounts()  # opens a store the session must close
            session.warn("inventory \x1b[31mred")
            raise RefusedError("Refused", "nothing was sent")

    with pytest.raises(RefusedError):
        asyncio.run(command())
    assert err.getvalue() == "warning: inventory \ufffd[31mred\n"
    assert seen[0]._inventory_store is None  # closed on the way out
    assert out.getvalue() == ""


SHARED = """
import sys
from bottui.cli import run
code = run({argv!r})
team = sorted(m for m in sys.modules if m.startswith(("bottui.ops.team", "bottui.store.team")))
print("modules:", code, " ".join(team))
"""


@pytest.mark.parametrize("store", [False, True])
def test_the_team_push_is_loaded_only_with_a_team_store(store: bool) -> None:
    # A command on a profile without a team store never imports the push (its
    # modules and the PostgreSQL side cost ~4% of `limiter disable`'s CPU).
    argv = ["limiter", "disable", "rl-1", "--base-url", "http://127.0.0.1:9"]
    argv += ["--account", "a", "--project", "p", "--dry-run"]
    env = dict(os.environ)
    if store:  # a store that cannot be reached: the push is started, then warns
        env["BOTTUI_STORE_URL"] = "postgresql://bottui@127.0.0.1:9/team?connect_timeout=1"
    done = subprocess.run(
        [sys.executable, "-c", SHARED.format(argv=argv)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    _, code, *modules = done.stdout.splitlines()[-1].split()
    assert code == "0", done.stderr
    assert ("bottui.ops.team_push" in modules) is store, modules
