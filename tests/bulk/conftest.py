"""Fixtures of the bulk revocation tests: the sandbox as the CLI's target, id files."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from bottui.sandbox import demo
from bottui.sandbox.recorder import RequestRecord
from bottui.sandbox.server import SandboxServer

ACC = demo.DEMO_ACCOUNT
PROJ = "shop-prod"


@pytest.fixture
def env(sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> SandboxServer:
    """The sandbox as base URL and the demo tokens in the environment."""
    monkeypatch.setenv("BOTTUI_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", demo.DEMO_ACCESS_TOKEN)
    monkeypatch.setenv("BOTTUI_API_KEY", demo.DEMO_PROJECT_TOKENS[PROJ])
    return sandbox


def scope() -> list[str]:
    """``--account A --project P`` of the demo."""
    return ["--account", ACC, "--project", PROJ]


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


def logged(sandbox: SandboxServer, timeout: float = 5.0) -> list[RequestRecord]:
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
