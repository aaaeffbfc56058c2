"""The aiohttp resolver of :class:`~bottui.api.transport.AiohttpTransport`: the book's answers.

aiohttp's connector asks its resolver where to connect. This one answers
from :class:`~bottui.api.resolve.AddressBook`: a plain-http host's pinned
loopback addresses (checked before the request was handed to aiohttp), any
other host resolved through the book's :class:`~bottui.api.resolve.Resolver`.
Imported only with aiohttp, on the first request.
"""

from __future__ import annotations

import socket

from aiohttp.abc import AbstractResolver, ResolveResult

from bottui.api.resolve import AddressBook


class BookResolver(AbstractResolver):
    """An ``aiohttp.abc.AbstractResolver`` over an :class:`AddressBook`."""

    def __init__(self, book: AddressBook) -> None:
        self._book = book

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        """The book's addresses for ``host``, of ``family`` unless it is ``AF_UNSPEC``."""
        results: list[ResolveResult] = []
        for address in await self._book.addresses(host, port):
            found = socket.AF_INET6 if ":" in address else socket.AF_INET
            if family not in (socket.AF_UNSPEC, found):
                continue
            results.append(
                ResolveResult(
                    hostname=host,
                    host=address,
                    port=port,
                    family=found,
                    proto=socket.IPPROTO_TCP,
                    flags=socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
                )
            )
        if not results:
            raise socket.gaierror(socket.EAI_NONAME, f"no address for {host}")
        return results

    async def close(self) -> None:
        """Nothing to release: the book's resolver holds no connection."""
