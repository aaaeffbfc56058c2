"""A :class:`~bottui.api.transport.Resolver` the tests control."""

from __future__ import annotations

import socket
from collections.abc import Sequence


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
