"""The header line every screen shows: profile, base URL, flags, current project.

An operator must always see where a key press will land: which profile,
which service, whether it is read-only or protected, and which project.

One widget drawing one line (the where on the left, the flags at the right
end), not a row of a label and three flag widgets: every screen has one, and
each widget costs mounting and styling before the screen's first frame.
"""

from __future__ import annotations

from typing import ClassVar

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from bottui.plaintext import show_id
from bottui.tui.services import find_services
from bottui.tui.widgets.safe import safe


class ContextBar(Widget):
    """One line: where we are, the profile's flags, and a working indicator."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "context-bar--working",
        "context-bar--bulk",
        "context-bar--timed",
        "context-bar--protected",
        "context-bar--readonly",
        "context-bar--team-down",
        "context-bar--team",
        "context-bar--dry-run",
    }

    DEFAULT_CSS = """
    ContextBar {
        dock: top;
        height: 1;
        background: $panel;
        & > .context-bar--working { color: $accent; text-style: bold; }
        & > .context-bar--bulk { color: $text; text-style: bold reverse; }
        & > .context-bar--timed { color: $text; text-style: bold; }
        & > .context-bar--protected { background: $warning; color: $text; text-style: bold; }
        & > .context-bar--readonly { background: $error; color: $text; text-style: bold; }
        & > .context-bar--team-down { background: $warning; color: $text; text-style: bold; }
        & > .context-bar--team { color: $warning; text-style: bold; }
        /* Reverse: a block that stands out in every theme, NO_COLOR and 16 colours. */
        & > .context-bar--dry-run { text-style: bold reverse; }
    }
    """

    ALLOW_SELECT: ClassVar[bool] = False

    #: The left part: `` profile · base URL · account / project (name)``.
    where: reactive[str] = reactive("")
    #: What a call under way is doing ("" when idle).
    working: reactive[str] = reactive("")
    #: The bulk run in the background ("bulk 41,200/100,000 · 3 failed"; "" when none).
    bulk: reactive[str] = reactive("")
    #: Timed changes pending (#15): "2 timed changes · next in 14m"; "" when none.
    timed: reactive[str] = reactive("")
    protected: reactive[bool] = reactive(False)
    read_only: reactive[bool] = reactive(False)
    #: The team store cannot be heard (teammates' changes do not arrive).
    live_down: reactive[bool] = reactive(False)
    #: The team journal's state ("team journal: N not yet shared"; "" when all is shared).
    team: reactive[str] = reactive("")
    #: Teammates' changes are being followed (LISTEN holds): "team: live".
    live: reactive[bool] = reactive(False)
    #: Dry run is on: changes are shown, not sent (a lasting badge, not only a toast).
    dry_run: reactive[bool] = reactive(False)

    def on_mount(self) -> None:
        # A dialog's own bar (bottui.tui.dialog_header) is drawn right at once.
        self.refresh_context()

    def refresh_context(self) -> None:
        """Re-read the app's session and current project."""
        services = find_services(self)
        if services is None:
            return
        settings = services.session.settings
        profile = settings.profile_name or "(no profile)"
        base = settings.base_url or "(no base URL)"
        current = services.current
        if current is None:
            where = "no project selected"
        else:
            where = f"{show_id(current[0])} / {show_id(current[1])}"
            name = services.project_name(*current)
            if name:
                where += f" ({name})"
        self.where = f" {profile} · {base} · {where}"
        self.read_only = settings.read_only
        self.protected = settings.protected
        self.working = services.work_text
        self.bulk = services.bulk_text
        self.timed = services.timed_text
        self.live_down = services.live_down is not None
        self.team = services.team_text
        self.live = services.team_listening
        self.dry_run = services.dry_run

    def flags(self) -> list[Content]:
        """The flags shown at the right end, in order, each padded by a space."""
        live_down = self.live_down and "down" not in self.team
        shown = [
            ("context-bar--working", f"⟳ {self.working}" if self.working else ""),
            ("context-bar--bulk", self.bulk),
            ("context-bar--timed", self.timed),
            # With nothing waiting, a team store heard says so: changes arrive live.
            ("context-bar--team", self.team or ("team: live" if self.live else "")),
            ("context-bar--dry-run", "DRY RUN" if self.dry_run else ""),
            ("context-bar--protected", "PROTECTED" if self.protected else ""),
            ("context-bar--readonly", "READ-ONLY" if self.read_only else ""),
            # The push's words may say the store is down already: said once.
            ("context-bar--team-down", "TEAM STORE DOWN" if live_down else ""),
        ]
        return [
            safe(f" {text} ").stylize(self.get_visual_style(component))
            for component, text in shown
            if text
        ]

    def render(self) -> Content:
        flags = self.flags()
        room = max(self.size.width - sum(flag.cell_length for flag in flags), 0)
        # Cut with an ellipsis where it would run into the flags.
        where = safe(self.where).truncate(room, ellipsis=True, pad=True)
        return Content.assemble(where, *flags)
