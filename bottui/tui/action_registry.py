"""Every key of bottui, read from the Textual ``BINDINGS`` of its screens and widgets.

One registry, three readers: the help screen (this screen's keys first),
the command palette (every action of every screen) and the keymap check
(``bottui config check`` and the start-up toast). Nothing is declared twice:
an action is a ``Binding`` with an ``id`` and a description, next to the
screen's other bindings, and appears in all three at once. A row action
that needs a target (a limiter, a dimension, a project) names the table
that holds its targets in the screen's ``TARGETS`` (action -> table class):
the palette then asks with a picker instead of using the highlighted row.

A *scope* is a set of classes whose bindings are active together: the app's
own keys, each main screen with its widgets, each dialog with its widgets.
The screens are imported when the registry is first read (the help screen,
the palette, the check), never on the way to the first frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any, NamedTuple

from textual.binding import Binding

from bottui.ops.config_checks import KnownBinding, check_keymap
from bottui.tui.config_toast import problems_toast
from bottui.tui.lazy import load

#: The scope of the app's own keys (``app.*``).
APP_SCOPE = "app"


class Scope(NamedTuple):
    """Classes whose bindings are active together, and what to call them."""

    name: str
    title: str
    #: The main screen's mode (switched to by the palette), None for the app and dialogs.
    mode: str | None
    #: The screen (or app) class first, then the widgets it holds.
    owners: tuple[type, ...]


class Action(NamedTuple):
    """One binding of one scope: its id, default keys, what it does."""

    binding_id: str
    #: The default keys, comma-separated as in ``Binding.key``.
    keys: str
    action: str
    description: str
    scope: str
    #: The class whose ``BINDINGS`` holds it (a screen, a widget, the app).
    owner: type
    #: The table class holding the action's targets, None when it needs none.
    target: type | None
    #: The binding itself.
    binding: Binding


def own_bindings(cls: type) -> Iterator[Binding]:
    """The bindings of ``cls`` and its bases, the class's own first, each id once.

    A base's binding whose every key a subclass binds again is left out:
    Textual gives the key to the subclass (a form's escape over a dialog's).
    """
    seen: set[str] = set()
    taken: set[str] = set()
    for klass in cls.__mro__:
        mine: set[str] = set()
        for item in klass.__dict__.get("BINDINGS", ()):
            binding = item if isinstance(item, Binding) else Binding(*item)
            key = binding.id or f"{binding.key}:{binding.action}"
            keys = {k.strip() for k in binding.key.split(",")}
            mine |= keys
            if key not in seen and not keys <= taken:
                seen.add(key)
                yield binding
        taken |= mine
        if not klass.__dict__.get("inherit_bindings", True):
            break


def target_of(owner: type, action: str) -> type | None:
    """The table class holding the targets of ``owner``'s ``action``, if it needs one."""
    targets: dict[str, type] = getattr(owner, "TARGETS", {})
    return targets.get(action)


def actions_of(scope: Scope) -> list[Action]:
    """Every binding with an id of ``scope``, the screen's own first."""
    found: list[Action] = []
    seen: set[str] = set()
    for owner in scope.owners:
        for binding in own_bindings(owner):
            if binding.id is None or binding.id in seen:
                continue
            seen.add(binding.id)
            action = binding.action
            target = target_of(owner, action)
            if target is None and action == "select_cursor":
                target = owner  # a table's own Enter acts on the row picked
            found.append(
                Action(
                    binding.id, binding.key, action, binding.description,
                    scope.name, owner, target, binding,
                )
            )  # fmt: skip
    return found


def _main_screens() -> list[Scope]:
    GrantsScreen = load("GrantsScreen")
    JournalScreen = load("JournalScreen")
    LimitersScreen = load("LimitersScreen")
    PlaybooksScreen = load("PlaybooksScreen")
    ProjectsScreen = load("ProjectsScreen")
    DimensionTable = load("DimensionTable")
    ThresholdsScreen = load("ThresholdsScreen")
    JournalTable = load("JournalTable")
    LimiterTable = load("LimiterTable")
    ProjectTable = load("ProjectTable")
    return [
        Scope(
            "projects",
            ProjectsScreen.SCREEN_TITLE,
            "projects",
            (ProjectsScreen, ProjectTable),
        ),
        Scope(
            "limiters",
            LimitersScreen.SCREEN_TITLE,
            "limiters",
            (LimitersScreen, LimiterTable),
        ),
        Scope("grants", GrantsScreen.SCREEN_TITLE, "grants", (GrantsScreen,)),
        Scope(
            "thresholds",
            ThresholdsScreen.SCREEN_TITLE,
            "thresholds",
            (ThresholdsScreen, DimensionTable),
        ),
        Scope("journal", JournalScreen.SCREEN_TITLE, "journal", (JournalScreen, JournalTable)),
        Scope("playbooks", PlaybooksScreen.SCREEN_TITLE, "playbooks", (PlaybooksScreen,)),
    ]


