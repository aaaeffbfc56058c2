"""The two bars of every screen: the header (where a key press lands) and the key bar.

:class:`ContextBar`, the header line: profile, base URL, flags, current
project. An operator must always see where a key press will land: which
profile, which service, whether it is read-only or protected, and which
project. One widget drawing one line (the where on the left, the flags at the
right end), not a row of a label and three flag widgets: every screen has one,
and each widget costs mounting and styling before the screen's first frame.
When the flags leave too little room (a timed change's countdown, a bulk run,
at 80 columns), the project is the last thing to go: the base URL is
shortened first, then the project's name (:func:`fit_where`).

Every dialog keeps the header (:func:`keep_header`): a dialog is a modal
screen over the main one, and a tall one (bulk revocation, a journal entry,
the threshold editor at 80x24) used to cover the main screen's context bar,
so the operator could not see which profile and project a confirmation would
act on. Each of bottui's dialogs gets a context bar of its own, docked on the
top row; the app calls it whenever a screen comes up (Textual's public
``screen_change_signal``). Textual's own modal screens (the command palette)
are left as they are.

:class:`KeyBar`, the current screen's keys on one line, with the way to help
and out always in view. It replaces Textual's ``Footer``, for two reasons
measured on Textual 8.2.8:

- At 100 columns the Footer of the Rate limiters screen ended at
  ``3 Gra``: ``?`` (help) and ``q`` (quit) were off screen, and at 80
  columns more was. Here the six screen keys share one item (``1-6
  Screens``) while they are the plain digits, and help, quit and the
  command palette are kept at the right end; what does not fit before them
  ends in ``…`` (``?`` lists every key).
- The Footer is a widget per key, rebuilt (and styled again) on every change
  of bindings, three times before a screen's first frame: ~35 ms of
  ``bottui demo``'s start-up (``tests/bench/startup.py``). This is one
  widget that renders one line.

A click on a key presses it, as on the Footer. While a dialog is open over
the screen (the threshold editor, a confirmation), the bar shows the
dialog's keys: those are the keys that act (#27: the editor's bottom line
said the Thresholds screen's "esc Clear the filter").
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, NamedTuple

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

from bottui.plaintext import clean, show_id
from bottui.tui.services import TuiServices, find_services
from bottui.tui.widgets.untrusted_text import safe

# -- the header ------------------------------------------------------------------------

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
        # A dialog's own bar (bottui.tui.widgets.screen_bars) is drawn right at once.
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
            self._parts = (profile, base, "no project selected", "")
        else:
            name = services.project_name(*current) or ""
            self._parts = (profile, base, f"{show_id(current[0])} / {show_id(current[1])}", name)
        where = self._parts[2] + (f" ({self._parts[3]})" if self._parts[3] else "")
        self.where = f" {profile} · {base} · {where}"
        self.read_only = settings.read_only
        self.protected = settings.protected
        self.show_state(services)

    def show_state(self, services: TuiServices) -> None:
        """The flags that change as the app runs: work, bulk run, timed changes, team, dry run."""
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


# -- the key bar -----------------------------------------------------------------------

#: The binding ids of the six screens, in key order.
SCREEN_IDS: tuple[str, ...] = (
    "app.projects",
    "app.limiters",
    "app.grants",
    "app.thresholds",
    "app.journal",
    "app.playbooks",
)
#: Their keys when none is remapped: then they share one item, "1-6 Screens".
PLAIN_DIGITS: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")
#: Kept at the right end, in this order, whatever the width.
TAIL_IDS: tuple[str, ...] = ("app.help", "app.quit")
GAP = "  "


class KeyItem(NamedTuple):
    """One key as shown: what to press, what it does, whether it does anything now."""

    key: str | None  # pressed on a click; None for the combined screens item
    display: str
    description: str
    enabled: bool


class KeyBar(Widget):
    """One line of keys for the screen it is on; see the module docstring."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "key-bar--key",
        "key-bar--description",
        "key-bar--disabled",
    }

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-bar--key { color: $footer-key-foreground; text-style: bold; }
        & > .key-bar--description { color: $footer-description-foreground; }
        & > .key-bar--disabled { text-style: dim; }
    }
    """

    ALLOW_SELECT: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__()
        #: (first column, end column, key) of each key drawn, for clicks.
        self._spans: list[tuple[int, int, str | None]] = []
        #: Said instead of the screen's keys for a moment (keys typed ahead were dropped).
        self.note = ""

    def say(self, note: str) -> None:
        """Show ``note`` in place of the screen's keys ("" shows the keys again)."""
        if note != self.note:
            self.note = note
            self.refresh()

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)
        self.app.screen_change_signal.unsubscribe(self)

    def _screen_changed(self, screen: Screen[object]) -> None:
        # A dialog opened over this screen (or closed): its keys are the ones
        # that act now, so they are the ones shown (#27: the threshold
        # editor's bar said the table filter's "esc Clear the filter").
        if screen is not self.screen:
            screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.refresh()

    @property
    def keys_of(self) -> Screen[object]:
        """The screen whose keys are shown: this one, or the dialog open over it."""
        top = self.app.screen
        return (
            top if top is not self.screen and self.screen in self.app.screen_stack else self.screen
        )

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # A refresh, not a rebuild: several changes before the next frame
        # cost one render.
        self.refresh()

    # -- what to show ------------------------------------------------------------

    def items(self) -> tuple[list[KeyItem], list[KeyItem]]:
        """The keys to show: (left part, right end)."""
        shown: dict[str, tuple[Binding, bool]] = {}
        every: dict[str, tuple[Binding, bool]] = {}  # by id, also those not shown
        palette: tuple[Binding, bool] | None = None
        for active in self.keys_of.active_bindings.values():
            binding, enabled = active.binding, active.enabled
            if binding.id:
                every.setdefault(binding.id, (binding, enabled))
            if binding.key == self.app.COMMAND_PALETTE_BINDING:
                palette = (binding, enabled)  # always at the right end
            elif binding.show and binding.action not in shown:
                shown[binding.action] = (binding, enabled)
        by_id = {b.id: (b, on) for b, on in shown.values() if b.id}

        left: list[KeyItem] = []
        screens = [every.get(binding_id) for binding_id in SCREEN_IDS]
        digits = tuple(self._display(s[0]) if s else None for s in screens)
        for binding, enabled in shown.values():
            if binding.id not in TAIL_IDS and binding.id not in SCREEN_IDS:
                left.append(self._item(binding, enabled))
        # The screens go together after the screen's own keys, in their order
        # (a remapped key would otherwise move to the end of Textual's map).
        # Apart, only those whose binding is shown (6 is not: no room at 80 columns).
        if digits == PLAIN_DIGITS:
            left.append(KeyItem(None, "1-6", "Screens", True))
        else:
            left += [self._item(*screen) for screen in screens if screen and screen[0].show]
        right = [self._item(*by_id[i]) for i in TAIL_IDS if i in by_id]
        if palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            binding, enabled = palette
            right.append(KeyItem(binding.key, self._display(binding), "palette", enabled))
        return left, right

    def _display(self, binding: Binding) -> str:
        return clean(self.app.get_key_display(binding))

    def _item(self, binding: Binding, enabled: bool) -> KeyItem:
        return KeyItem(binding.key, self._display(binding), clean(binding.description), enabled)

    # -- drawing ---------------------------------------------------------------------

    def _content(self, item: KeyItem) -> Content:
        key = Content.styled(item.display, self.get_visual_style("key-bar--key", partial=True))
        words = Content.styled(
            item.description, self.get_visual_style("key-bar--description", partial=True)
        )
        content = Content.assemble(key, " ", words)
        if not item.enabled:
            content = content.stylize(self.get_visual_style("key-bar--disabled", partial=True))
        return content

    def render(self) -> Content:
        width = self.size.width
        left, right = self.items()
        if self.note:
            left = [KeyItem(None, "!", self.note, True)]
        tail = [self._content(item) for item in right]
        # The right end: its items, a gap between each, one column of margin.
        tail_width = sum(c.cell_length for c in tail) + len(GAP) * (len(tail) - 1) + 1
        if not tail or tail_width + 1 > width:  # too narrow even for help and quit
            left, right, tail, tail_width = left + right, [], [], 0
        room = width - 1 - tail_width - (len(GAP) if tail else 0)
        parts: list[Content] = [Content(" ")]
        spans: list[tuple[int, int, str | None]] = []
        used = 0
        for n, item in enumerate(left):
            content = self._content(item)
            sep = GAP if n else ""
            after = len(GAP) + len(ELLIPSIS) if n < len(left) - 1 else 0
            if used + len(sep) + content.cell_length + after > room:
                if used + len(sep) + len(ELLIPSIS) <= room:
                    parts.append(Content(sep + ELLIPSIS))
                    used += len(sep) + len(ELLIPSIS)
                break
            start = 1 + used + len(sep)
            spans.append((start, start + content.cell_length, item.key))
            parts += [Content(sep), content]
            used += len(sep) + content.cell_length
        if tail:
            column = width - tail_width
            parts.append(Content(" " * (column - 1 - used)))
            for n, (item, content) in enumerate(zip(right, tail, strict=True)):
                if n:
                    parts.append(Content(GAP))
                    column += len(GAP)
                spans.append((column, column + content.cell_length, item.key))
                parts.append(content)
                column += content.cell_length
        self._spans = spans
        return Content.assemble(*parts)

    # -- clicks -----------------------------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end and key is not None:
                event.stop()
                self.app.simulate_key(key)
                return


# -- every dialog keeps the header -----------------------------------------------------


def keep_header(screen: Screen[Any]) -> None:
    """Dock a context bar on top of ``screen`` if it is one of bottui's dialogs without one."""
    if not isinstance(screen, ModalScreen) or not type(screen).__module__.startswith("bottui."):
        return
    if screen.query(ContextBar):
        return
    screen.mount(ContextBar(classes="dialog-header"))
