"""The Projects screen's framed notices: the first-run welcome and the unusable keyring.

:class:`Welcome`, on a first run with nothing configured, offers the two ways
in: (a) add a project and its tokens (asking first for the API's base URL
when there is none), or (b) start the demo against the built-in sandbox.

:class:`KeyringNotice` is shown while the keyring cannot be used. It says
what failed (the :class:`~bottui.store.errors.KeyringUnavailable` title and
reason) and what to do about it: its ``details`` carry the remedies
(environment variables, a Secret Service session, keyring's configuration).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from bottui.store.errors import KeyringUnavailable
from bottui.tui.error_report import error_line
from bottui.tui.widgets.untrusted_text import join, safe


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


class KeyringNotice(Vertical):
    """A framed notice; hidden while the keyring works. Never takes the focus."""

    DEFAULT_CSS = """
    KeyringNotice {
        height: auto; border: round $error; padding: 0 1;
        border-title-color: $error; border-title-style: bold;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="keyring-notice-text")

    def on_mount(self) -> None:
        self.border_title = "Keyring unavailable"
        self.display = False

    def show(self, error: KeyringUnavailable | None) -> None:
        """Show ``error`` and its remedies; ``None`` hides the notice."""
        self.display = error is not None
        if error is None:
            return
        text = error_line("", error, sep=" (k checks again).\n", keep_newlines=True)
        self.query_one("#keyring-notice-text", Static).update(text)
