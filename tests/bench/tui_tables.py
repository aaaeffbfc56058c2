"""How the Projects and Rate limiters tables scale with their rows (issue #12).

    python -m tests.bench.tui_tables [--projects 50 5000] [--limiters 4 4000]
                                     [--runs 5] [--pages 5]

Each run is a demo session in a temporary directory (the real inventory and
token stores, the sandbox over loopback) whose inventory was given extra
rows through the store's own import, and the app headless
(``App.run_test``), timed from outside:

* **limiters**: the app opens on the Rate limiters screen of a project with N
  limiters. *app's first frame*: from starting the app to its first frame;
  *first frame, rows*: to the first frame showing rows (a first page, read in
  a worker); *every row built*: until the table holds all N and has measured
  them (cells are made when drawn or measured); *switch back*:
  ``2`` pressed on the Projects screen until the re-read is shown;
  *PageDown*: each key until the cursor moved and the frame is drawn
  (*building*: while the rest is still being read and measured).
* **projects**: an inventory of N projects, every other one with a project
  token in the (in-memory) keyring. *first visit* / *later visit*: ``1``
  pressed until the first frame showing rows (later visits: until the
  re-read is shown, updated in place); *every row*: until the table holds
  all N; *tokens*: until no cell says "checking…" any more; *CPU*: the
  process's CPU seconds from the key to the tokens shown; *PageDown* as above.

Runs of the small and the big size are interleaved (same machine load) and
the script prints medians and the ratios big / small the issue's targets
are stated in: projects within 1.3x (first and later visits), limiters'
first frame within 1.3x, switch back < 150 ms, PageDown < 100 ms; and the
load average before and after (other work on the machine skews every figure).
A table of 4 rows draws 4 lines where a long one draws a screenful (~25):
PageDown and switching back cost that difference, whatever the rows beyond.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.css.query import NoMatches
from textual.pilot import Pilot
from textual.screen import Screen

from bottui.api.tokens import ProjectToken
from bottui.demo import prepare
from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT, DEMO_PROJECTS, DEMO_RATE_LIMITERS
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import ManualClock, demo_state
from bottui.store.inventory.inventory_records import (
    InventorySnapshot,
    LimiterEntry,
    ProjectEntry,
    Source,
)
from bottui.tui.app import BottuiApp
from bottui.tui.screens.limiters import LimitersScreen
from bottui.tui.screens.projects import CHECKING, ProjectsScreen, ProjectTable
from bottui.tui.widgets.limiter_table import LimiterTable
from tests.fixtures.stores import inventory_of

SIZE = (100, 30)
TIMEOUT = 900.0  # the quadratic table took 8 minutes for 5,000 projects

Metrics = dict[str, list[float]]


def _session(root: Path, base_url: str, projects: int, limiters: int) -> Session:
    """A demo session with ``projects`` projects and ``limiters`` limiters in shop-prod."""
    session = prepare(root, base_url)
    now = "2026-11-21T03:00:00.000000Z"
    extra_projects = tuple(
        ProjectEntry(DEMO_ACCOUNT, f"bench-{i:06d}", f"Bench project {i}", now, Source.IMPORT)
        for i in range(max(0, projects - len(DEMO_PROJECTS)))
    )
    extra_limiters = tuple(
        LimiterEntry(
            DEMO_ACCOUNT, "shop-prod", f"rl-bench-{i:06d}", f"Limiter {i}", i % 3 == 0, now, "file"
        )
        for i in range(max(0, limiters - len(DEMO_RATE_LIMITERS["shop-prod"])))
    )
    inventory = inventory_of(session)
    try:
        inventory.import_snapshot(
            InventorySnapshot(projects=extra_projects, limiters=extra_limiters)
        )
    finally:
        inventory.close()
    for i, entry in enumerate(extra_projects):
        if i % 2 == 0:
            token = ProjectToken(f"prj_bench_{i:06d}_token")
            session.tokens.set_project(base_url, DEMO_ACCOUNT, entry.project, token)
    return session


async def _until(check: Callable[[], bool], what: str) -> None:
    started = time.perf_counter()
    while not check():
        await asyncio.sleep(0.002)
        if time.perf_counter() - started > TIMEOUT:
            raise RuntimeError(f"timed out waiting for {what}")


async def _settle(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _key(app: BottuiApp, key: str) -> None:
    app.post_message(events.Key(key, key if len(key) == 1 else None))


async def _page_down(
    pilot: Pilot[Any], table: ProjectTable | LimiterTable, pages: int
) -> list[float]:
    """Milliseconds per PageDown: key posted -> cursor moved and the frame drawn."""
    table.focus()
    await pilot.pause()
    times: list[float] = []
    for _ in range(pages):
        before = table.cursor_row
        started = time.perf_counter()
        _key(pilot.app, "pagedown")  # type: ignore[arg-type]
        if before < table.row_count - 1:  # at the last row, PageDown does not move
            await _until(lambda: table.cursor_row != before, "PageDown")  # noqa: B023
        await _next_frame(pilot.app)  # type: ignore[arg-type]
        times.append((time.perf_counter() - started) * 1000)
    return times


class FrameClock:
    """When the screen last drew a frame in which ``ready()`` held.

    A frame is Textual's compositor refresh (headless, it renders and
    discards). Its method is private: should it be renamed, the clock falls
    back to waiting for the next refresh's callbacks, which run after the
    work scheduled for after that frame (an over-estimate).
    """

    def __init__(self) -> None:
        self.ready: Callable[[], bool] | None = None
        self.when: float | None = None
        # A second watch, armed before the app starts: its rows may be drawn
        # before the app's first frame has been seen (no frame would follow).
        self.rows: Callable[[], bool] | None = None
        self.rows_when: float | None = None
        self.hooked = hasattr(Screen, "_compositor_refresh")
        if self.hooked:
            refresh = Screen._compositor_refresh
            clock = self

            def counted(screen: Screen[Any]) -> None:
                refresh(screen)
                if clock.ready is not None and clock.when is None and clock.is_ready():
                    clock.when = time.perf_counter()
                if clock.rows is not None and clock.rows_when is None and clock.rows_ready():
                    clock.rows_when = time.perf_counter()

            Screen._compositor_refresh = counted  # type: ignore[method-assign,assignment]

    def is_ready(self) -> bool:
        try:  # a screen still composing has no table yet
            return self.ready is not None and self.ready()
        except NoMatches:
            return False

    def rows_ready(self) -> bool:
        try:
            return self.rows is not None and self.rows()
        except NoMatches:
            return False

    async def first(self, app: BottuiApp, ready: Callable[[], bool], what: str) -> float:
        """The time of the first frame drawn once ``ready()`` holds."""
        self.ready, self.when = ready, None
        await _until(self.is_ready, what)
        if self.hooked:
            # Rows shown make the table dirty: a frame follows them.
            await _until(lambda: self.when is not None, what)
            assert self.when is not None
            self.ready = None
            return self.when
        await _next_frame(app)
        return time.perf_counter()


async def _next_frame(app: BottuiApp) -> None:
    """Wait until the screen has drawn a frame (not until it is idle: rows keep coming)."""
    drawn = asyncio.Event()
    app.screen.call_after_refresh(drawn.set)
    app.screen.refresh()
    await drawn.wait()


FRAMES = FrameClock()


def _read_done(app: BottuiApp, group: str) -> bool:
    """Whether the screen's read of the inventory (its worker ``group``) has finished."""
    return all(worker.is_finished for worker in app.workers if worker.group == group)


