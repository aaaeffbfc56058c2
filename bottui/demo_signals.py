"""SIGHUP and SIGTERM end ``bottui demo`` as ``q`` does, so nothing of it stays behind.

An SSH drop hangs the terminal up (SIGHUP); ``kill`` and service managers
send SIGTERM. Python's default for both is to die on the spot, which left
``$TMPDIR/bottui-demo-*`` behind. :class:`EndOnSignal` turns either into an
orderly end: the app is asked to exit, the ``with`` and ``finally`` blocks
around it stop the sandbox and remove the directory, and the demo exits with
128 + the signal number, as a shell reports a process ended by a signal.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, Final, Self

#: How long the orderly end may take (the app winding down, the sandbox
#: stopping) before :class:`EndOnSignal` cleans up itself and exits.
GRACE: Final = 8.0

_SIGNALS: Final = tuple(
    sig for sig in (getattr(signal, "SIGHUP", None), signal.SIGTERM) if sig is not None
)


class Terminated(Exception):
    """Raised in the main thread by a signal that came while no app was running."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class EndOnSignal:
    """While entered, SIGHUP and SIGTERM end the demo in an orderly way.

    Before and after the app's event loop runs, the signal raises
    :class:`Terminated` where the main thread is, so the blocks around it
    clean up. While the loop runs, the app's ``exit`` is scheduled on it
    (``call_soon_threadsafe`` wakes a loop waiting for input). Either way a
    watchdog starts: if the process has not ended within :data:`GRACE`
    seconds (say the app is stuck writing to a terminal that is gone),
    ``force_cleanup`` runs on the watchdog's thread and the process exits.

    Args:
        force_cleanup: The watchdog's last resort; must not raise and must
            not wait for the main thread.
    """

    def __init__(self, force_cleanup: Callable[[], None]) -> None:
        self._force_cleanup = force_cleanup
        self._previous: dict[int, Any] = {}
        self._watchdog: threading.Timer | None = None
        #: The app to ask to exit while it runs; set by the caller.
        self.app: Any = None
        #: The first signal received, if any.
        self.signum: int | None = None
        #: Set once the caller is cleaning up: a signal then only counts.
        self.cleaning = False

    @property
    def exit_code(self) -> int | None:
        """128 + the signal number once one came, else None."""
        return None if self.signum is None else 128 + self.signum

    def __enter__(self) -> Self:
        for sig in _SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        if self._watchdog is not None:
            self._watchdog.cancel()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:
            return  # the first one is being acted on
        self.signum = signum
        self._watchdog = threading.Timer(GRACE, self._force)
        self._watchdog.daemon = True
        self._watchdog.start()
        if self.cleaning:
            return
        app = self.app
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no app loop in this thread: unwind from here
            loop = None
        if app is None or loop is None:
            raise Terminated(signum)
        loop.call_soon_threadsafe(app.exit)

    def _force(self) -> None:
        try:
            self._force_cleanup()
        finally:
            os._exit(self.exit_code or 1)
