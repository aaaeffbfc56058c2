"""Holding Python's garbage collector off while the TUI starts.

Start-up allocates a few hundred thousand long-lived objects (Textual's and
ours). Each time the collector's thresholds trip, a full collection walks
all of them: measured with ``tests/bench/startup.py``, about 40 ms of the
time to the first frame went to collections that free nothing. So the CLI
pauses collection before it imports the app, and the app resumes it once
its first frame is up: :func:`resume` first freezes what start-up built
(``gc.freeze``: those objects leave the collector's generations for good),
so later collections only walk what the session allocates.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_paused = False


def pause() -> None:
    """Stop automatic collection until :func:`resume` (no-op if already off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze the objects built so far and collect automatically again (idempotent).

    Only undoes :func:`pause`: a collector someone else turned off stays off.
    """
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """:func:`pause` for the block, then :func:`resume` (a no-op if the app already resumed)."""
    pause()
    try:
        yield
    finally:
        resume()
