"""A :class:`~bottui.api.transport.Resolver` the tests control, and the transport switch."""

from __future__ import annotations

import socket
from collections.abc import Sequence

import pytest

from bottui.api.transport import TRANSPORT_ENV

TRANSPORTS = ["aiohttp", "httpx"]


class MapResolver:
    """Answers from a dict; an unknown name fails as the system's resolver does."""

    def __init__(self, names: dict[str, list[str]]) -> None:
        self.names = names
        self.calls: list[str] = []

    async def resolve(self, host: str, port: int) -> Sequence[str]:
        self.calls.append(host)
        if host not in self.names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.names[host]


def use_transport(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make clients built from now on use transport ``name`` (aiohttp or httpx)."""
    monkeypatch.setenv(TRANSPORT_ENV, name)
