"""The sandbox's listening sockets: bound here, served by uvicorn in this process or a child.

Standard library only: the demo binds its port before the app starts, and
must not pay for importing the server to do so.
"""

from __future__ import annotations

import socket


def bind_tcp(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``(host, port)`` (port 0: any free one), inheritable by a child."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted sockets only
    # when the proto says TCP; with proto 0, Nagle + delayed ACK add ~40 ms per request.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock
