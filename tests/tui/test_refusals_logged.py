"""The error log lists refusals as refused, with what was refused (#27, words and details)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import msgspec
from textual.widgets import DataTable

from bottui.api.errors import ApiError, RefusedError
from bottui.ops.undo import UndoRefused
from bottui.tui.app import BottuiApp
from bottui.tui.error_report import ErrorLog, outcome_word
from bottui.tui.screens.dialogs import ErrorLogScreen
from tests.tui.helpers import settle

MakeApp = Callable[..., BottuiApp]
AT = datetime(2026, 11, 21, 3, 0, tzinfo=UTC)


def log_rows(app: BottuiApp) -> list[dict[str, str]]:
    screen = app.screen
    assert isinstance(screen, ErrorLogScreen)
    table: DataTable[object] = screen.query_one("#error-log-table", DataTable)
    keys = [str(column.key.value) for column in table.ordered_columns]
    return [
        dict(zip(keys, (str(cell) for cell in table.get_row_at(index)), strict=True))
        for index in range(table.row_count)
    ]


def test_a_refusal_is_not_a_failure() -> None:
    log = ErrorLog()
    refused = log.add(RefusedError("Read-only profile", "nothing sent"), AT, None, "Undo", "a / p")
    failed = log.add(ApiError(500, None), AT, None, "op")
    assert refused.refused and outcome_word(refused) == "refused"
    assert (refused.operation, refused.target) == ("Undo", "a / p")
    assert not failed.refused and outcome_word(failed) == "failed"


async def test_read_only_is_logged_as_a_refusal_of_the_change(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="limiters")
    session = app.session
    session.update_settings(msgspec.structs.replace(session.settings, read_only=True))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("t")  # read-only: refused before anything is asked
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        undo, toggle = log_rows(app)
        assert (undo["outcome"], toggle["outcome"]) == ("refused", "refused")
        assert undo["operation"] == "Undo" and undo["target"] == "acme / shop-prod"
        assert toggle["operation"].startswith("Switch rate limiter ")
        assert toggle["target"] == "acme / shop-prod"


async def test_cannot_undo_is_logged_as_a_refusal(make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="limiters")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        app.services.choose_project("acme", "docs-site")  # nothing of it was changed
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.services.last_error, UndoRefused)
        await pilot.press("e")
        await settle(pilot)
        (row,) = log_rows(app)
        assert row["outcome"] == "refused"
        assert (row["operation"], row["target"]) == ("Undo", "acme / docs-site")
