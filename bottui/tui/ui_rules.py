"""Rules every screen keeps so the operator never acts blind.

**States never by colour alone** (:func:`tone`). Every state (ON/OFF/unknown,
outcomes, token states) is told by its words, then by an attribute (bold,
underline); colour only helps. Under NO_COLOR Textual turns every colour into
a grey of the same brightness, and a dark red or green becomes a grey that
vanishes on a dark background (OFF was colour 237 on 235), so there the
colour is left out and the text keeps the screen's own foreground. Textual
tests the variable the same way: set, to any value, is NO_COLOR
(``App.__init__``); it is read at each call, so an app created after the
variable changes follows it.

**Focus never rests on something the operator cannot see.** Textual lets a
widget keep (and take) the focus while it, or a container above it, has
``display: none``: an empty table hidden behind its "no dimension known"
words, or the filter line after Esc hid it. The keys then went to that
invisible widget: the key bar listed its keys, letters were typed into a
filter nobody could see, and the screen's own keys did nothing.
:func:`focus_shown` is how a screen gives the focus to a widget it may have
hidden; :func:`show_widget` shows or hides one and moves the focus off it
when hidden; :func:`release_hidden_focus` is the app's safety net, run
before every key is routed.

**Tab from a dialog's last field never lands on Cancel with typing to lose**
(:func:`tab_target`). Dialogs open with focus where a stray Enter is harmless
(Cancel, or the first field), and Tab follows the fields in order. Left to
the DOM order, Tab from the *last* field lands on **Cancel**, so Tab then
Enter, the way one leaves a form, threw away what was just typed. So, for
every modal dialog:

* Tab from a dialog's last field, while any of its fields holds text, goes
  to the dialog's primary button when it can be pressed: the change's
  **Confirm** (Enter there is the deliberate second key the confirmation
  asks for anyway) or the form's primary action (Add, Save, Store in
  keyring; never a destructive neighbour such as Delete stored);
* when that button cannot be pressed yet (a protected profile's project id
  not typed right, a form not valid), Tab goes back to the field to fix
  (the first one marked invalid, else the first field);
* with nothing typed, Tab follows the DOM order: Cancel loses nothing;
* Shift+Tab is never changed: Cancel stays one key away, and Esc cancels.

**Keys typed ahead never act on the screen below a dialog that just closed**
(:class:`TypeaheadGuard`). "id, Enter, 30m": an operator typing into a
confirmation does not look up when the Enter sends it, and the rest of what
they typed reached the screen under the dialog as commands (the ``3`` of
``30m`` switched to Grants, a ``t`` opened another confirmation). For
:data:`WINDOW` seconds after a dialog that sends (or refused to) closes, the
app drops printable keys and Enter that would reach a screen that is not a
dialog; the key bar says so (k9s and lazygit keep text typed into a dialog
from triggering actions the same way). The clock is injectable so tests
drive the window without sleeping.

**The two bars of every screen**: the header (where a key press lands) and the key bar.

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

import os
import time
from collections.abc import Callable
from typing import Any, ClassVar, Final, NamedTuple

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, Input

from bottui.plaintext import clean, show_id
from bottui.tui.services import TuiServices, find_services
from bottui.tui.widgets.untrusted_text import safe

# -- states never by colour alone ------------------------------------------------------


def no_color() -> bool:
    """True when NO_COLOR is set (any value), as Textual reads it."""
    return "NO_COLOR" in os.environ


def tone(attributes: str, extra: str) -> str:
    """A Rich style: ``attributes`` always, ``extra`` (colours, dim) only with colour."""
    if no_color():
        return attributes
    return f"{attributes} {extra}".strip()


# -- focus never on a hidden widget ----------------------------------------------------


def is_shown(widget: Widget) -> bool:
    """Whether the widget and every container up to its screen are displayed."""
    if not widget.is_attached:
        return False
    for node in widget.ancestors_with_self:
        if isinstance(node, Screen):
            return True
        if isinstance(node, Widget) and not node.display:
            return False
    return False


def release_hidden_focus(screen: Screen[Any]) -> bool:
    """Take the focus off a widget that is not shown; True when it was taken.

    Nothing is focused then: the keys go to the screen, whose bindings work.
    """
    focused = screen.focused
    if focused is None or is_shown(focused):
        return False
    screen.set_focus(None)
    return True


def focus_shown(widget: Widget) -> None:
    """Focus ``widget`` if it is shown, else nothing: the screen's keys work.

    The focus leaves where it was either way (Enter in the filter line
    goes back to the table, or to the screen while the table is hidden).
    """
    widget.screen.set_focus(widget if is_shown(widget) else None)


def show_widget(widget: Widget, shown: bool, *, take_focus: bool = False) -> None:
    """Show or hide ``widget``; hidden, it (or what it holds) gives the focus up.

    With ``take_focus``, a widget shown while nothing has the focus takes it
    (a table whose first rows arrived: Enter and the arrows act on it).
    """
    widget.display = shown
    if not widget.is_attached:
        return
    screen = widget.screen
    if not shown:
        release_hidden_focus(screen)
    elif take_focus and screen.focused is None and is_shown(widget) and widget.focusable:
        screen.set_focus(widget)


# -- Tab from a dialog's last field ----------------------------------------------------


def _is_cancel(widget: Widget | None) -> bool:
    return isinstance(widget, Button) and (widget.id or "").split("-")[-1] == "cancel"


def _primary(screen: Screen[Any]) -> Button | None:
    """The button the dialog is for: a change's Confirm, or a form's primary action."""
    for button in screen.query(Button):
        if (
            button.id == "confirm"
            or button.variant == "primary"
            or button.has_class("primary-action")
        ):
            return button if button.focusable else None  # disabled: not focusable
    return None


def tab_target(screen: Screen[Any]) -> Widget | None:
    """Where Tab should go instead of the next widget, or None for the usual order."""
    if not isinstance(screen, ModalScreen):
        return None
    chain = screen.focus_chain
    focused = screen.focused
    if focused is None or focused not in chain:
        return None
    # Here, not at the top: TextArea costs the first frame ~5 ms to import.
    from textual.widgets import TextArea

    fields = [w for w in chain if isinstance(w, Input | TextArea)]
    if not fields or focused is not fields[-1]:
        return None
    following = chain[(chain.index(focused) + 1) % len(chain)]
    typed = any((f.value if isinstance(f, Input) else f.text) for f in fields)
    if not typed or not _is_cancel(following):
        return None
    primary = _primary(screen)
    if primary is not None:
        return primary
    # A change's confirmation knows which field keeps it from being sent.
    to_fix = getattr(screen, "field_to_fix", None)
    if callable(to_fix) and isinstance(found := to_fix(), Widget):
        return found
    invalid = [f for f in fields if f.has_class("-invalid")]
    return (invalid or fields)[0]


# -- keys typed ahead ------------------------------------------------------------------

#: How long keys are kept from the screen below, in seconds.
WINDOW = 1.0
#: What the key bar says while keys are dropped.
NOTE = "keys typed ahead ignored"
#: How long the note stays after the window, in seconds: time to read it.
NOTE_AFTER = 0.5


class TypeaheadGuard:
    """When to drop a key: within :data:`WINDOW` of a sending dialog's close."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, window: float | None = None
    ) -> None:
        self.clock = clock
        #: Seconds; :data:`WINDOW` unless given.
        self.window = WINDOW if window is None else window
        self._until: float | None = None
        #: How many keys were dropped since the guard was last armed.
        self.dropped = 0

    def arm(self) -> None:
        """A dialog that sends closed: keys typed ahead are dropped from now on."""
        self._until = self.clock() + self.window
        self.dropped = 0

    @property
    def armed(self) -> bool:
        """Whether keys are being kept from the screen below right now."""
        if self._until is None:
            return False
        if self.clock() >= self._until:
            self._until = None
            return False
        return True

    def keeps_off(self, app: App[Any], event: events.Event) -> bool:
        """Drop ``event`` if it is a key typed ahead for the screen below; the key bar
        says so until the window is over. True: dropped."""
        if (
            not isinstance(event, events.Key)
            or event.is_forwarded
            or isinstance(app.screen, ModalScreen)  # a dialog still takes its keys
            or not self.drops(event)
        ):
            return False
        for bar in app.screen.query(KeyBar):
            bar.say(NOTE)
        screen = app.screen

        def clear() -> None:
            # By the guard's clock, not the timer's: the note stays while keys are
            # dropped (a busy machine's late timer, or a test's stopped clock).
            if self.armed:
                app.set_timer(self.remaining() + NOTE_AFTER, clear)
                return
            for bar in screen.query(KeyBar):
                bar.say("")

        app.set_timer(self.window + NOTE_AFTER, clear)
        return True

    def remaining(self) -> float:
        """Seconds left in the window (0 when it is over)."""
        return 0.0 if self._until is None else max(self._until - self.clock(), 0.0)

    def drops(self, event: events.Key) -> bool:
        """Whether ``event`` is a key typed ahead: printable or Enter, within the window."""
        if not (event.is_printable or event.key == "enter"):
            return False
        if not self.armed:
            return False
        self.dropped += 1
        return True