async def _built(pilot: Pilot[Any], table: ProjectTable | LimiterTable, rows: int) -> None:
    await _until(lambda: table.row_count == rows and not table.building, "every row")
    await pilot.pause()


async def _limiters_run(session: Session, rows: int, pages: int) -> Metrics:
    app = BottuiApp(session, demo=True)

    def table() -> LimiterTable | None:
        screen = app.screen
        return screen.query_one(LimiterTable) if isinstance(screen, LimitersScreen) else None

    def drawn() -> bool:
        shown = table()
        return shown is not None and shown.row_count > 0 and _read_done(app, "limiters")

    def has_rows() -> bool:
        if not app.is_running or not app.screen_stack:
            return False
        shown = table()
        return shown is not None and shown.row_count > 0

    cpu = time.process_time()
    started = time.perf_counter()
    FRAMES.ready, FRAMES.when = (lambda: True), None  # the app's very first frame
    FRAMES.rows, FRAMES.rows_when = has_rows, None  # its first frame with rows
    async with app.run_test(size=SIZE) as pilot:
        await _until(lambda: FRAMES.when is not None, "the first frame")
        assert FRAMES.when is not None
        app_frame = (FRAMES.when - started) * 1000
        if FRAMES.hooked:
            await _until(lambda: FRAMES.rows_when is not None, "the limiters")
            assert FRAMES.rows_when is not None
            first = (FRAMES.rows_when - started) * 1000
        else:
            first = (await FRAMES.first(app, has_rows, "the limiters") - started) * 1000
        FRAMES.rows = None
        shown = table()
        assert shown is not None
        # Keys while the rows beyond the first screen are still being added.
        early = await _page_down(pilot, shown, pages)
        await _built(pilot, shown, rows)
        built = (time.perf_counter() - started) * 1000
        cpu = time.process_time() - cpu
        await _settle(pilot)
        switches: list[float] = []
        for _ in range(3):
            _key(app, "1")
            await _until(lambda: isinstance(app.screen, ProjectsScreen), "Projects")
            await _settle(pilot)
            began = time.perf_counter()
            _key(app, "2")
            await _until(drawn, "Limiters")
            await _settle(pilot)
            switches.append((time.perf_counter() - began) * 1000)
            assert shown.row_count == rows
        paging = await _page_down(pilot, shown, pages)
    await session.aclose()
    return {
        "app's first frame ms": [app_frame],
        "first frame, rows ms": [first],
        "every row built ms": [built],
        "start CPU s": [cpu],
        "switch back ms": [statistics.median(switches)],
        "PageDown ms": [statistics.median(paging)],
        "PageDown, building ms": [max(early)],
        "PageDown worst ms": [max(paging)],
    }


