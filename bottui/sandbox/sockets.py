"""The sandbox's listening sockets: bound here, served by uvicorn in this process or a child.

Standard library only: the demo binds its port before the app starts, and
must not pay for importing the server to do so.
"""

from __future__ import annotations

import errno
import socket


class BindError(OSError):
    """The sandbox cannot listen where it was asked; the message says why, in one line."""


def bind_tcp(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``(host, port)`` (port 0: any free one), inheritable by a child.

    Raises :class:`BindError` (an ``OSError``) with a plain reason: a port
    out of 0..65535, an unknown host, an address this machine does not
    have, a port in use or one that needs privileges.
    """
    if not 0 <= port <= 65535:
        raise BindError(f"port {port} is not a number in 0..65535 (0: any free port)")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted sockets only
    # when the proto says TCP; with proto 0, Nagle + delayed ACK add ~40 ms per request.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    reason: str | None = None
    try:
        sock.bind((host, port))
    except (socket.gaierror, UnicodeError, TypeError):
        # TypeError: a host that cannot be encoded (undecodable argv bytes).
        reason = f"unknown host {host!r}"
    except OSError as exc:
        reason = _reason(exc, host, port)
    if reason is not None:
        sock.close()
        raise BindError(reason)
    sock.set_inheritable(True)
    return sock


def _reason(exc: OSError, host: str, port: int) -> str:
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return f"{where} is already in use (choose another --port, or 0 for any free one)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{host!r} is not an address of this machine"
    if exc.errno == errno.EACCES:
        return f"no permission to listen on {where} (ports below 1024 need privileges)"
    return f"cannot listen on {where}: {exc.strerror or exc}"
