"""Every key of bottui, read from the Textual ``BINDINGS`` of its screens and widgets,
and its four readers: the help screen, the command palette, the keymap check, the docs.

Nothing is declared twice: an action is a ``Binding`` with an ``id`` and a
description, next to the screen's other bindings, and appears in all readers at
once. A row action that needs a target (a limiter, a dimension, a project) names
the table that holds its targets in the screen's ``TARGETS`` (action -> table
class): the palette then asks with a picker instead of using the highlighted row.

A *scope* is a set of classes whose bindings are active together: the app's own
keys, each main screen with its widgets, each dialog with its widgets. The
screens are loaded (:mod:`bottui.tui.lazy`) when the registry is first read (the
help screen, the palette, the check), never on the way to the first frame.

**The help** (:func:`help_sections`) lists this screen's keys first, then the
app's, then navigation, with the user's keymap applied, so it shows the keys
that work, never the defaults a ``[keymap]`` replaced. Each key is listed once:
the first place that binds it wins (a screen's ``escape`` over a dialog's, the
bulk run's ``q`` over the app's). Every binding id of the app is listed, the
other screens' and dialogs' after the rest, for remapping in ``config.toml``.

**The palette** (:class:`ActionProvider`): one command per action of the app and
of the five main screens. A command switches to its screen and runs the action
there; an action that acts on a row (the screen's ``TARGETS``, or a table's own
Enter) first asks which row with a
:class:`~bottui.tui.screens.dialogs.TargetPicker`, and acts on the picked
row, never on the highlighted one.

**The keymap check** (:func:`known_bindings`): ``bottui config check`` and the
start-up toast (:func:`bottui.tui.app.keymap_toast`).

**The key reference** (:func:`binding_table`): the Markdown table of every
binding id, its default keys and what it does where (the docs' generated page
``docs/reference/keys.md``); ``docs/generate.py`` writes it and
``tests/test_docs.py`` fails when what is written differs from what the code
declares.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import Any, Final, NamedTuple

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from bottui.ops.config_checks import KnownBinding, normalize_key, split_keys
from bottui.plaintext import clean
from bottui.tui.lazy import load
from bottui.tui.widgets.untrusted_text import join, safe, safe_id

# -- the registry ----------------------------------------------------------------------

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
            # The table class holding the action's targets, if it needs one.
            target: type | None = getattr(owner, "TARGETS", {}).get(action)
            if target is None and action == "select_cursor":
                target = owner  # a table's own Enter acts on the row picked
            found.append(
                Action(
                    binding.id, binding.key, action, binding.description,
                    scope.name, owner, target, binding,
                )
            )  # fmt: skip
    return found


#: The main screens' scopes: the name (also the mode), then its classes by their
#: names in the lazy registry, the screen first.
_MAIN_SCOPES: Final = (
    ("projects", ("ProjectsScreen", "ProjectTable")),
    ("limiters", ("LimitersScreen", "LimiterTable")),
    ("grants", ("GrantsScreen",)),
    ("thresholds", ("ThresholdsScreen", "DimensionTable")),
    ("journal", ("JournalScreen", "JournalTable")),
    ("playbooks", ("PlaybooksScreen",)),
)

#: The dialogs' scopes: the name, the title (None: the screen's own ``SCREEN_TITLE``),
#: then its classes by their names in the lazy registry, the dialog first.
_DIALOG_SCOPES: Final[tuple[tuple[str, str | None, tuple[str, ...]], ...]] = (
    ("editor", "Threshold editor", ("ThresholdEditor", "Slider")),
    ("dialog", "Dialogs", ("ConfirmDialog",)),
    ("form", "Forms", ("ProjectForm",)),
    ("thresholds.dialog", "Threshold dialogs", ("AddDimensionDialog",)),
    ("journal.dialog", "Journal dialogs", ("EntryDialog",)),
    ("token", "Token dialog", ("TokenDialog",)),
    ("bulk", "Bulk revocation", ("BulkDialog", "BulkRunDialog")),
    ("bulk.export", "Export a bulk run", ("BulkExportDialog",)),
    ("dry_run", "Dry run", ("DryRunDialog",)),
    ("discard", "Discard changes?", ("DiscardDialog",)),
    ("errors", "Error log", ("ErrorLogScreen",)),
    ("journal.filter", "Journal filter", ("FilterDialog",)),
    ("journal.run", "Bulk run in the journal", ("RunDialog",)),
    ("profiles", "Profiles", ("ProfileSwitcher",)),
    ("picker", "Pick a row", ("TargetPicker",)),
    # The filter field of a table: its own Esc, known to the keymap check
    # (not listed in the screen's help: the screen's Esc row says it).
    ("filter", "Table filter", ("FilterInput",)),
    ("timed", None, ("TimedScreen",)),
    ("help", "Help", ("HelpDialog",)),
)


@cache
def scopes() -> tuple[Scope, ...]:
    """The app's scope, the five main screens', then the dialogs'."""
    app = Scope(APP_SCOPE, "Everywhere", None, (load("BottuiApp"),))
    main = [_scope(name, None, owners, name) for name, owners in _MAIN_SCOPES]
    dialogs = [_scope(name, title, owners, None) for name, title, owners in _DIALOG_SCOPES]
    return (app, *main, *dialogs)


def _scope(name: str, title: str | None, owners: tuple[str, ...], mode: str | None) -> Scope:
    classes = tuple(load(owner) for owner in owners)
    return Scope(name, title or classes[0].SCREEN_TITLE, mode, classes)


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


def first_actions() -> dict[str, Action]:
    """Every binding id -> its action (the first declaration of an id wins)."""
    found: dict[str, Action] = {}
    for action in all_actions():
        found.setdefault(action.binding_id, action)
    return found


def binding_ids() -> dict[str, str]:
    """Every binding id -> its default keys (the first declaration of an id wins)."""
    return {binding_id: action.keys for binding_id, action in first_actions().items()}


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


# -- the help --------------------------------------------------------------------------

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

    def listed(self, actions: Iterable[Action]) -> list[HelpRow]:
        """A row per action, its keys listed already elsewhere or not (keys not claimed)."""
        return [row for action in actions if (row := self.row(action, claim=False))]


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
    sections.append(HelpSection(f"{scope.title}: not available now", keys.listed(hidden)))
    for other in scopes():
        if other.name not in (scope.name, APP_SCOPE):
            rows = keys.listed(actions_of(other))
            sections.append(HelpSection(f"{other.title} (elsewhere)", rows))
    title = f"Everywhere but {scope.title} (its own key wins here)"
    sections.append(HelpSection(title, keys.listed(shadowed)))
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


# -- the command palette ---------------------------------------------------------------

#: What a row target is called in the picker's question, by table class name.
_TARGET_WORDS = {
    "LimiterTable": "rate limiter",
    "DimensionTable": "dimension",
    "ProjectTable": "project",
    "JournalTable": "journal entry",
}


class PaletteCommand(NamedTuple):
    """One palette entry: its title, its help line, what it runs."""

    title: str
    help: str
    run: Callable[[], None]
    binding_id: str


def commands(app: Any) -> list[PaletteCommand]:
    """Every action of the app and of the five main screens, once each."""
    found: list[PaletteCommand] = []
    for scope in main_scopes():
        seen: set[str] = set()
        for action in actions_of(scope):
            if not action.description or action.action in seen:
                continue  # a second key of one action (q, ctrl+q) is one command
            seen.add(action.action)
            found.append(_command(app, scope, action))
    return found


def _command(app: Any, scope: Scope, action: Action) -> PaletteCommand:
    words = clean(action.description)
    mapped = app.keymap_overrides.get(action.binding_id, action.keys)
    keys = " ".join(
        clean(app.get_key_display(action.binding.with_key(key))) for key in split_keys(mapped)
    )
    if scope.name == APP_SCOPE:
        title, where = words, "everywhere"
    else:
        title, where = f"{scope.title}: {words}", scope.title
    asks = ""
    if action.target is not None:
        title += "…"
        asks = f" · asks which {_TARGET_WORDS.get(action.target.__name__, 'row')}"
    help_text = f"key {keys} ({where}) · {action.binding_id}{asks}"
    return PaletteCommand(title, help_text, lambda: run(app, scope, action), action.binding_id)


def run(app: Any, scope: Scope, action: Action) -> None:
    """Run ``action`` on its screen (switching to it first), asking for its row."""
    if scope.name == APP_SCOPE:
        app.call_later(app.run_action, action.action)
        return
    app.action_show(scope.mode)
    app.call_after_refresh(lambda: app.run_worker(_act(app, action), group="palette"))


