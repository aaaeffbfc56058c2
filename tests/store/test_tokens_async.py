"""TokenStore awaited on an event loop: one daemon thread per keyring call, bounded."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest

from bottui.api.tokens import AccessToken, ProjectToken
from bottui.store.executor import shared_executor
from bottui.store.keyring_tokens import TokenState, TokenStore
from bottui.store.store_errors import KeyringUnavailable
from tests.fixtures.keyrings import BlockingKeyring, InMemoryKeyring, installed

URL = "https://api.example.com"


class RecordingKeyring(InMemoryKeyring):
    """Remembers which thread each call ran in."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[threading.Thread] = []

    def get_password(self, service: str, username: str) -> str | None:
        self.threads.append(threading.current_thread())
        return super().get_password(service, username)


@pytest.fixture
def recording() -> Iterator[RecordingKeyring]:
    backend = RecordingKeyring()
    with installed(backend):
        yield backend


@pytest.fixture
def blocking() -> Iterator[BlockingKeyring]:
    backend = BlockingKeyring()
    with installed(backend):
        yield backend
    backend.release.set()  # let the stuck daemon thread end


async def test_a_keyring_read_runs_on_one_executor_daemon_thread(
    recording: RecordingKeyring,
) -> None:
    tokens = TokenStore({})
    await tokens.set_personal_async(URL, "acc", AccessToken("personal-token"))
    await tokens.set_project_async(URL, "acc", "p1", ProjectToken("project-token"))
    token = await tokens.personal_async(URL, "acc")
    assert token is not None and token.reveal() == "personal-token"
    project = await tokens.project_async(URL, "acc", "p1")
    assert project is not None and project.reveal() == "project-token"
    assert await tokens.personal_state_async(URL, "acc") is TokenState.STORED
    assert await tokens.project_state_async(URL, "other", "p1") is TokenState.MISSING
    assert await tokens.delete_project_async(URL, "acc", "p1") is True
    assert await tokens.delete_personal_async(URL, "acc") is True
    assert await tokens.delete_personal_async(URL, "acc") is False
    # The keyring ran on the executor's own daemon thread: no second thread
    # started by the store to be watched by the first.
    executor_threads = set(shared_executor().threads())
    assert recording.threads
    assert all(t in executor_threads and t.daemon for t in recording.threads)
    assert all(t.name.startswith("bottui-store-keyring") for t in recording.threads)


async def test_the_environment_wins_without_a_thread(recording: RecordingKeyring) -> None:
    tokens = TokenStore({"BOTTUI_ACCESS_TOKEN": "from-env"})
    token = await tokens.personal_async(URL, "acc")
    assert token is not None and token.reveal() == "from-env"
    assert await tokens.personal_state_async(URL, "acc") is TokenState.ENVIRONMENT_ANY_ACCOUNT
    assert recording.threads == []


async def test_a_blocking_keyring_times_out_while_the_loop_runs(
    blocking: BlockingKeyring,
) -> None:
    tokens = TokenStore({}, timeout=0.5)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.02)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    try:
        with pytest.raises(KeyringUnavailable) as caught:
            await asyncio.wait_for(tokens.personal_async(URL, "acc"), 120)  # a hang guard
    finally:
        ticking.cancel()
    assert caught.value.title == "The keyring did not answer within 0.5 s"
    assert ticks > 0  # the loop ran other tasks while the keyring hung
    # While the stuck call has not returned, calls fail fast without a new thread: with an
    # hour's timeout, a call that waited for the keyring would trip the hang guard.
    tokens._timeout = 3600.0
    with pytest.raises(KeyringUnavailable):
        await asyncio.wait_for(tokens.set_personal_async(URL, "acc", AccessToken("x")), 120)
    assert blocking.calls == 1
    blocking.release.set()
    deadline = time.monotonic() + 120  # a hang guard
    while True:  # the stuck call returns; then calls go through again
        try:
            assert await tokens.personal_async(URL, "acc") is None
            break
        except KeyringUnavailable:
            assert time.monotonic() < deadline, "calls did not resume after the keyring returned"
            await asyncio.sleep(0.01)
