"""``EndOnSignal`` outside a running app: the signal unwinds, and the handlers come back.

The whole path (a demo in a pseudo-terminal hung up or sent SIGTERM) is
tested in ``tests/cli/test_demo_process.py``; this is the part before the
app's loop runs, which that test cannot time.
"""

from __future__ import annotations

import os
import signal

import pytest

from bottui.demo import EndOnSignal, Terminated

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")


@pytest.mark.parametrize("signum", [signal.SIGTERM, getattr(signal, "SIGHUP", 1)])
def test_a_signal_before_the_app_runs_unwinds_with_its_exit_code(signum: int) -> None:
    before = signal.getsignal(signum)
    forced: list[bool] = []
    guard = EndOnSignal(lambda: forced.append(True))
    with pytest.raises(Terminated), guard:
        os.kill(os.getpid(), signum)
        for _ in range(1000):  # the handler runs at the next bytecode boundary
            pass
    assert guard.exit_code == 128 + signum
    assert signal.getsignal(signum) == before
    assert forced == []  # the orderly end came first: the watchdog was cancelled