async def _act(app: Any, action: Action) -> None:
    screen = app.screen
    node: Any = screen if isinstance(screen, action.owner) else screen.query_one(action.owner)
    # A screen shown for the first time reads its rows in a worker: wait for
    # them (a second at most) before judging what is possible or asking which.
    for _ in range(20):
        rows = action.target is None or _table(screen, node, action).all_keyed_entries
        if rows and node.check_action(action.action, ()) is not False:
            break
        await asyncio.sleep(0.05)
    if node.check_action(action.action, ()) is False:
        app.notify(f"Not available here now: {clean(action.description)}", markup=False)
        return
    if action.target is None:
        await node.run_action(action.action)
        return
    table = _table(screen, node, action)
    # Every row, also those the table's filter hides: the picker has its own filter.
    rows = table.all_keyed_entries
    if not rows:  # the action says why (no project, nothing known yet)
        await node.run_action(action.action)
        return
    what = _TARGET_WORDS.get(action.target.__name__, "row")
    question = f"{clean(action.description)}: which {what}?"
    picker = load("TargetPicker")(question, [(key, describe(entry)) for key, entry in rows])

    async def picked(key: str | None) -> None:
        if key is None or key not in dict(table.all_keyed_entries):
            return
        if key not in dict(table.keyed_entries) and hasattr(screen, "clear_filter"):
            screen.clear_filter()  # the picked row is hidden: the action shows it
        if node is table:  # the table's own Enter: on the picked row, in view
            table.move_cursor(row=table.get_row_index(key), animate=False)
            await table.run_action(action.action)
            return
        with table.picked(key):
            await node.run_action(action.action)

    # Answered through ``picked``, not awaited here: this worker ends with the picker open.
    await app.push_screen(picker, picked)


def _table(screen: Any, node: Any, action: Action) -> Any:
    """The table holding the action's targets (the node itself for a table's own Enter)."""
    return node if isinstance(node, action.target or ()) else screen.query_one(action.target)


def describe(entry: object) -> Content:
    """One line naming a row's entry, every part as plain text."""
    name = getattr(entry, "name", None)
    tail = join("  ", safe(name)) if name else Content("")
    if hasattr(entry, "operation"):  # a journal entry
        parts = ("started_at", "operation", "project", "target")
        words = [safe(str(getattr(entry, part, ""))) for part in parts]
        return join(f"#{getattr(entry, 'id', '')} ", Content(" ").join(words))
    if hasattr(entry, "id"):  # a rate limiter, a dimension: with its state as known
        return join(safe_id(str(getattr(entry, "id", ""))), tail, _state_words(entry))
    if hasattr(entry, "account") and hasattr(entry, "project"):  # a project
        return join(safe_id(entry.account), " / ", safe_id(entry.project), tail)
    return safe(str(entry))


def _state_words(entry: object) -> Content:
    """``  · ON`` / ``  · OFF`` / ``  · state unknown`` of a limiter; a dimension's numbers."""
    if hasattr(entry, "is_active"):
        active = entry.is_active
        return Content(
            "  · state unknown" if active is None else f"  · {'ON' if active else 'OFF'}"
        )
    block, challenge = getattr(entry, "block", None), getattr(entry, "challenge", None)
    if block is None and challenge is None:
        return Content("")
    return join("  · block ", safe(str(block or "?")), ", challenge ", safe(str(challenge or "?")))


class ActionProvider(Provider):
    """The palette's source of bottui's commands (see the module docstring)."""

    async def discover(self) -> Hits:
        for command in commands(self.app):
            yield DiscoveryHit(command.title, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in commands(self.app):
            # The title or the binding id ("limiters.toggle") may match.
            score = max(matcher.match(command.title), matcher.match(command.binding_id) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(command.title), command.run, help=command.help)


# -- the key reference (docs) ----------------------------------------------------------

#: The table's header.
HEADER = "| binding id | default keys | what |\n|---|---|---|"


def binding_table() -> str:
    """Every binding id, once, as a Markdown table (ids and keys in code spans):
    its default keys and "Scope: description"."""
    titles = {scope.name: scope.title for scope in scopes()}
    lines = [HEADER]
    for binding_id, action in first_actions().items():
        keys = " ".join(f"`{key.strip()}`" for key in action.keys.split(",") if key.strip())
        words = action.description or action.action.replace("_", " ")
        what = f"{titles[action.scope]}: {words}".replace("|", "/")
        lines.append(f"| `{binding_id}` | {keys} | {what} |")
    return "\n".join(lines)
