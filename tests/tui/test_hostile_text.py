"""The TUI against hostile server text and old journal rows (#10.2, #10.5, #10.6).

An echoed token never reaches a screen (toast, error modal, journal details);
look-alike ids show their invisible characters; journal rows holding lone
surrogates or a token, written before the fixes, are shown without a crash
and without the token.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets._toast import Toast  # the toast widget (no public name)

from bottui.sandbox.demo_data import DEMO_ACCOUNT, DEMO_PROJECT_TOKENS
from bottui.sandbox.faults import token_forms
from bottui.store.journal.journal_records import Operation
from bottui.tui.app import BottuiApp
from tests.fixtures.stores import inventory_of, journal_of
from tests.tui.helpers import open_then, until
from tests.tui.test_hostile import screen_lines

PROJ = "shop-prod"
LOOKALIKE = "rl-\u200bapi"


def _screen(app: BottuiApp) -> str:
    return "\n".join(screen_lines(app))


async def _show(pilot: Pilot[Any], key: str) -> None:
    await pilot.press(key)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_an_echoed_token_never_reaches_a_screen(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    backend = app.backend  # type: ignore[attr-defined]
    backend.faults.configure(hostile="token_echo", hostile_status=400)
    forms = token_forms(DEMO_PROJECT_TOKENS[PROJ])
    seen: list[str] = []
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await _show(pilot, "2")
        await pilot.press("o")  # enable the selected limiter (rl-api is OFF)
        await pilot.pause()
        await pilot.press("tab", "enter")
        await app.workers.wait_for_complete()
        await until(lambda: bool(app.screen.query(Toast)), pilot)  # the error's toast
        await pilot.pause()
        seen.append(_screen(app))
        await open_then(pilot, "e", "enter")  # the error log, then the error modal
        await pilot.pause()
        seen.append(_screen(app))
        await pilot.press("escape", "escape")
        await _show(pilot, "5")
        await pilot.press("enter")  # the entry's details, with the error object
        await pilot.pause()
        seen.append(_screen(app))
    assert any("***" in screen for screen in seen)  # the echo was there, masked
    assert not [form for form in forms for screen in seen if form in screen]


async def test_lookalike_ids_are_told_apart(make_snap_app: Callable[..., BottuiApp]) -> None:
    app = make_snap_app()
    inventory = inventory_of(app.session)
    assert inventory is not None
    inventory.add_limiter(DEMO_ACCOUNT, PROJ, LOOKALIKE, "Look-alike")
    inventory.add_project(DEMO_ACCOUNT, "shop-\ufeffprod", "Look-alike project")
    inventory.add_dimension(DEMO_ACCOUNT, PROJ, "bot\u2060score", "Look-alike dimension")
    async with app.run_test(size=(160, 40)) as pilot:
        await _show(pilot, "1")
        projects = _screen(app)
        await _show(pilot, "2")
        limiters = _screen(app)
        await _show(pilot, "4")
        thresholds = _screen(app)
    assert "shop-\\ufeffprod" in projects
    assert "rl-\\u200bapi" in limiters and "rl-api" in limiters
    assert "bot\\u2060score" in thresholds
    for screen in (projects, limiters, thresholds):
        assert not any(ch in screen for ch in "\u200b\u2060\ufeff")


@pytest.mark.parametrize("case", ["surrogates", "token"])
async def test_old_journal_rows_are_shown_safely(
    make_snap_app: Callable[..., BottuiApp], monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    token = "pat_old_" + secrets.token_hex(12)  # known to nothing but the environment
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", token)
    if case == "surrogates":
        target: dict[str, object] = {"visitorId": "v\ud800"}
        error: dict[str, object] = {"message": "bad \ud800", "context": {"\udfffk": "\udc00"}}
    else:
        target = {"visitorId": "v1"}
        error = {"message": f"invalid key {token}", "context": [token]}
    app = make_snap_app()
    with journal_of(app.session) as journal:
        entry_id = journal.start(
            profile=app.session.settings.inventory_scope,
            base_url=app.session.base_url,
            operation=Operation.REVOKE_GRANT,
            account=DEMO_ACCOUNT,
            project=PROJ,
            target=target,
            request_body={"subject": target},
        )
        journal.finish(
            entry_id, outcome="api-error", status=400, result=None, error=error, duration_ms=1.0
        )
    async with app.run_test(size=(160, 40)) as pilot:
        await _show(pilot, "5")
        table = _screen(app)
        await pilot.press("enter")
        await pilot.pause()
        details = _screen(app)
        assert app.is_running
    assert "api-error" in table
    if case == "surrogates":
        assert "v\ufffd" in table and "bad \ufffd" in details
    else:
        assert "invalid key ***" in details
        assert token not in table + details
