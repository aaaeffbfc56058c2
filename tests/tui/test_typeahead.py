"""Keys typed ahead go where the operator meant, across a Tab.

Over a slow SSH link a burst arrives at once: "acme<Tab>shop-prod" in one
read. Textual routes each key to the widget focused when the key is taken
from the app's queue, before the field has handled the Tab in front of it;
left to the field's own bindings, the Tab moved focus only after the rest
had been routed to the field it was meant to leave ("acmeshop-prod" in the
account id, nothing in the project id). The app's Tab binding takes
priority, so focus moves before the next key is routed.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.widgets import Input

from bottui.tui.app import BottuiApp
from tests.tui.helpers import settle

CHARS = {"tab": "\t", "shift+tab": None}


def burst(app: BottuiApp, keys: list[str]) -> None:
    """Post every key at once, as the terminal driver does with one read."""
    for key in keys:
        app.post_message(events.Key(key, CHARS.get(key, key)))


async def test_a_burst_across_tab_fills_each_field(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app(start_mode="projects")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        # The form offers the current account and opens on the project id.
        assert app.focused is app.screen.query_one("#project", Input)
        # Focus selects a field's text, so typing into one it returns to replaces it.
        burst(app, [*"shop", "tab", *"Shop", "shift+tab", "shift+tab", *"acme2"])
        await settle(pilot)
        fields = {
            name: app.screen.query_one(f"#{name}", Input).value
            for name in ("account", "project", "name")
        }
        assert fields == {"account": "acme2", "project": "shop", "name": "Shop"}
