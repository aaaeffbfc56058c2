"""First run: nothing configured yet. Offers the two ways in.

(a) add a project and its tokens (asking first for the API's base URL when
there is none), or (b) start the demo against the built-in sandbox.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from bottui.tui.widgets.safe import join, safe


class Welcome(Vertical):
    """The welcome panel, with an "Add a project" and a "Start the demo" button."""

    DEFAULT_CSS = """
    Welcome { height: auto; border: round $primary; padding: 0 1; margin: 1 0 0 0; }
    Welcome > #welcome-title { text-style: bold; }
    Welcome > Horizontal { height: auto; margin: 1 0 0 0; }
    Welcome Button { margin-right: 2; }
    Welcome .welcome-way { margin: 1 0 0 0; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Content("Welcome to bottui"), id="welcome-title")
        yield Static("", id="welcome-where")
        yield Static(
            Content(
                "a  Add a project: its account id and project id, then store its "
                "tokens in the keyring (t project API token, p personal access token)."
            ),
            classes="welcome-way",
            id="welcome-add-text",
        )
        yield Static(
            Content(
                "d  Start the demo: every screen against a built-in sandbox, with demo "
                "data and tokens; nothing of yours is read or written."
            ),
            classes="welcome-way",
            id="welcome-demo-text",
        )
        with Horizontal():
            yield Button("Add a project", id="welcome-add", variant="primary")
            yield Button("Start the demo", id="welcome-demo")

    def configure(self, *, profile: str | None, base_url: str | None, demo: bool = False) -> None:
        """Say what is configured: nothing, or a profile with no projects yet.

        Under ``bottui demo`` the demo is not offered again.
        """
        self.query_one("#welcome-demo-text").display = not demo
        self.query_one("#welcome-demo").display = not demo
        where = self.query_one("#welcome-where", Static)
        if base_url is None:
            where.update(
                Content(
                    "Nothing is configured yet. Adding a project first asks for the API's "
                    "base URL, saved as a profile."
                )
            )
        else:
            where.update(
                join(
                    "No projects yet in profile ",
                    safe(profile or "(none)"),
                    " (",
                    safe(base_url),
                    ").",
                )
            )
