"""What the help screen lists: this screen's keys first, then the app's, then navigation.

Read from the one registry (:mod:`bottui.tui.action_registry`) with the
user's keymap applied, so the help shows the keys that work, never the
defaults a ``[keymap]`` replaced. Each key is listed once: the first place
that binds it wins (a screen's ``escape`` over a dialog's, the bulk run's
``q`` over the app's). Every binding id of the app is listed, the other
screens' and dialogs' after the rest, for remapping in ``config.toml``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from textual.binding import Binding

from bottui.ops.config_checks import normalize_key, split_keys
from bottui.plaintext import clean
from bottui.tui.action_registry import APP_SCOPE, Action, actions_of, scope_of, scopes

#: ``?`` in a dialog: Textual's modal screens stop the app's own ``?``. Each
#: dialog base adds it to its ``BINDINGS`` (in a text field, ``?`` is typed).
DIALOG_HELP = Binding("question_mark", "app.help", "Help", show=False, id="dialog.help")
#: Bindings with an id but no description: how the help names them.
_WORDS = {
    "app.focus_next": "Next field or button",
    "app.focus_prev": "Previous field or button",
}
#: Textual's own keys, in our words (they have no binding id; not remappable):
#: (the keys, as Textual names them; as shown; what they do).
_NAVIGATION = (
    (("up", "down", "left", "right"), "↑ ↓ ← →", "Move in a table or a list"),
    (("pageup", "pagedown"), "pgup pgdn", "A page up / down"),
    (("home", "end"), "home end", "First / last row"),
    (("enter",), "enter", "Press the focused button; in a field, go on"),
    (("ctrl+c",), "ctrl+c", "Copy the selected text"),
)


class HelpRow(NamedTuple):
    """One line of the help: the keys as shown, what they do, the binding id ("" if none)."""

    keys: str
    description: str
    binding_id: str


class HelpSection(NamedTuple):
    """A heading and its rows."""

    title: str
    rows: list[HelpRow]


class _Keys:
    """The keys listed so far, so that each is listed once."""

    def __init__(self, app: Any, keymap: Mapping[str, str]) -> None:
        self.app = app
        self.keymap = keymap
        self.used: set[str] = set()

    def row(self, action: Action, *, claim: bool = True) -> HelpRow | None:
        keys = self.keymap.get(action.binding_id, action.keys)
        shown: list[str] = []
        for key in split_keys(keys):
            normal = normalize_key(key)
            if claim and normal in self.used:
                continue
            if claim:
                self.used.add(normal)
            shown.append(clean(self.app.get_key_display(action.binding.with_key(key))))
        if not shown:
            return None
        words = action.description or _WORDS.get(action.binding_id, action.action)
        return HelpRow(" ".join(shown), clean(words), action.binding_id)


def _enabled(screen: Any, action: Action) -> bool:
    # A screen hides the keys that mean nothing in its state (check_action False).
    if not isinstance(screen, action.owner):
        return True
    node: Any = screen
    try:
        return node.check_action(action.action, ()) is not False
    except Exception:  # a check that fails must not hide the help
        return True


def help_sections(app: Any, screen: Any, keymap: Mapping[str, str]) -> list[HelpSection]:
    """The sections of the help for ``screen``: its own, the app's, navigation, the rest."""
    keys = _Keys(app, keymap)
    scope = scope_of(screen)
    own = [a for a in actions_of(scope) if a.description and _enabled(screen, a)]
    app_actions = actions_of(scopes()[0])
    if getattr(screen, "is_modal", False):
        # Textual's dialogs stop the app's keys but its priority ones (F1, tab, ctrl+q).
        app_actions = [a for a in app_actions if a.binding.priority]
    own_rows = _rows(keys, own)
    # An app key this screen binds itself (the Journal's u undoes the highlighted
    # row, the app's u the newest change): listed apart, so its id is still found.
    shadowed = [
        a
        for a in app_actions
        if a.description
        and all(normalize_key(k) in keys.used for k in split_keys(keymap.get(a.binding_id, a.keys)))
    ]
    sections = [
        HelpSection(scope.title, own_rows),
        HelpSection(
            "Everywhere",
            _rows(keys, [a for a in app_actions if a.description]) + _palette_row(keys, app),
        ),
    ]
    navigation = _rows(keys, [a for a in app_actions if not a.description])
    for names, shown, words in _NAVIGATION:
        if not keys.used.intersection(names):  # each key once: a slider's arrows are its own
            keys.used.update(names)
            navigation.append(HelpRow(shown, words, ""))
    sections.append(HelpSection("Navigation (Textual's keys)", navigation))
    hidden = [a for a in actions_of(scope) if a.description and not _enabled(screen, a)]
    rows = [r for a in hidden if (r := keys.row(a, claim=False))]
    sections.append(HelpSection(f"{scope.title}: not available now", rows))
    for other in scopes():
        if other.name in (scope.name, APP_SCOPE):
            continue
        rows = [r for a in actions_of(other) if (r := keys.row(a, claim=False))]
        sections.append(HelpSection(f"{other.title} (elsewhere)", rows))
    rows = [r for a in shadowed if (r := keys.row(a, claim=False))]
    sections.append(HelpSection(f"Everywhere but {scope.title} (its own key wins here)", rows))
    return [section for section in sections if section.rows]


def _rows(keys: _Keys, actions: Iterable[Action]) -> list[HelpRow]:
    # One row per action: two bindings of one action (q and ctrl+q: Quit) share it.
    rows: dict[tuple[str, str], HelpRow] = {}
    for action in actions:
        row = keys.row(action)
        if row is None:
            continue
        old = rows.get((action.action, row.description))
        if old is not None:
            ids = f"{old.binding_id} {row.binding_id}"
            row = HelpRow(f"{old.keys} {row.keys}", row.description, ids)
        rows[(action.action, row.description)] = row
    return list(rows.values())


def _palette_row(keys: _Keys, app: Any) -> list[HelpRow]:
    key = str(getattr(app, "COMMAND_PALETTE_BINDING", "ctrl+p"))
    if not getattr(app, "ENABLE_COMMAND_PALETTE", False) or normalize_key(key) in keys.used:
        return []
    keys.used.add(normalize_key(key))
    return [HelpRow(key, "Command palette: every action, by name", "")]


__all__ = ["DIALOG_HELP", "HelpRow", "HelpSection", "help_sections"]
