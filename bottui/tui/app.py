"""The Textual app: composes the six screens and creates their services.

Thin on purpose: the six modes, the key bindings, start-up, and the
command palette. What screens and dialogs use (the session, the current
project, the working indicator, error reports, confirmation and dry run)
is :class:`~bottui.tui.services.TuiServices`, created here; the app keeps
only delivering messages to every screen and redrawing every context bar,
which need the screens themselves. Each screen does its own work. Quitting
and switching profile ask about work under way first
(:mod:`bottui.tui.quit_or_switch`). A failure of any of the app's workers
is reported by one handler (:func:`~bottui.tui.services.worker_failed`).

The config files' problems (unknown keys, wrong values, playbooks) and the
keymap's (misspelt ids, keys bound twice) are said after the first frame, in
one lasting toast each (:func:`say_config_problems`, :func:`keymap_toast`):
the same checkers as ``bottui config check`` and the CLI's start warning
(:data:`bottui.ops.config_checks.CHECKERS`), run on the store executor, so
reading and scanning the files never holds that frame back nor blocks the
event loop.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Final

from textual import events, work
from textual.app import App, ScreenStackError, SystemCommand
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen

from bottui.api.errors import RefusedError
from bottui.ops.config_checks import CheckedFiles, check_keymap, run_checkers
from bottui.ops.inventory_reads import first_project
from bottui.ops.session import Session
from bottui.store.executor import shared_executor
from bottui.tui import lazy, perf
from bottui.tui.key_registry import ActionProvider, help_sections, known_bindings, scope_of
from bottui.tui.perf.stylesheet import complete_stylesheet, start_stylesheet
from bottui.tui.screens.base import BottuiScreen
from bottui.tui.services import TuiServices, worker_failed
from bottui.tui.ui_rules import (
    MODE_KEYS,
    ContextBar,
    TypeaheadGuard,
    keep_header,
    release_hidden_focus,
    tab_target,
)

if TYPE_CHECKING:
    from textual.command import Provider

    from bottui.tui.live_changes import LocalLive, TeamLive
    from bottui.tui.screens.dialogs import HelpDialog
    from bottui.tui.screens.profile_switcher import ProfileSwitcher
    from bottui.tui.screens.timed_screen import TimedScreen

# Dialogs and the other screens are loaded (bottui.tui.lazy) when first opened: none is
# on the first frame, and with their Input and TextArea widgets they cost start-up time.


def _screen(name: str) -> Callable[[], Screen[Any]]:
    # Loaded when first shown: the first frame needs only the first screen.
    return lambda: lazy.load(f"{name.capitalize()}Screen")()


def need_terminal(what: str) -> None:
    """Refuse (exit 2) to start the app without a terminal on stdin and stdout.

    Without one the app can neither draw nor read a key, and its input thread
    reads the end of the file again and again: ``bottui < /dev/null`` (a cron
    job, a pipe) spun a core for as long as nobody killed it.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise RefusedError(
            "Not a terminal",
            f"{what} needs a terminal on stdin and stdout; in a script, use a command "
            "(`bottui --help` lists them)",
        )


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
    #: Textual's system commands and every action of bottui (bottui.tui.key_registry).
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = App.COMMANDS | {
        ActionProvider
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "show('projects')", "Projects", id="app.projects"),
        Binding("2", "show('limiters')", "Limiters", id="app.limiters"),
        Binding("3", "show('grants')", "Grants", id="app.grants"),
        Binding("4", "show('thresholds')", "Thresholds", id="app.thresholds"),
        Binding("5", "show('journal')", "Journal", id="app.journal"),
        # On the key bar only within "1-6 Screens": alone it would not fit at 80 columns.
        Binding("6", "show('playbooks')", "Playbooks", show=False, id="app.playbooks"),
        Binding("question_mark", "help", "Help", id="app.help"),
        # In a text field ? is typed, and a dialog stops the app's keys (Textual's
        # modal screens): F1, a priority key that types nothing, opens help anywhere.
        Binding("f1", "help", "Help", show=False, priority=True, id="app.help_f1"),
        # The id stays "app.error" (it named "the last error" before): keymaps keep working.
        Binding("e", "error_log", "Error log", show=False, id="app.error"),
        Binding("D", "toggle_dry_run", "Dry run", show=False, id="app.dry_run"),
        Binding("B", "bulk_run", "Bulk run", show=False, id="app.bulk_run"),
        Binding("T", "timed", "Timed changes", show=False, id="app.timed"),
        Binding("P", "switch_profile", "Switch profile", show=False, id="app.profiles"),
        # The Journal screen's own u undoes the highlighted row instead.
        Binding("u", "undo_latest", "Undo last change", show=False, id="app.undo"),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, id="app.quit2", priority=True),
        # Tab moves focus before the next key is routed: keys typed ahead (a
        # burst over a slow SSH link, "acme<Tab>shop-prod") are routed to the
        # focused widget as they arrive, so a Tab left to the field's own
        # bubbling sent the rest to the field it was meant to leave.
        Binding(
            "tab",
            "focus_next",
            "Next field or button",
            show=False,
            priority=True,
            id="app.focus_next",
        ),
        Binding(
            "shift+tab",
            "focus_previous",
            "Previous field or button",
            show=False,
            priority=True,
            id="app.focus_prev",
        ),
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
        live_interval: float | None = None,
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
        self._local_live: LocalLive | None = None
        #: Seconds between looks for another bottui's writes (None: the default; tests shorten it).
        self._live_interval = live_interval
        self._quitting = False
        #: Drops keys typed ahead into a closing dialog (tests set its clock).
        self.typeahead = TypeaheadGuard()
        if demo:
            self.sub_title = "demo (sandbox)"

    # -- start-up ----------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        # Keys typed ahead into a dialog that has just closed never act on the
        # screen below: dropped here, before any binding (bottui.tui.ui_rules).
        if not self.typeahead.keeps_off(self, event):
            if isinstance(event, events.Key):
                # Never to a widget nobody can see (bottui.tui.ui_rules).
                release_hidden_focus(self.screen)
            await super().on_event(event)

    def on_mount(self) -> None:
        if self._config_keymap:
            self.set_keymap(self._config_keymap)
        if self._initial_theme and self._initial_theme in self.available_themes:
            self.theme = self._initial_theme
        self._started = True
        self.screen_change_signal.subscribe(self, keep_header)
        self._start_reads()

    @work(name="start-up reads", group="start-up", exit_on_error=False)
    async def _start_reads(self) -> None:
        """Project names for every bar, and the project to start on when none was given."""
        services = self.services
        await services.start_sharing()  # before anything is changed: from here on, shared
        await services.load_names()
        if self._find_first and services.current is None:
            first = await first_project(self.session)
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
        # Start-up's objects frozen; the collector the CLI paused runs again.
        perf.resume()
        self.services.started()  # what screens put off until now (their filter lines)
        # Teammates' changes, live (nothing without a team store).
        team_live: type[TeamLive] = lazy.load("TeamLive")
        self._team_live = team_live(self.services)
        self._team_live.start()
        # Another bottui's changes on this machine (the CLI, run-due, a second TUI), live.
        local_live: type[LocalLive] = lazy.load("LocalLive")
        self._local_live = local_live(self.services, interval=self._live_interval)
        self._local_live.start()
        # Unknown keys and wrong values of the config files, read off the loop.
        self.run_worker(say_config_problems(self), group="config-check", exit_on_error=False)
        self.services.start_timed()  # this TUI performs due reverts (#15)
        if self._config_keymap:  # its mistakes said at start (reads every screen's keys)
            keymap_toast(self, self._config_keymap)
        if self._when_up is None:
            return
        try:  # work that must not slow the first frame (the demo's sandbox process)
            self._when_up()
        except Exception as exc:  # e.g. the demo's sandbox process could not be started
            self.services.report(exc)

    on_worker_state_changed = worker_failed

    async def on_unmount(self) -> None:
        if self._team_live is not None:
            self._team_live.stop()
        if self._local_live is not None:
            self._local_live.stop()
        if self.services.timed_runner is not None:
            self.services.timed_runner.stop()
        # The client's connections live on this loop, which ends with the app: closed
        # here, not left to the garbage collector ("Unclosed client session" on stderr).
        await self.session.close_clients()

    @property
    def local_live(self) -> LocalLive | None:
        """Another bottui's changes on this machine, live (None before the first frame)."""
        return self._local_live

    @property
    def team_live(self) -> TeamLive | None:
        """Teammates' changes, live (None before the first frame)."""
        return self._team_live

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
            self._save_theme(self._remember_theme, theme)

    @work(name="remember theme", group="theme", exit_on_error=False)
    async def _save_theme(self, remember: Callable[[str], Awaitable[None]], theme: str) -> None:
        try:
            await remember(theme)
        except Exception as exc:  # a config that cannot be written is not fatal
            self.services.say(str(exc), "Theme not saved", keep_newlines=True)

    # -- navigation ----------------------------------------------------------------

    def action_show(self, mode: str) -> None:
        """Switch to one of the five main screens."""
        if self.current_mode != mode:
            self.switch_mode(mode)

    def _broadcast(self, make: Callable[[], Message]) -> None:
        # Each mode's base screen gets its own message; hidden screens
        # refresh too, so switching to them shows current data at once.
        for screen in self.main_screens():
            screen.post_message(make())

    def main_screens(self) -> list[Screen[Any]]:
        """The base screen of every mode shown so far (Projects, Rate limiters, ...)."""
        return [stack[0] for stack in self._mode_stacks() if stack]

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

    def _show_work(self) -> None:
        # Every screen's bar, not only the current one's: a screen left while a
        # call was under way, or lying under a dialog, must not keep old words.
        for stack in self._mode_stacks():
            for screen in stack:
                for bar in screen.query(ContextBar):
                    bar.show_state(self.services)

    # -- work under way: the bulk run, quitting ---------------------------------------

    def action_bulk_run(self) -> None:
        """Open the bulk run's screen: its progress, or its summary once it ended."""
        self.services.bulk.show()

    def action_timed(self) -> None:
        """Open the Timed screen: the timed changes, extend, keep, revert now."""
        timed_screen: type[TimedScreen] = lazy.load("TimedScreen")
        if not isinstance(self.screen, timed_screen):  # T on it again: stays one
            self.push_screen(timed_screen())

    async def action_quit(self) -> None:
        """Quit; ask over a bulk run or a change in flight (a timed revert: wait) first."""
        if not lazy.load("work_under_way")(self.services) and not self.services.timed_busy:
            self.exit()
        elif self._quitting:
            self.services.say("Quitting once the requests in flight are recorded.")
        else:
            self._quit_after_asking()

    @work(name="quit", group="quit", exit_on_error=False)
    async def _quit_after_asking(self) -> None:
        self._quitting = True
        try:
            if await self.confirm_stop_work("quit"):
                self.exit()
        finally:
            self._quitting = False

    async def confirm_stop_work(self, doing: str = "quit") -> bool:
        """True when nothing is under way, or once the operator agreed to stop it and it did.

        During a bulk run it asks ("Stop the bulk revocation to ``doing``?",
        Cancel focused); confirmed, the run takes no new ids and this returns
        once its requests in flight have answered and are journaled. Await it
        from a worker (it waits for a dialog), before quitting or switching
        profile: ``if await app.confirm_stop_work("switch profile"): ...``.
        """
        stop_work: Callable[[TuiServices, str], Awaitable[bool]] = lazy.load("confirm_stop_work")
        return await stop_work(self.services, doing)

    # -- errors, dry run -------------------------------------------------------------

    def action_error_log(self) -> None:
        """Open this session's error log (newest first)."""
        self.services.show_error_log()

    def action_undo_latest(self) -> None:
        """Undo the current project's newest limiter or threshold change (confirmed first)."""
        screen = self.screen
        if isinstance(screen, BottuiScreen):
            lazy.load("start_undo")(screen, None)

    def action_toggle_dry_run(self) -> None:
        """Dry run on/off: changes show their request and curl instead of sending."""
        self.services.toggle_dry_run()

    # -- profiles ---------------------------------------------------------------------

    @work(name="switch profile", group="profile-switch", exit_on_error=False)
    async def action_switch_profile(self) -> None:
        """Open the profile switcher: switch, create, edit or remove profiles."""
        switcher: type[ProfileSwitcher] = lazy.load("ProfileSwitcher")
        name = await self.services.ask(switcher())
        if name is not None:
            await self._switch_profile(name)

    @work(name="switch profile", group="profile-switch", exit_on_error=False)
    async def switch_to_profile(self, name: str) -> None:
        """Work under the profile ``name`` (in a worker)."""
        await self._switch_profile(name)

    async def _switch_profile(self, name: str) -> None:
        """:func:`bottui.tui.quit_or_switch.switch_profile` (loaded when first used)."""
        switch: Callable[[BottuiApp, str], Awaitable[bool]] = lazy.load("switch_profile")
        await switch(self, name)

    async def confirm_leave_profile(self) -> bool:
        """May the app leave the current profile now? Asked before every switch.

        A bulk run in the background belongs to the profile it was started on: the
        operator is asked, and a yes stops it, lets its requests in flight finish and
        records their outcomes before the switch goes on.
        """
        return await self.confirm_stop_work("switch profile")

    # -- help and palette ----------------------------------------------------------

    def action_help(self) -> None:
        """Every key of the screen on top: its own first, then the app's, then the rest."""
        help_dialog: type[HelpDialog] = lazy.load("HelpDialog")
        screen = self.screen
        if isinstance(screen, help_dialog):
            return  # already open
        title = getattr(screen, "SCREEN_TITLE", "") or scope_of(screen).title
        self.push_screen(help_dialog(title, help_sections(self, screen, self.keymap_overrides)))

    @property
    def keymap_overrides(self) -> dict[str, str]:
        """The ``[keymap]`` of the config: binding id -> keys."""
        return dict(self._config_keymap)

    def action_focus_next(self) -> None:
        """Tab: the next widget, but never Cancel from a dialog's last field with typing to lose."""
        target = tab_target(self.screen)
        if target is None:
            self.screen.focus_next()
        else:
            target.focus()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Textual's own (theme, screenshot, quit...) but its key panel: the help is ours.
        for command in super().get_system_commands(screen):
            if command.title != "Keys":
                yield command