def arm(app: App[Any]) -> None:
    """Open the window of ``app`` (bottui's app: others have no guard, and nothing happens)."""
    guard = getattr(app, "typeahead", None)
    if isinstance(guard, TypeaheadGuard):
        guard.arm()


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


#: Each flag of the header (its component class ``context-bar--FLAG``) and its style.
FLAG_STYLES: Final = {
    "working": "color: $accent; text-style: bold;",
    "bulk": "color: $text; text-style: bold reverse;",
    "timed": "color: $text; text-style: bold;",
    "protected": "background: $warning; color: $text; text-style: bold;",
    "readonly": "background: $error; color: $text; text-style: bold;",
    "team-down": "background: $warning; color: $text; text-style: bold;",
    "team": "color: $warning; text-style: bold;",
    # Reverse: a block that stands out in every theme, NO_COLOR and 16 colours.
    "dry-run": "text-style: bold reverse;",
}
FLAG_CSS: Final = "\n".join(
    f"& > .context-bar--{flag} {{ {css} }}" for flag, css in FLAG_STYLES.items()
)


class ContextBar(Widget):
    """One line: where we are, the profile's flags, and a working indicator."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"context-bar--{flag}" for flag in FLAG_STYLES}

    DEFAULT_CSS = f"""
    ContextBar {{
        dock: top;
        height: 1;
        background: $panel;
        {FLAG_CSS}
    }}
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
        # A dialog's own bar (bottui.tui.ui_rules) is drawn right at once.
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
        shown = {
            "working": f"⟳ {self.working}" if self.working else "",
            "bulk": bulk,
            "timed": timed,
            # With nothing waiting, a team store heard says so: changes arrive live.
            "team": self.team or ("team: live" if self.live else ""),
            "dry-run": "DRY RUN" if self.dry_run else "",
            "protected": "PROTECTED" if self.protected else "",
            "readonly": "READ-ONLY" if self.read_only else "",
            # The push's words may say the store is down already: said once.
            "team-down": "TEAM STORE DOWN" if live_down else "",
        }
        return [
            safe(f" {text} ").stylize(self.get_visual_style(f"context-bar--{flag}"))
            for flag, text in shown.items()
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

#: The six screens (the app's modes) by their default keys, in key order.
MODE_KEYS: Final = {
    "1": "projects",
    "2": "limiters",
    "3": "grants",
    "4": "thresholds",
    "5": "journal",
    "6": "playbooks",
}
#: The binding ids of the six screens (``app.<mode>``), in key order.
SCREEN_IDS: Final = tuple(f"app.{mode}" for mode in MODE_KEYS.values())
#: Their keys when none is remapped: then they share one item, "1-6 Screens".
PLAIN_DIGITS: Final = tuple(MODE_KEYS)
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
