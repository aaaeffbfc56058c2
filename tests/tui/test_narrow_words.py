"""At 80 columns the words that matter stay in view (#27, words and details)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from bottui.ops import mutations, planning
from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.ui_rules import ContextBar, fit_where
from bottui.tui.widgets.result_panels import ReturnedProjectPanel
from tests.fixtures import moving_clock
from tests.fixtures.moving_clock import MovingClock
from tests.tui.helpers import open_then, settle, settle_failed

MakeApp = Callable[..., BottuiApp]
SMALL = (80, 24)
# The fixtures of tests/timed: a demo session on the sandbox with a clock the test moves.
clock = moving_clock.clock
session = moving_clock.session


def test_fit_where_keeps_the_project_longest() -> None:
    args = ("prod", "https://bot-protection.eu.example.com", "acme / shop-prod", "Shop")
    assert fit_where(*args, 200) == (
        " prod · https://bot-protection.eu.example.com · acme / shop-prod (Shop)"
    )
    narrow = fit_where(*args, 50)
    assert narrow.endswith("· acme / shop-prod (Shop)") and "…" in narrow
    assert fit_where(*args, 31) == " prod · acme / shop-prod (Shop)"
    assert fit_where(*args, 26) == " prod · acme / shop-prod"


async def test_the_header_keeps_the_project_beside_a_countdown_and_a_bulk_run(
    make_snap_app: MakeApp,
) -> None:
    app = make_snap_app(start_mode="limiters")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        services = app.services
        # What the executor and a background bulk run put in the header.
        services.timed_text = "1 timed change · next in 27m"
        bar = app.screen.query_one(ContextBar)
        bar.refresh_context()
        bar.bulk = "bulk 41,200/100,000 · 3 failed · 1 unknown"
        # Drawn at once: the executor's next tick would put its own words back.
        line = bar.render().plain
        assert "acme / shop-prod" in line, line
        assert "next in 27m" in line and "41,200/100,000" in line
        assert len(line) <= SMALL[0]


def screen_lines(app: BottuiApp) -> list[str]:
    """The screen's text, one string per line, as a person sees it (cut at the edge)."""
    svg = app.export_screenshot()
    lines: dict[float, list[str]] = {}
    for found in re.finditer(r'<text[^>]*?y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        words = html.unescape(re.sub("<[^>]+>", "", found.group(2))).replace("\xa0", " ")
        lines.setdefault(float(found.group(1)), []).append(words)
    return ["".join(lines[y]) for y in sorted(lines)]


LONG_REASON = (
    "INC-3107 credential stuffing on /login from a residential proxy pool, "
    "rate-limited until the WAF rule ships"
)


async def journal_with_a_long_reason(app: BottuiApp) -> None:
    session = app.session
    plan = await planning.plan_limiter(session, DEMO_ACCOUNT, "shop-prod", "rl-login", False)
    await mutations.apply(session, plan.with_reason(LONG_REASON), confirmed=True)


async def test_the_journal_why_grows_with_the_screen_and_stays_at_80(
    make_snap_app: MakeApp,
) -> None:
    wide = make_snap_app(start_mode="journal")
    await journal_with_a_long_reason(wide)
    async with wide.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        row = next(line for line in screen_lines(wide) if "rl-login" in line)
        assert LONG_REASON in row, row  # whole: not 24 characters at 200 columns
    narrow = make_snap_app(start_mode="journal")
    async with narrow.run_test(size=SMALL) as pilot:
        await settle(pilot)
        row = next(line for line in screen_lines(narrow) if "rl-login" in line)
        assert "INC-3107" in row, row  # Why in view before HTTP and Took


async def test_a_failed_limiter_says_so_beside_its_state_at_80(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="limiters")
    app.backend.faults.configure(fail_next=9, error_status=500)  # type: ignore[attr-defined]
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await open_then(pilot, "t", "tab", "enter")
        await settle_failed(pilot)
        app.screen.query_one(ReturnedProjectPanel).hide()
        await pilot.pause()
        rows = [line for line in screen_lines(app) if "try FAILED (e)" in line]
        assert len(rows) == 1, screen_lines(app)


async def test_the_timed_screen_shows_state_and_executor_at_80(
    session: Session, sandbox: SandboxServer, clock: MovingClock
) -> None:
    from tests.tui.test_timed import open_timed, timed_limiter

    app = BottuiApp(session, demo=True, start_mode="limiters")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await timed_limiter(pilot, "rl-login", "30m")
        await open_timed(pilot)
        lines = screen_lines(app)
        heading = next(line for line in lines if " ID " in line)
        assert "State" in heading and "Executor" in heading, heading
        row = next(line for line in lines if "scheduled" in line)
        assert "in 30m" in row, row
