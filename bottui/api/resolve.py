"""Where a connection goes: name resolution, and the loopback pin of plain http.

A token must never cross the network in clear. A base URL's *name* proves
nothing (``evil.localhost`` may resolve to any address), so for a plain
``http://`` URL the host is resolved once, every address it resolves to must
be loopback, and connections then go to those addresses only: the transports
(:mod:`bottui.api.transport`, :mod:`bottui.api.httpx_pinned`) ask
:class:`AddressBook` for the addresses instead of resolving again, so a DNS
answer that changes between the check and the connection changes nothing.

Resolution goes through a :class:`Resolver` (default: the event loop's
``getaddrinfo``), which tests replace to map names without ``/etc/hosts``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from typing import Protocol

from bottui.api.errors import PlainHttpRefused


class Resolver(Protocol):
    """Turns a host name into IP address strings (raises ``OSError`` when it cannot)."""

    async def resolve(self, host: str, port: int) -> Sequence[str]:
        """The addresses of ``host``, in the order to try them."""
        ...


class SystemResolver:
    """The system's resolver, through the running loop's ``getaddrinfo``."""

    async def resolve(self, host: str, port: int) -> Sequence[str]:
        """The addresses of ``host``; ``socket.gaierror`` when it has none."""
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
        return list(dict.fromkeys(str(info[4][0]) for info in infos))


def literal_address(host: str) -> str | None:
    """``host`` as an IP address string if it is one (brackets allowed), else None."""
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


def is_loopback_address(address: str) -> bool:
    """True for an address in 127.0.0.0/8, ``::1`` or an IPv4-mapped loopback."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


class AddressBook:
    """The addresses one transport connects to; plain-http hosts pinned to loopback.

    Args:
        resolver: How names are resolved; default :class:`SystemResolver`.

    :meth:`pin_plain` is awaited before a plain-http request is handed to the
    connection pool; :meth:`addresses` is what the pool's connector calls.
    """

    def __init__(self, resolver: Resolver | None = None) -> None:
        self.resolver: Resolver = resolver or SystemResolver()
        self._pinned: dict[tuple[str, int], tuple[str, ...]] = {}
        # Refused answers too: a bulk run refused on its first id does not
        # resolve the name again for each of the others.
        self._refused: dict[tuple[str, int], tuple[str, ...]] = {}
        self._lock = asyncio.Lock()

    async def pin_plain(self, host: str, port: int) -> tuple[str, ...]:
        """Resolve ``host`` once for plain http and check it; the pinned addresses.

        Raises :class:`PlainHttpRefused` unless every address is loopback,
        and ``OSError`` when the name does not resolve.
        """
        key = _key(host, port)
        pinned = self._pinned.get(key)
        if pinned is not None:
            return pinned
        async with self._lock:
            pinned = self._pinned.get(key)
            if pinned is not None:
                return pinned
            refused = self._refused.get(key)
            if refused is not None:
                raise PlainHttpRefused(host, refused)
            literal = literal_address(host)
            found = (literal,) if literal else tuple(await self._resolve(host, port))
            if not all(is_loopback_address(address) for address in found):
                self._refused[key] = found
                raise PlainHttpRefused(host, found)
            self._pinned[key] = found
            return found

    def pinned(self, host: str, port: int) -> tuple[str, ...] | None:
        """The pinned addresses of a plain-http host, None if it was never pinned."""
        return self._pinned.get(_key(host, port))

    async def addresses(self, host: str, port: int) -> tuple[str, ...]:
        """Where a connection to ``host:port`` goes: the pin, else a fresh resolution."""
        pinned = self.pinned(host, port)
        if pinned is not None:
            return pinned
        literal = literal_address(host)
        if literal:
            return (literal,)
        return tuple(await self._resolve(host, port))

    async def _resolve(self, host: str, port: int) -> Sequence[str]:
        found = await self.resolver.resolve(host, port)
        if not found:
            raise socket.gaierror(socket.EAI_NONAME, f"no address for {host}")
        return found


def _key(host: str, port: int) -> tuple[str, int]:
    # Trailing dots go: aiohttp turns "name.." into "name." before resolving,
    # and the lookup must still find the pin.
    return host.lower().rstrip("."), port


__all__ = [
    "AddressBook",
    "Resolver",
    "SystemResolver",
    "is_loopback_address",
    "literal_address",
]
