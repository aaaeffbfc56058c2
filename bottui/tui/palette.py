"""The command palette's bottui commands: every action of every screen, from the registry.

One command per action of the app and of the five main screens, read from
:mod:`bottui.tui.action_registry` (the same registry as the help screen),
so a new ``Binding`` with an id and a description is in the palette at once.
A command switches to its screen and runs the action there; an action that
acts on a row (the screen's ``TARGETS``, or a table's own Enter) first asks
which row with a :class:`~bottui.tui.screens.target_picker.TargetPicker`,
and acts on the picked row, never on the highlighted one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, NamedTuple

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from bottui.ops.config_checks import split_keys
from bottui.plaintext import clean
from bottui.tui.action_registry import APP_SCOPE, Action, Scope, actions_of, main_scopes
from bottui.tui.widgets.safe import join, safe, safe_id

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
    from bottui.tui.screens.target_picker import TargetPicker

    what = _TARGET_WORDS.get(action.target.__name__, "row")
    question = f"{clean(action.description)}: which {what}?"
    picker = TargetPicker(question, [(key, describe(entry)) for key, entry in rows])

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


__all__ = ["ActionProvider", "PaletteCommand", "commands", "describe", "run"]
