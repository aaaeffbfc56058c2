"""The Textual app: composes the five screens and creates their services.

Thin on purpose: the five modes, the key bindings, start-up, and the
command palette. What screens and dialogs use (the session, the current
project, the working indicator, error reports, confirmation and dry run)
is :class:`~bottui.tui.services.TuiServices`, created here; the app keeps
only delivering messages to every screen and redrawing every context bar,
which need the screens themselves. Each screen does its own work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, ScreenStackError, SystemCommand
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen

from bottui.ops.session import Session
from bottui.plaintext import clean
from bottui.tui import gc_pause
from bottui.tui.error_view import EXPECTED_ERRORS
from bottui.tui.services import TuiServices
from bottui.tui.stylesheet_cache import complete_stylesheet, start_stylesheet

if TYPE_CHECKING:
    from bottui.tui.team_live import TeamLive

# Dialogs are imported when first opened: none is on the first frame, and
# with their Input and TextArea widgets they cost start-up time.

MODE_KEYS: dict[str, str] = {
    "1": "projects",
    "2": "limiters",
    "3": "grants",
    "4": "thresholds",
    "5": "journal",
}


def _screen(name: str) -> Callable[[], Screen[Any]]:
    # Imported when first shown: the first frame needs only the first screen.
    def make() -> Screen[Any]:
        if name == "projects":
            from bottui.tui.screens.projects import ProjectsScreen

            return ProjectsScreen()
        if name == "limiters":
            from bottui.tui.screens.limiters import LimitersScreen

            return LimitersScreen()
        if name == "grants":
            from bottui.tui.screens.grants import GrantsScreen

            return GrantsScreen()
        if name == "thresholds":
            from bottui.tui.screens.thresholds import ThresholdsScreen

            return ThresholdsScreen()
        from bottui.tui.screens.journal import JournalScreen

        return JournalScreen()

    return make


class BottuiApp(App[int]):
    """bottui's terminal UI.

    Args:
        session: Settings, stores and client for this run.
        current: The project to start on, ``(account, project)``.
        remember_theme: Awaited (in a worker) with the theme name when the user
            changes it: :func:`bottui.ops.profiles.remember_theme`, off the loop.
        keymap: Binding id -> keys, from the config (remapping).
        demo: True under ``bottui demo`` (shown in the title).
        start_mode: The screen to start on (default: rate limiters when a
            project is current, else projects).
        when_up: Called once the first frame is on screen.
    """

    TITLE = "bottui"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "show('projects')", "Projects", id="app.projects"),
        Binding("2", "show('limiters')", "Limiters", id="app.limiters"),
        Binding("3", "show('grants')", "Grants", id="app.grants"),
        Binding("4", "show('thresholds')", "Thresholds", id="app.thresholds"),
        Binding("5", "show('journal')", "Journal", id="app.journal"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("e", "error_details", "Error details", show=False, id="app.error"),
        Binding("D", "toggle_dry_run", "Dry run", show=False, id="app.dry_run"),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, id="app.quit2", priority=True),
        # Tab moves focus before the next key is routed: keys typed ahead (a
        # burst over a slow SSH link, "acme<Tab>shop-prod") are routed to the
        # focused widget as they arrive, so a Tab left to the field's own
        # bubbling sent the rest to the field it was meant to leave.
        Binding("tab", "focus_next", show=False, priority=True, id="app.focus_next"),
        Binding("shift+tab", "focus_previous", show=False, priority=True, id="app.focus_prev"),
    ]
    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = {
        name: _screen(name) for name in MODE_KEYS.values()
    }

    def __init__(
        self,
        session: Session,
        *,
        current: tuple[str, str] | None = None,
        remember_theme: Callable[[str], Awaitable[None]] | None = None,
        keymap: dict[str, str] | None = None,
        theme: str | None = None,
        demo: bool = False,
        start_mode: str | None = None,
        when_up: Callable[[], object] | None = None,
    ) -> None:
        # With no project given nor in the profile, the inventory's first
        # becomes current once read (a worker, after mount): never a store
        # call here, which may run on the event loop.
        settings = session.settings
        if current is None and settings.account and settings.project:
            current = (settings.account, settings.project)
        self._find_first = current is None
        self._start_mode = start_mode
        # The first screen is the default mode itself: switching modes from
        # on_mount would first show a blank screen and parse the CSS twice more.
        # Textual reads DEFAULT_MODE through self in App.__init__, so a
        # per-instance value is honoured (mypy objects to the ClassVar).
        self.DEFAULT_MODE = start_mode or ("limiters" if current else "projects")  # type: ignore[misc]
        super().__init__()
        # Parsed CSS survives Textual's re-parses, and the other screens'
        # sections wait for the first frame (on a tested Textual; else its
        # plain stylesheet: see stylesheet_cache). The variables are those
        # App.__init__ just computed for its own stylesheet.
        self.stylesheet = start_stylesheet(self.theme_variables, self.DEFAULT_MODE)
        #: What screens and dialogs use of the app (see :mod:`bottui.tui.services`).
        self.services = TuiServices(
            self,
            session,
            current=current,
            demo=demo,
            broadcast=self._broadcast,
            show_work=self._show_work,
        )
        self._remember_theme = remember_theme
        # Not ``_keymap``: that name is Textual's own (App.set_keymap).
        self._config_keymap = keymap or {}
        self._initial_theme = theme
        self._when_up = when_up
        self._started = False
        self._team_live: TeamLive | None = None
        if demo:
            self.sub_title = "demo (sandbox)"

    # -- start-up ----------------------------------------------------------------

    def on_mount(self) -> None:
        if self._config_keymap:
            self.set_keymap(self._config_keymap)
        if self._initial_theme and self._initial_theme in self.available_themes:
            self.theme = self._initial_theme
        self._started = True
        self.run_worker(
            self._start_reads(), name="start-up reads", group="start-up", exit_on_error=False
        )

    async def _start_reads(self) -> None:
        """Project names for every bar, and the project to start on when none was given."""
        services = self.services
        await services.start_sharing()  # before anything is changed: from here on, shared
        await services.load_names()
        if self._find_first and services.current is None:
            first = await _first_project(self.session)
            if first is not None and services.current is None:
                services.choose_project(*first)
                if self._start_mode is None and self.current_mode == "projects":
                    self.switch_mode("limiters")
        services.inventory_changed()

    def on_ready(self) -> None:
        # Textual posts Ready while the first frame is still to be written
        # (start-up runs in a batch update, so the screen paints later).
        # Work done here would hold that frame back, so it waits for it.
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        # The whole stylesheet takes the place of the first frame's part of
        # it, before a key press can show another screen.
        complete_stylesheet(self.stylesheet)
        self.refresh_css(animate=False)
        # Start-up's objects are frozen and the collector, paused by the CLI
        # for start-up, runs again.
        gc_pause.resume()
        # Teammates' changes, live (nothing without a team store).
        from bottui.tui.team_live import TeamLive

        self._team_live = TeamLive(self.services)
        self._team_live.start()
        if self._when_up is None:
            return
        try:  # work that must not slow the first frame (the demo's sandbox process)
            self._when_up()
        except Exception as exc:  # e.g. the demo's sandbox process could not be started
            self.services.report(exc)

    def on_unmount(self) -> None:
        if self._team_live is not None:
            self._team_live.stop()

    @property
    def session(self) -> Session:
        """Settings, stores and client for this run."""
        return self.services.session

    @property
    def current(self) -> tuple[str, str] | None:
        """The current project, ``(account, project)``, or None."""
        return self.services.current

    def clear_selection(self) -> None:
        """Clear the text selection of the active screen, if there is one yet.

        On Python 3.12+ Textual runs tasks eagerly (``eager_task_factory``),
        so the first screen composes inside ``App._init_mode``, before it is
        on the mode's stack; an ``Input`` composed there runs its selection
        watcher, which calls this, and ``self.screen`` raises
        ``ScreenStackError``. Textual catches ``NoScreen`` here but not that
        (it catches both elsewhere); with no screen there is nothing to clear.
        Without this, any screen with an ``Input`` cannot be the first one.
        """
        with contextlib.suppress(ScreenStackError):
            super().clear_selection()

    def watch_theme(self, theme: str) -> None:
        if self._remember_theme is not None and self._started:
            # In a worker: the config is written on the store executor, never on
            # the loop; its one write lane keeps quick changes in order.
            self.run_worker(
                self._save_theme(self._remember_theme, theme),
                name="remember theme",
                group="theme",
                exit_on_error=False,
            )

    async def _save_theme(self, remember: Callable[[str], Awaitable[None]], theme: str) -> None:
        try:
            await remember(theme)
        except Exception as exc:  # a config that cannot be written is not fatal
            self.notify(clean(str(exc), keep_newlines=True), title="Theme not saved", markup=False)

    # -- navigation ----------------------------------------------------------------

    def action_show(self, mode: str) -> None:
        """Switch to one of the five main screens."""
        if self.current_mode != mode:
            self.switch_mode(mode)

    def _broadcast(self, make: Callable[[], Message]) -> None:
        # Each mode's base screen gets its own message; hidden screens
        # refresh too, so switching to them shows current data at once.
        for stack in self._mode_stacks():
            if stack:
                stack[0].post_message(make())

    def _mode_stacks(self) -> list[list[Screen[Any]]]:
        # Through the public get_screen_stack (a copy of each): a mode not
        # shown yet has no stack.
        stacks = []
        for mode in MODE_KEYS.values():
            try:
                stacks.append(self.get_screen_stack(mode))
            except KeyError:
                continue
        return stacks

    # -- working indicator ---------------------------------------------------------

    @property
    def work_text(self) -> str:
        """What the working indicator says: the latest call under way, "" when none."""
        return self.services.work_text

    def _show_work(self) -> None:
        from bottui.tui.widgets.context_bar import ContextBar

        # Every screen's bar, not only the current one's: a screen left while a
        # call was under way, or lying under a dialog, must not keep old words.
        live_down = self.services.live_down is not None
        text, team = self.work_text, self.services.team_text
        for stack in self._mode_stacks():
            for screen in stack:
                for bar in screen.query(ContextBar):
                    bar.working = text
                    bar.live_down = live_down
                    bar.team = team
                    bar.live = self.services.team_listening

    # -- errors, dry run -------------------------------------------------------------

    def action_error_details(self) -> None:
        """Open the whole last error in a modal."""
        self.services.show_last_error()

    def action_toggle_dry_run(self) -> None:
        """Dry run on/off: changes show their request and curl instead of sending."""
        self.services.toggle_dry_run()

    # -- help and palette ----------------------------------------------------------

    def action_help(self) -> None:
        """Every key of the current screen."""
        from bottui.tui.screens.base import BottuiScreen

        screen = self.screen
        if isinstance(screen, BottuiScreen):
            rows = screen.key_help_rows()
            title = screen.SCREEN_TITLE
        else:
            rows, title = [], "dialog"
        rows += [("ctrl+p", "Command palette"), ("escape", "Close dialog / leave field")]
        from bottui.tui.screens.dialogs import HelpDialog

        self.push_screen(HelpDialog(title, rows))

    def action_focus_next(self) -> None:
        """Tab: the next widget, but never Cancel from a dialog's last field with typing to lose."""
        from bottui.tui.tab_order import tab_target

        target = tab_target(self.screen)
        if target is None:
            self.screen.focus_next()
        else:
            target.focus()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Projects", "Show the projects screen (1)", lambda: self.action_show("projects")
        )
        yield SystemCommand(
            "Switch project...", "Choose the current project", lambda: self.action_show("projects")
        )
        yield SystemCommand(
            "Rate limiters", "Show the rate limiters (2)", lambda: self.action_show("limiters")
        )
        yield SystemCommand(
            "Disable rate limiter...",
            "Switch a rate limiter off",
            lambda: self._palette("limiters", "disable"),
        )
        yield SystemCommand(
            "Enable rate limiter...",
            "Switch a rate limiter on",
            lambda: self._palette("limiters", "enable"),
        )
        yield SystemCommand(
            "Revoke grant...",
            "Withdraw a challenge grant (3)",
            lambda: self._palette("grants", "focus_form"),
        )
        yield SystemCommand(
            "Bulk revoke...",
            "Withdraw many grants from pasted ids or a file (3, b)",
            lambda: self._palette("grants", "bulk"),
        )
        yield SystemCommand(
            "Thresholds", "Edit dimension thresholds (4)", lambda: self.action_show("thresholds")
        )
        yield SystemCommand(
            "Journal", "Show the audit journal (5)", lambda: self.action_show("journal")
        )
        yield SystemCommand(
            "Undo last change...",
            "Undo the last limiter or threshold change",
            lambda: self._palette("journal", "undo"),
        )
        yield SystemCommand("Show last error", "The whole error object", self.action_error_details)
        yield SystemCommand(
            "Toggle dry run", "Show requests instead of sending (D)", self.action_toggle_dry_run
        )

    def _palette(self, mode: str, action: str) -> None:
        self.action_show(mode)
        self.call_after_refresh(lambda: self.screen.run_action(action))


async def _first_project(session: Session) -> tuple[str, str] | None:
    """The inventory's first project, if it can be read."""
    try:
        page = await session.inventory_store.projects(limit=1)
    except EXPECTED_ERRORS:  # a damaged inventory: the Projects screen says so
        return None
    return (page.items[0].account, page.items[0].project) if page.items else None
