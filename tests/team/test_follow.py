"""``bottui journal --follow`` in a real process (#13): shared entries live, the local
journal polled without a store, a store that is down said once, Ctrl-C exits 130."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from typing import IO

import pytest

from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope
from tests.fixtures.teammates import bob_change, migrated, push

PROJ = "shop-prod"


class Follower:
    """``bottui journal --follow ...`` as a real process, its lines read as they come."""

    def __init__(self, *argv: str, env: dict[str, str] | None = None) -> None:
        full = dict(os.environ)
        full.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bottui", "journal", "--follow", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=full,
        )
        self.out: queue.Queue[str] = queue.Queue()
        self.err: queue.Queue[str] = queue.Queue()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for stream, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=_pump, args=(stream, into), daemon=True).start()

    def line(self, into: queue.Queue[str], timeout: float) -> str | None:
        try:
            return into.get(timeout=timeout)
        except queue.Empty:
            return None

    def interrupt(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=120)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=120)


def _pump(stream: IO[str], into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line.rstrip("\n"))


def test_follow_prints_a_pushed_teammate_entry_as_jsonl(
    env: SandboxServer, pg_admin_url: str
) -> None:
    url = asyncio.run(migrated(pg_admin_url))
    follower = Follower("--jsonl", env={"BOTTUI_STORE_URL": url})
    try:
        got = None
        # Pushed until one arrives: the first may come before LISTEN holds.
        for local_id in range(1, 61):
            asyncio.run(push(url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=local_id)))
            got = follower.line(follower.out, timeout=2)
            if got is not None:
                break
        assert got is not None, "no entry arrived within 120 s"
        entry = json.loads(got)
        assert (entry["operator"], entry["host"], entry["reason"]) == (
            "bob",
            "bastion-2",
            "INC-4312",
        )
        assert entry["target"] == {"rate_limiter_id": "rl-login"} and entry["shared"] is True
        assert follower.interrupt() == 130
    finally:
        follower.kill()


def test_follow_without_a_store_polls_the_local_journal(env: SandboxServer) -> None:
    follower = Follower()
    try:
        assert follower.line(follower.out, timeout=120) == "the journal is empty"
        # No pause: the follower goes on after what it listed (nothing), so a change made
        # right away is printed however late its first poll comes.
        assert cli("limiter", "disable", "rl-login", *scope(), "--reason", "INC-9").code == 0
        line = follower.line(follower.out, timeout=120)
        assert line is not None and "rl-login" in line and "INC-9" in line
        assert follower.interrupt() == 130
    finally:
        follower.kill()


def test_follow_says_once_that_the_store_is_down_and_keeps_trying(
    env: SandboxServer,
) -> None:
    follower = Follower(env={"BOTTUI_STORE_URL": "postgresql://bottui@127.0.0.1:9/bottui"})
    try:
        note = follower.line(follower.err, timeout=120)
        # The page before following is this machine's journal, and says so.
        assert note is not None and note.startswith("note: the team store is unreachable")
        first = follower.line(follower.err, timeout=120)
        assert first is not None and first.startswith("team store unavailable: ")
        assert first.endswith("; trying again") and "Traceback" not in first
        assert follower.line(follower.err, timeout=5) is None  # said once, not every retry
        assert follower.proc.poll() is None  # still trying
        assert follower.interrupt() == 130
    finally:
        follower.kill()


@pytest.fixture(autouse=True)
def _no_pager(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
