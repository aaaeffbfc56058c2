"""An idle sandbox does not poll; ``bottui sandbox --help`` teaches fault injection (#27)."""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
from typing import Any

import pytest

from bottui.sandbox import server
from bottui.sandbox.faults import WIRE_NAMES
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli


def test_the_main_loop_waits_instead_of_polling(monkeypatch: pytest.MonkeyPatch) -> None:
    polls: list[float] = []
    real_sleep = asyncio.sleep

    async def recording_sleep(delay: float, *args: Any) -> Any:
        if sys._getframe(1).f_code.co_name == "main_loop":
            polls.append(delay)
        return await real_sleep(delay, *args)

    monkeypatch.setattr(server.asyncio, "sleep", recording_sleep)
    sandbox = SandboxServer().start()
    try:
        for _ in range(3):  # the server answers while its main loop sleeps
            with urllib.request.urlopen(f"{sandbox.base_url}/_sandbox/stats") as answer:
                assert "requests" in json.loads(answer.read())
        uvicorn_server = sandbox._server
        assert uvicorn_server is not None
        assert uvicorn_server.wakeups == 1  # woken by nothing but the stop to come
        assert polls == []
    finally:
        sandbox.stop()
    assert not sandbox.running
    assert sandbox._thread is None or not sandbox._thread.is_alive()


def test_sandbox_help_text_names_every_fault(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli("sandbox", "--help")
    text = capsys.readouterr().out
    assert "Fault injection" in text and "/_sandbox/faults" in text
    missing = [name for name in WIRE_NAMES if name not in text]
    assert missing == []
