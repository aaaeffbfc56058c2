"""The key bar: the current screen's keys on one line, with the way to help and out always in view.

Replaces Textual's ``Footer``, for two reasons measured on Textual 8.2.8:

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

from typing import ClassVar, NamedTuple

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget

from bottui.plaintext import clean

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
ELLIPSIS = "…"


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
