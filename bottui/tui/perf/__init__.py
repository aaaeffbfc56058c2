"""The TUI's measured start-up tricks, fenced in one package, each with its figure.

Every trick here buys first-frame time (``tests/bench/startup.py``: ``bottui demo``'s
first frame must stay within 1.3x of the smallest Textual app) or keeps a large
table's keys answered; each falls back to plain Textual when it may not run:

* the GC pause (here): start-up allocates a few hundred thousand long-lived
  objects, and collections that free nothing cost about 40 ms of the first frame;
* the shared-parse stylesheet and the first frame's part of ``bottui.tcss``
  (:mod:`bottui.tui.perf.stylesheet`): about 30 ms and 5-7 ms;
* rows added without ``add_row`` and measured by the table itself, cells made
  when drawn (:mod:`bottui.tui.perf.incremental_table`): ``add_row`` costs
  ~0.15-0.2 ms a row, this a few microseconds, so 5,000 projects draw a screenful
  first;
* one-line cells drawn without Rich's general layout (:class:`QuickCellsTable`
  in :mod:`bottui.tui.perf.textual_private`): ~0.1-0.2 ms a cell saved.

Textual's private API is touched in :mod:`bottui.tui.perf.textual_private` only,
always with a public fallback (``tests/tui/test_stylesheet_cache.py`` checks that
no other module names a private Textual attribute).

Holding Python's garbage collector off while the TUI starts: the CLI pauses
collection before it imports the app (this package imports nothing of Textual,
so the CLI can), and the app resumes it once its first frame is up:
:func:`resume` first freezes what start-up built (``gc.freeze``: those objects
leave the collector's generations for good), so later collections only walk
what the session allocates.
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
