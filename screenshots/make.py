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
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bottui.api.client import BotProtectionClient
from bottui.demo import prepare
from bottui.sandbox.app import create_app
from bottui.sandbox.clock import ManualClock
from bottui.sandbox.demo import demo_state
from bottui.sandbox.faults import Faults
from bottui.tui.app import BottuiApp

HERE = Path(__file__).resolve().parent
SIZE = (100, 30)
BASE_URL = "http://127.0.0.1:8765"
NOW = datetime(2026, 11, 21, 3, 0, tzinfo=UTC)

Steps = Callable[[object], Awaitable[None]]


async def _settle(pilot: object) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]


async def projects(pilot: object) -> None:
    await pilot.press("1")  # type: ignore[attr-defined]
    await _settle(pilot)


async def limiters(pilot: object) -> None:
    await pilot.press("2", "down", "down", "down", "space")  # type: ignore[attr-defined]
    await _settle(pilot)
    await pilot.press("tab", "enter")  # type: ignore[attr-defined]
    await _settle(pilot)


async def limiter_confirm(pilot: object) -> None:
    await pilot.press("2", "f")  # type: ignore[attr-defined]
    await _settle(pilot)


async def grants(pilot: object) -> None:
    await pilot.press("3", "i", *"vis_7Hq2kP9xLm", "tab", "tab", "enter")  # type: ignore[attr-defined]
    await _settle(pilot)
    await pilot.press("tab", "enter")  # type: ignore[attr-defined]
    await _settle(pilot)


async def thresholds(pilot: object) -> None:
    await pilot.press("4", "enter")  # type: ignore[attr-defined]
    await _settle(pilot)


async def journal(pilot: object) -> None:
    await pilot.press("2", "f", "tab", "enter")  # type: ignore[attr-defined]
    await _settle(pilot)
    await pilot.press("5")  # type: ignore[attr-defined]
    await _settle(pilot)


async def help_screen(pilot: object) -> None:
    await pilot.press("2", "question_mark")  # type: ignore[attr-defined]
    await _settle(pilot)


SHOTS: dict[str, Steps] = {
    "projects": projects,
    "limiters": limiters,
    "limiter-confirm": limiter_confirm,
    "grants": grants,
    "thresholds": thresholds,
    "journal": journal,
    "help": help_screen,
}


async def shoot(name: str, steps: Steps, root: Path) -> Path:
    state = demo_state(ManualClock())
    asgi = create_app(state, Faults())

    def client(base_url: str) -> BotProtectionClient:
        return BotProtectionClient(base_url, transport=httpx.ASGITransport(app=asgi))

    session = prepare(root / name, BASE_URL, client_factory=client, clock=lambda: NOW)
    app = BottuiApp(session, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await steps(pilot)
        path = HERE / f"{name}.svg"
        path.write_text(app.export_screenshot(title=f"bottui: {name}"), encoding="utf-8")
    await session.aclose()
    return path


async def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bottui-shots-") as tmp:
        for name, steps in SHOTS.items():
            print(await shoot(name, steps, Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
