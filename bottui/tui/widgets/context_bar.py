"""The header line every screen shows: profile, base URL, flags, current project.

An operator must always see where a key press will land: which profile,
which service, whether it is read-only or protected, and which project.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Static

from bottui.tui.widgets.safe import safe


class ContextBar(Horizontal):
    """One line: where we are, and a working indicator while calls are under way."""

    DEFAULT_CSS = """
    ContextBar { height: 1; dock: top; background: $panel; }
    ContextBar > #ctx-where { width: 1fr; }
    ContextBar > .flag { width: auto; padding: 0 1; }
    ContextBar > #ctx-readonly { background: $error; color: $text; text-style: bold; }
    ContextBar > #ctx-protected { background: $warning; color: $text; text-style: bold; }
    ContextBar > #ctx-working { color: $accent; text-style: bold; }
    """

    working: reactive[str] = reactive("")

    def compose(self) -> ComposeResult:
        yield Static(id="ctx-where")
        yield Static("", id="ctx-working", classes="flag")
        yield Static("PROTECTED", id="ctx-protected", classes="flag")
        yield Static("READ-ONLY", id="ctx-readonly", classes="flag")

    def refresh_context(self) -> None:
        """Re-read the app's session and current project."""
        from bottui.tui.app import BottuiApp

        app = self.app
        if not isinstance(app, BottuiApp):
            return
        settings = app.session.settings
        profile = settings.profile_name or "(no profile)"
        base = settings.base_url or "(no base URL)"
        if app.current is None:
            where = "no project selected"
        else:
            where = f"{app.current[0]} / {app.current[1]}"
            name = app.project_name(*app.current)
            if name:
                where += f" ({name})"
        self.query_one("#ctx-where", Static).update(safe(f" {profile} · {base} · {where}"))
        self.query_one("#ctx-readonly").display = settings.read_only
        self.query_one("#ctx-protected").display = settings.protected
        self.working = app.work_text

    def watch_working(self, value: str) -> None:
        label = self.query_one("#ctx-working", Static)
        label.update(safe(f"⟳ {value}") if value else "")
        label.display = bool(value)
