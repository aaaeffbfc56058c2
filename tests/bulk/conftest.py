"""Fixtures of the bulk revocation tests: the sandbox as the CLI's target, id files."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import RequestRecord


@pytest.fixture
def ids_file(tmp_path: Path) -> Callable[..., Path]:
    """Write lines (joined with ``sep``) to a file; returns its path."""

    def write(
        lines: Iterable[str], *, name: str = "ids.txt", sep: str = "\n", prefix: bytes = b""
    ) -> Path:
        path = tmp_path / name
        path.write_bytes(prefix + (sep.join(lines) + sep).encode("utf-8"))
        return path

    return write


def logged(sandbox: SandboxServer, timeout: float = 60.0) -> list[RequestRecord]:
    """The request log once every counted request is in it."""
    deadline = time.monotonic() + timeout
    while True:
        log = sandbox.state.recorder.log
        if len(log) >= sandbox.stats.requests or time.monotonic() > deadline:
            return log
        time.sleep(0.01)


def visitor_ids(records: Iterable[RequestRecord]) -> list[str]:
    """The visitor id of each logged revocation request."""
    return [r.json["subject"].get("visitorId") for r in records if isinstance(r.json, dict)]