# -- the config files' problems, said once after the first frame --------------------

#: Problems listed in the toast; the rest are counted.
SHOWN: Final = 6


def problems_toast(app: Any, subject: str, messages: Sequence[str], closing: str) -> None:
    """One lasting warning toast: the first :data:`SHOWN` ``messages``, how many more, ``closing``.

    Its title is ``subject`` and the count (``Config files: 2 problems``); the
    config files' toast and the keymap's (:func:`~bottui.tui.key_registry.keymap_toast`).
    """
    lines = [f"- {message}" for message in messages[:SHOWN]]
    if len(messages) > SHOWN:
        lines.append(f"- and {len(messages) - SHOWN} more")
    lines.append(closing)
    count = f"{len(messages)} problem{'s' if len(messages) != 1 else ''}"
    app.services.say(
        "\n".join(lines), f"{subject}: {count}", keep_newlines=True, severity="warning", timeout=20
    )


async def say_config_problems(app: Any) -> None:
    """Check the session's config files off the loop; one lasting toast if any has a problem."""
    files = CheckedFiles(app.session.locations)  # read when checked, on the executor
    problems = await shared_executor().call(partial(run_checkers, files))
    if not problems:
        return
    problems_toast(
        app,
        "Config files",
        [f"{p.path.name}:{p.line or '?'}: {p.message}" for p in problems],
        "Until fixed, what they say is not applied. bottui config check lists them all.",
    )


def keymap_toast(app: Any, keymap: dict[str, str]) -> None:
    """Say the keymap's mistakes (misspelt ids, keys bound twice) in one lasting toast."""
    problems = check_keymap(keymap, known_bindings())
    if not problems:
        return
    problems_toast(
        app,
        "Keymap in config.toml",
        [problem.message for problem in problems],
        "bottui config check lists them with their lines; ? lists every binding id.",
    )