async def _projects_visit(
    pilot: Pilot[Any], rows: int, *, first_visit: bool
) -> tuple[float, float, float, float]:
    """ms to the first frame, to every row, to every token state; CPU s: of pressing ``1``."""
    app = pilot.app
    cpu = time.process_time()
    started = time.perf_counter()
    _key(app, "1")  # type: ignore[arg-type]

    def has_rows() -> bool:
        screen = app.screen
        return isinstance(screen, ProjectsScreen) and screen.table.row_count > 0

    def drawn() -> bool:
        screen = app.screen
        return (
            isinstance(screen, ProjectsScreen)
            and screen.table.row_count > 0
            and _read_done(app, "projects")  # type: ignore[arg-type]
        )

    if first_visit:  # the table fills when the read is shown: time its first frame
        first = (await FRAMES.first(app, has_rows, "the projects") - started) * 1000  # type: ignore[arg-type]
    else:  # the table shows the rows of the last visit at once: time the read and its update
        await _until(drawn, "the projects")
        await _next_frame(app)  # type: ignore[arg-type]
        first = (time.perf_counter() - started) * 1000
    screen = app.screen
    assert isinstance(screen, ProjectsScreen)
    await _built(pilot, screen.table, rows)
    built = (time.perf_counter() - started) * 1000
    # The screen's own record of the states (what the token cells show).
    states: dict[Any, Any] = screen._states
    # One project slot per row and one personal slot per account (one here).
    await _until(
        lambda: len(states) > rows and all(s is not CHECKING for s in states.values()),
        "the token states",
    )
    await _settle(pilot)
    tokens = (time.perf_counter() - started) * 1000
    return first, built, tokens, time.process_time() - cpu


