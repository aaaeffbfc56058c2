"""#12: concurrency up to 512, a pool as large, and the rate-limit note above 64."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bottui.api.errors import RefusedError
from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.input import BulkSource
from bottui.ops.bulk.report import MAX_CONCURRENCY, check_concurrency, concurrency_note
from bottui.ops.session import Session, Settings
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenStore
from tests.cli.helpers import cli
from tests.fixtures.sandbox import ACC, PROJ, scope


def test_bounds() -> None:
    assert MAX_CONCURRENCY == 512
    assert check_concurrency(512) == 512 and check_concurrency(1) == 1
    for bad in (0, 513, True):
        with pytest.raises(RefusedError):
            check_concurrency(bad)
    assert concurrency_note(64) is None
    note = concurrency_note(65)
    assert note is not None and "rate limit" in note


@pytest.mark.parametrize(("concurrency", "noted"), [("64", False), ("65", True), ("512", True)])
def test_the_cli_notes_the_rate_limit_above_64(
    env: SandboxServer, ids_file: Callable[..., Path], concurrency: str, noted: bool
) -> None:
    path = ids_file(["vis_a", "vis_b"])
    r = cli("revoke", "--from-file", str(path), *scope(), "--concurrency", concurrency, "--json")
    assert r.code == 0, r.err
    assert ("the service's rate limit, not bottui" in r.err) is noted
    assert r.json()["nothingStanding"] == 2  # stdout holds the document alone


async def test_a_run_above_64_has_as_many_requests_in_flight(env: SandboxServer) -> None:
    # The pool is the run's size: with the client's pool of 64, 64 would be the peak.
    env.faults.configure(latency=0.5)
    session = Session(
        Locations.default(), Settings(profile_name=None, base_url=env.base_url), TokenStore()
    )
    text = "".join(f"vis_p{n:04d}\n" for n in range(200))
    try:
        summary = await BulkRevocation(
            session, ACC, PROJ, BulkSource.from_text(text), concurrency=100
        ).run()
    finally:
        await session.aclose()
    assert summary.nothing_standing == 200
    assert env.stats.peak_in_flight == 100