def _dialogs() -> list[Scope]:
    BulkDialog = load("BulkDialog")
    ExportDialog = load("ExportDialog")
    BulkRunDialog = load("BulkRunDialog")
    ConfirmDialog = load("ConfirmDialog")
    HelpDialog = load("HelpDialog")
    DiscardDialog = load("DiscardDialog")
    DryRunDialog = load("DryRunDialog")
    ErrorLogScreen = load("ErrorLogScreen")
    EntryDialog = load("EntryDialog")
    FilterDialog = load("FilterDialog")
    RunDialog = load("RunDialog")
    ProfileSwitcher = load("ProfileSwitcher")
    ProjectForm = load("ProjectForm")
    TargetPicker = load("TargetPicker")
    AddDimensionDialog = load("AddDimensionDialog")
    ThresholdEditor = load("ThresholdEditor")
    TimedScreen = load("TimedScreen")
    TokenDialog = load("TokenDialog")
    FilterInput = load("FilterInput")
    Slider = load("Slider")
    return [
        Scope("editor", "Threshold editor", None, (ThresholdEditor, Slider)),
        Scope("dialog", "Dialogs", None, (ConfirmDialog,)),
        Scope("form", "Forms", None, (ProjectForm,)),
        Scope("thresholds.dialog", "Threshold dialogs", None, (AddDimensionDialog,)),
        Scope("journal.dialog", "Journal dialogs", None, (EntryDialog,)),
        Scope("token", "Token dialog", None, (TokenDialog,)),
        Scope("bulk", "Bulk revocation", None, (BulkDialog, BulkRunDialog)),
        Scope("bulk.export", "Export a bulk run", None, (ExportDialog,)),
        Scope("dry_run", "Dry run", None, (DryRunDialog,)),
        Scope("discard", "Discard changes?", None, (DiscardDialog,)),
        Scope("errors", "Error log", None, (ErrorLogScreen,)),
        Scope("journal.filter", "Journal filter", None, (FilterDialog,)),
        Scope("journal.run", "Bulk run in the journal", None, (RunDialog,)),
        Scope("profiles", "Profiles", None, (ProfileSwitcher,)),
        Scope("picker", "Pick a row", None, (TargetPicker,)),
        # The filter field of a table: its own Esc, known to the keymap check
        # (not listed in the screen's help: the screen's Esc row says it).
        Scope("filter", "Table filter", None, (FilterInput,)),
        Scope("timed", TimedScreen.SCREEN_TITLE, None, (TimedScreen,)),
        Scope("help", "Help", None, (HelpDialog,)),
    ]


@cache
def scopes() -> tuple[Scope, ...]:
    """The app's scope, the five main screens', then the dialogs'."""
    BottuiApp = load("BottuiApp")
    app = Scope(APP_SCOPE, "Everywhere", None, (BottuiApp,))
    return (app, *_main_screens(), *_dialogs())


def scope_of(screen: Any) -> Scope:
    """The registered scope of a screen instance, else one made of its class and widgets.

    A dialog no one registered (a helper's new one) still gets its help: its
    own class and the classes of the widgets it holds that have bindings.
    """
    for scope in scopes():
        if type(screen) is scope.owners[0]:
            return scope
    widgets: dict[type, None] = {}
    for widget in screen.query("*"):
        if any("BINDINGS" in k.__dict__ for k in type(widget).__mro__[:-1]):
            widgets[type(widget)] = None
    title = getattr(screen, "SCREEN_TITLE", "") or "This dialog"
    return Scope(type(screen).__name__, title, None, (type(screen), *widgets))


def all_actions() -> list[Action]:
    """Every action of every registered scope, in scope order."""
    return [action for scope in scopes() for action in actions_of(scope)]


def binding_ids() -> dict[str, str]:
    """Every binding id -> its default keys (the first declaration of an id wins)."""
    ids: dict[str, str] = {}
    for action in all_actions():
        ids.setdefault(action.binding_id, action.keys)
    return ids


def main_scopes() -> list[Scope]:
    """The scopes the palette offers: the app's and the five main screens'."""
    return [scope for scope in scopes() if scope.name == APP_SCOPE or scope.mode is not None]


def known_bindings() -> list[KnownBinding]:
    """Every binding id, its default keys and the places it is active in, for the check.

    The app's keys are active everywhere, so they are in every place.
    """
    everywhere = frozenset(scope.title for scope in scopes())
    known: dict[str, KnownBinding] = {}
    for scope in scopes():
        for action in actions_of(scope):
            places = everywhere if scope.name == APP_SCOPE else frozenset({scope.title})
            old = known.get(action.binding_id)
            if old is not None:
                places |= old.places
            known[action.binding_id] = KnownBinding(
                action.binding_id, old.keys if old else action.keys, places
            )
    return list(known.values())


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


__all__ = [
    "APP_SCOPE",
    "Action",
    "Scope",
    "actions_of",
    "all_actions",
    "binding_ids",
    "keymap_toast",
    "known_bindings",
    "main_scopes",
    "own_bindings",
    "scope_of",
    "scopes",
    "target_of",
]
