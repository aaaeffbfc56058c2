"""The header line every screen shows: profile, base URL, flags, current project.

An operator must always see where a key press will land: which profile,
which service, whether it is read-only or protected, and which project.

One widget drawing one line (the where on the left, the flags at the right
end), not a row of a label and three flag widgets: every screen has one, and
each widget costs mounting and styling before the screen's first frame.

When the flags leave too little room (a timed change's countdown, a bulk
run, at 80 columns), the project is the last thing to go: the base URL is
shortened first, then the project's name (:func:`fit_where`).
"""

from __future__ import annotations

from typing import ClassVar, Final

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from bottui.plaintext import show_id
from bottui.tui.services import find_services
from bottui.tui.widgets.safe import safe

#: What stands for the cut start of a base URL.
ELLIPSIS: Final = "…"


def fit_where(profile: str, base: str, project: str, name: str, room: int) -> str:
    """`` profile · base · project (name)`` in ``room`` cells, the project kept longest.

    Shortened in this order: the base URL (to its end: the host is what
    tells two services apart, its scheme least), the project's name, the
    base URL gone; only then the line is cut at its end.
    """
    named = f"{project} ({name})" if name else project

    def line(base_shown: str, project_shown: str) -> str:
        middle = f" · {base_shown}" if base_shown else ""
        return f" {profile}{middle} · {project_shown}"

    full = line(base, named)
    if len(full) <= room:
        return full
    spare = room - len(line("", named)) - len(" · ")
    if spare >= 8:  # the base URL's start cut: "…example.com:8443"
        return line(ELLIPSIS + base[-(spare - 1) :], named)
    if len(line("", named)) <= room:
        return line("", named)
    return line("", project)


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
    #: (profile, base URL, account / project, project name) of :attr:`where`.
    _parts: tuple[str, str, str, str] | None = None

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
        parts = (profile, base, where, "")
        if current is not None:
            name = services.project_name(*current) or ""
            parts = (profile, base, f"{show_id(current[0])} / {show_id(current[1])}", name)
        self._parts = parts
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

    def flags(self, *, compact: bool = False) -> list[Content]:
        """The flags shown at the right end, in order, each padded by a space.

        ``compact``: the bulk run and the countdown in their shortest words
        (``bulk 41,200/100,000``, ``timed · next in 27m``), when the full
        ones would leave no room for the project.
        """
        live_down = self.live_down and "down" not in self.team
        bulk, timed = self.bulk, self.timed
        if compact:
            bulk = bulk.split(" · ")[0]
            timed = f"timed · {timed.rsplit(' · ', 1)[-1]}" if " · " in timed else timed
        shown = [
            ("context-bar--working", f"⟳ {self.working}" if self.working else ""),
            ("context-bar--bulk", bulk),
            ("context-bar--timed", timed),
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
        parts = self._parts
        if parts is not None and room < len(f" {parts[0]} · {parts[2]}"):
            flags = self.flags(compact=True)  # the project before the flags' details
            room = max(self.size.width - sum(flag.cell_length for flag in flags), 0)
        text = fit_where(*parts, room) if parts is not None else self.where
        # Cut with an ellipsis where it would still run into the flags.
        where = safe(text).truncate(room, ellipsis=True, pad=True)
        return Content.assemble(where, *flags)
