"""Regenerate the SVG screenshots of every screen: ``python screenshots/make.py``.

Runs the demo app headless at 100x30 against the sandbox served in-process
(fixed base URL, fixed clock, so the pictures only change when the UI does),
drives each screen with the keyboard as an operator would, and writes one SVG
per screen next to this file.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from textual.pilot import Pilot

from bottui.api.client import BotProtectionClient
from bottui.demo import prepare, write_demo_playbooks
from bottui.sandbox.endpoints import create_app
from bottui.sandbox.faults import Faults
from bottui.sandbox.state import ManualClock, demo_state
from bottui.tui.app import BottuiApp

HERE = Path(__file__).resolve().parent
SIZE = (100, 30)
BASE_URL = "http://127.0.0.1:8765"
NOW = datetime(2026, 11, 21, 3, 0, tzinfo=UTC)

#: Each shot: groups of keys, pressed in turn, the app settling after each group.
Steps = Sequence[Sequence[str]]

SHOTS: dict[str, Steps] = {
    "projects": [["1"]],
    "limiters": [["2", "down", "down", "down", "t"], ["tab", "enter"]],
    # Two limiters marked, a filter, the one it shows marked too: one confirmation for three.
    "limiters-multi": [["2", "space", "space", "slash", *"sea", "enter", "asterisk"], ["f"]],
    "limiter-confirm": [["2", "down", "down", "f"]],
    "grants": [["3", "i", *"vis_7Hq2kP9xLm", "tab", "tab", "enter"], ["tab", "enter"]],
    "thresholds": [["4", "enter"]],
    "journal": [["2", "o", "tab", "enter"], ["5"]],
    "help": [["2", "question_mark"]],
    "profiles": [["P", "n"], [*"staging", "tab", *"https://staging.example.com", "enter"]],
    # The switch fails (the sandbox answers 500 once): its row is marked, e lists it.
    "error-log": [["2", "down", "t"], ["tab", "enter"], ["escape", "e"]],
    "dry-run": [["D", "2", "t"], ["tab", "enter"]],
    "journal-undo": [["2", "o", "tab", "enter"], ["5", "u"]],
    # Two timed changes (the duration is the field after the reason, the form's last:
    # Enter there sends it): the header counts down.
    "timed-header": [
        ["2", "t", "tab", "tab", "tab", *"14m", "enter"],
        ["down", "down", "down", "t", "tab", "tab", "tab", *"2h", "enter"],
    ],
    "timed": [
        ["2", "t", "tab", "tab", "tab", *"14m", "enter"],
        ["down", "down", "down", "t", "tab", "tab", "tab", *"2h", "enter"],
        ["T"],
    ],
    # The demo's playbooks (screen 6): the plan of the first, then its one confirmation.
    "playbooks": [["6"]],
    "playbook-confirm": [["6"], ["r"]],
}

#: Faults the sandbox is set up with before a shot's keys (``Faults.configure``).
FAULTS: dict[str, dict[str, Any]] = {"error-log": {"fail_next": 1, "error_status": 500}}


async def _settle(pilot: Pilot[Any]) -> None:
    """Let every worker finish and the screen catch up.

    Same as ``tests.tui.helpers.settle``, which ``python screenshots/make.py``
    cannot import: only ``bottui`` is installed, and the repo root is not on sys.path.
    """
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


async def shoot(name: str, steps: Steps, root: Path) -> Path:
    state = demo_state(ManualClock())
    faults = Faults()
    faults.configure(**FAULTS.get(name, {}))
    asgi = create_app(state, faults)

    def client(base_url: str) -> BotProtectionClient:
        return BotProtectionClient(base_url, transport=httpx.ASGITransport(app=asgi))

    session = prepare(root / name, BASE_URL, client_factory=client, clock=lambda: NOW)
    write_demo_playbooks(session.locations)  # as bottui demo does
    app = BottuiApp(session, demo=True)
    # The keys are scripted groups, each after the app settled: not keys typed ahead.
    app.typeahead.window = 0.0
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        for keys in steps:
            await pilot.press(*keys)
            await _settle(pilot)
            runner = app.services.timed_runner
            if runner is not None:  # the header's countdown, read now rather than in 5 s
                await runner.tick(execute=False)
        path = HERE / f"{name}.svg"
        path.write_text(app.export_screenshot(title=f"bottui: {name}"), encoding="utf-8")
    await session.aclose()
    return path


class _Gate(httpx.AsyncBaseTransport):
    """The in-process sandbox; requests after the first ``let_through`` wait at a gate.

    So a bulk run is caught half-way for its picture, then let go.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport, let_through: int) -> None:
        self.inner, self.let_through, self.arrived = inner, let_through, 0
        self.gate = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.arrived += 1
        if self.arrived > self.let_through:
            await self.gate.wait()
        return await self.inner.handle_async_request(request)


async def shoot_bulk_background(root: Path) -> Path:
    """A bulk revocation half-way, hidden (Esc): its progress in the header, screen 2 in use."""
    from textual import events

    asgi = create_app(demo_state(ManualClock()), Faults())
    gate = _Gate(httpx.ASGITransport(app=asgi), let_through=3)

    def client(base_url: str) -> BotProtectionClient:
        return BotProtectionClient(base_url, transport=gate)

    session = prepare(root / "bulk", BASE_URL, client_factory=client, clock=lambda: NOW)
    app = BottuiApp(session, demo=True)
    app.typeahead.window = 0.0  # scripted keys, as above
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await pilot.press("3", "b")
        await _settle(pilot)
        app.post_message(events.Paste("\n".join(f"vis_incident_{n:02d}" for n in range(8))))
        await _settle(pilot)
        await pilot.click("#bulk-start")
        await pilot.pause()
        await pilot.press("tab", "enter")
        while gate.arrived <= gate.let_through or "bulk 3/8" not in _header(app):
            await pilot.pause(0.02)
        await pilot.press("escape", "2")
        await pilot.pause(0.2)
        path = HERE / "bulk-background.svg"
        path.write_text(app.export_screenshot(title="bottui: bulk-background"), encoding="utf-8")
        gate.gate.set()
        await _settle(pilot)
    await session.aclose()
    return path


def _header(app: BottuiApp) -> str:
    """The flags of the context bar under any dialog (a background run's progress is one)."""
    from bottui.tui.widgets.screen_bars import ContextBar

    bar = next(b for s in reversed(app.screen_stack) for b in s.query(ContextBar))
    return "".join(flag.plain for flag in bar.flags())


async def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bottui-shots-") as tmp:
        for name, steps in SHOTS.items():
            print(await shoot(name, steps, Path(tmp)))
        print(await shoot_bulk_background(Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
