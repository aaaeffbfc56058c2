"""Await a blocking call without ever making process exit wait for it.

``asyncio.to_thread`` uses an executor whose threads are joined at
interpreter exit, so a keyring call hung on D-Bus would keep the process
alive. A daemon thread per call is cheap next to a keyring round trip and
never blocks exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


async def run_in_daemon(fn: Callable[[], T]) -> T:
    """Run ``fn`` in a daemon thread and await its result or exception."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def deliver(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def target() -> None:
        result: T | None = None
        error: BaseException | None = None
        try:
            result = fn()
        except BaseException as exc:  # delivered to the awaiting task
            error = exc
        # RuntimeError: the loop closed meanwhile, so nobody is waiting.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(deliver, result, error)

    threading.Thread(target=target, name="bottui-blocking", daemon=True).start()
    return await future
