"""command_session: whatever the command's body does, warnings are printed and stores closed."""

from __future__ import annotations

import asyncio
import io

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