async def _projects_run(session: Session, rows: int, pages: int) -> Metrics:
    app = BottuiApp(session, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        first = await _projects_visit(pilot, rows, first_visit=True)
        later: list[tuple[float, float, float, float]] = []
        for _ in range(2):
            _key(app, "2")
            await _until(lambda: isinstance(app.screen, LimitersScreen), "Limiters")
            await _settle(pilot)
            later.append(await _projects_visit(pilot, rows, first_visit=False))
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        # The cursor is on the current project, the last row: at the end a
        # PageDown neither moves nor scrolls, and would time nothing.
        screen.table.move_cursor(row=0, animate=False)
        await _next_frame(app)
        paging = await _page_down(pilot, screen.table, pages)
    await session.aclose()
    metrics: Metrics = {}
    for label, visits in (("first visit", [first]), ("later visit", later)):
        for index, what in enumerate(("ms", "every row ms", "tokens ms", "CPU s")):
            metrics[f"{label} {what}"] = [statistics.median(v[index] for v in visits)]
    metrics["PageDown ms"] = [statistics.median(paging)]
    metrics["PageDown worst ms"] = [max(paging)]
    return metrics


def _run(kind: str, rows: int, base_url: str, pages: int) -> Metrics:
    with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
        if kind == "limiters":
            session = _session(Path(tmp), base_url, len(DEMO_PROJECTS), rows)
            return asyncio.run(_limiters_run(session, rows, pages))
        session = _session(Path(tmp), base_url, rows, len(DEMO_RATE_LIMITERS["shop-prod"]))
        return asyncio.run(_projects_run(session, rows, pages))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--projects", type=int, nargs=2, default=(50, 5000), metavar=("SMALL", "BIG")
    )
    parser.add_argument(
        "--limiters", type=int, nargs=2, default=(4, 4000), metavar=("SMALL", "BIG")
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pages", type=int, default=5, help="PageDown keys timed per run")
    parser.add_argument("--only", choices=("projects", "limiters"), default=None)
    args = parser.parse_args(argv)
    kinds = [k for k in ("limiters", "projects") if args.only in (None, k)]
    cases = [(kind, size) for kind in kinds for size in getattr(args, kind)]
    results: dict[tuple[str, int], Metrics] = {case: {} for case in cases}
    load_before = os.getloadavg()
    with SandboxServer(demo_state(ManualClock())) as sandbox:
        for kind in kinds:  # warm up imports, caches and the page cache, untimed
            _run(kind, getattr(args, kind)[0], sandbox.base_url, 1)
        for round_ in range(args.runs):
            for case in cases:  # interleaved: small and big under the same load
                for name, values in _run(*case, sandbox.base_url, args.pages).items():
                    results[case].setdefault(name, []).extend(values)
            print(f"round {round_ + 1}/{args.runs} done", file=sys.stderr)
    load = ", ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(load_before, os.getloadavg(), strict=True))
    print(f"load average (1, 5, 15 min) before/after: {load}; {os.cpu_count()} CPUs")
    for kind in kinds:
        small, big = getattr(args, kind)
        print(f"\n{kind}: {small} vs {big} rows (medians of {args.runs} runs)")
        for name in results[(kind, small)]:
            a = statistics.median(results[(kind, small)][name])
            b = statistics.median(results[(kind, big)][name])
            ratio = f"{b / a:6.2f}x" if a else "      -"
            digits = 3 if "CPU" in name else 1
            print(f"  {name:<24} {a:10.{digits}f} {b:10.{digits}f}   ratio {ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
