"""Token states of thousands of slots are read in a few trips to the store thread (#12)."""

from __future__ import annotations

from typing import Any

import pytest

from bottui.api.tokens import ProjectToken
from bottui.ops.token_slots import BATCH, Slot, read_states
from bottui.store.executor import StoreExecutor
from bottui.store.keyring_tokens import TokenState, TokenStore
from tests.fixtures.keyrings import InMemoryKeyring

URL = "https://x.example"


async def test_thousands_of_slots_take_a_trip_per_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trips = 0
    real = StoreExecutor.call

    async def counted(self: StoreExecutor, *args: Any, **kwargs: Any) -> Any:
        nonlocal trips
        trips += 1
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(StoreExecutor, "call", counted)
    keyring = InMemoryKeyring()
    store = TokenStore(environ={}, backend=keyring)
    await store.set_project_async(URL, "a", "p7", ProjectToken("tok"))
    trips = 0
    slots = [Slot.personal("a")] + [Slot.for_project("a", f"p{i}") for i in range(2_000)]
    readings = await read_states(store, URL, slots)
    # One trip per slot (2,001) before; now one per batch.
    assert trips == -(-len(slots) // BATCH)
    assert readings[Slot.for_project("a", "p7")] is TokenState.STORED
    assert readings[Slot.personal("a")] is TokenState.MISSING
    assert len(readings) == len(slots)
