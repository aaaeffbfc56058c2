"""Issue #2's client tests once more, over httpx's own transport.

``tests/api`` runs them over the default transport (aiohttp, see
:mod:`bottui.api.transport`); ``BOTTUI_HTTP_TRANSPORT=httpx`` must keep
working just as well: id encoding, retries, Retry-After, deadline, failures.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.api.test_client import *  # noqa: F403 (the same tests, collected again here)


@pytest.fixture(autouse=True)
def _httpx_transport(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("BOTTUI_HTTP_TRANSPORT", "httpx")
    yield
