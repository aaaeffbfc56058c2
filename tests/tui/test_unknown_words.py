"""An unknown outcome in plain words, its "may have been applied" said once (#27)."""

from __future__ import annotations

from textual.widgets import Static

from bottui.api.errors import NetworkError
from bottui.sandbox.server import SandboxServer
from bottui.tui.app import BottuiApp
from bottui.tui.widgets.result_panels import ReturnedProjectPanel
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import open_then, plain, settle_failed, until

NOTE = "may have been applied"


def panel_text(app: BottuiApp) -> str:
    panel = app.screen.query_one(ReturnedProjectPanel)
    return "\n".join(plain(widget) for widget in panel.query(Static))


async def test_a_cut_answer_is_unknown_in_words_said_once(
    flow_app: BottuiApp, sandbox: SandboxServer
) -> None:
    sandbox.faults.configure(drop_next=10, drop_mode="after")  # every attempt, applied
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await settle_failed(pilot)
        await open_then(pilot, "t", "tab", "enter")
        await until(lambda: isinstance(flow_app.services.last_error, NetworkError), pilot, 30)
        await settle_failed(pilot)
        toast = next(n for n in flow_app._notifications if n.severity == "error")
        logged = next(iter(flow_app.services.errors))
        for text in (toast.message, logged.message, panel_text(flow_app)):
            assert "<" not in text and "ContentLengthError" not in text, text
            assert "400" not in text, text  # aiohttp's own status, never the server's
            assert text.count(NOTE) == 1, text
        assert "answer cut short" in toast.message
        assert "UNKNOWN" in panel_text(flow_app)
