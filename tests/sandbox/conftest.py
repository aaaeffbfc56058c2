"""A sync httpx client on the loopback sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from bottui.sandbox.server import SandboxServer
from tests.sandbox.helpers import SSL


@pytest.fixture
def client(sandbox: SandboxServer) -> Iterator[httpx.Client]:
    with httpx.Client(verify=SSL, base_url=sandbox.base_url, timeout=5.0) as http:
        yield http
