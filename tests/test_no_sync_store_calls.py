"""No face and no op calls a store synchronously (#11, fault 2).

Every journal and inventory call under ``bottui/ops``, ``bottui/tui`` and
``bottui/cli`` awaits ``session.journal_store`` / ``session.inventory_store``
(one async facade over the store executor's daemon threads). This walks their
syntax trees and fails on what would block an event loop: the synchronous
``session.journal`` / ``session.inventory``, constructing or importing the
synchronous ``Journal`` / ``Inventory`` classes, ``run_in_daemon`` and
``asyncio.to_thread`` (whose threads are joined at exit).

Config edits too: every edit of ``config.toml`` (a profile added, used or
removed, the theme, a project's threshold settings) is awaited on
``AsyncConfigStore`` through :mod:`bottui.ops.profiles`. An edit method
named in :data:`CONFIG_EDITS` that is not awaited right where it is named
(called synchronously on a ``ConfigStore``, or handed on as a callback to
be called later) fails, and so does writing the file by hand (``render`` or
``write_atomic`` of ``bottui.store.config.config_file``). A synchronous *read*
(``ConfigStore(...).load()``) before the event loop runs is allowed: the CLI
and the TUI start that way.

The change flows that #11's ``PlannedChange`` rewrite owns are allowed the
synchronous journal until that rewrite lands (:data:`PENDING`), each named.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent / "bottui"
LAYERS: Final = ("ops", "tui", "cli")
#: Synchronous store classes, by the module that defines them.
SYNC_CLASSES: Final = {
    "bottui.store.journal.journal_file": "Journal",
    "bottui.store.inventory.inventory_file": "Inventory",
}
#: Files exempt from the rule (none: every caller awaits the facades).
PENDING: Final = frozenset[str]()
#: The edits of ``ConfigStore`` / ``AsyncConfigStore``: only ever ``await x.edit(...)``.
CONFIG_EDITS: Final = frozenset(
    {
        "add_profile",
        "remove_profile",
        "use",
        "set_theme",
        "set_project_settings",
        "set_defaults",
        "save",
    }
)


def _awaited_calls(tree: ast.AST) -> set[int]:
    """ids of the function nodes of every ``await f(...)``."""
    return {
        id(node.value.func)
        for node in ast.walk(tree)
        if isinstance(node, ast.Await) and isinstance(node.value, ast.Call)
    }


def _problems(path: Path) -> list[str]:
    rel = path.relative_to(ROOT).as_posix()
    if rel in PENDING:
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    awaited = _awaited_calls(tree)

    def say(node: ast.AST, what: str) -> None:
        found.append(f"{rel}:{getattr(node, 'lineno', '?')}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr in ("journal", "inventory"):
                say(node, f".{node.attr} (await .{node.attr}_store instead)")
            if node.attr == "to_thread":
                say(node, "asyncio.to_thread (store.executor.run_blocking)")
            if node.attr == "run_in_daemon":
                say(node, "run_in_daemon (store.executor.run_blocking)")
            if node.attr in CONFIG_EDITS and id(node) not in awaited:
                say(node, f".{node.attr} not awaited: a synchronous config edit (ops.profiles)")
        elif isinstance(node, ast.Name):
            if node.id in ("run_in_daemon", "to_thread"):
                say(node, node.id)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in ("Journal", "Inventory"):
                say(node, f"{name}(...) constructed")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = {alias.name for alias in node.names}
            cls = SYNC_CLASSES.get(module)
            if cls is not None and cls in names:
                say(node, f"imports {module}.{cls}")
            if module == "bottui.ops.daemon" or (module == "bottui.ops" and "daemon" in names):
                say(node, "imports bottui.ops.daemon")
            if module == "asyncio" and "to_thread" in names:
                say(node, "imports asyncio.to_thread")
            if module == "bottui.store.config.config_file" and names & {"render", "write_atomic"}:
                say(node, "imports config_file's writers (config edits: ops.profiles)")
    return found


def _files() -> list[Path]:
    return sorted(p for layer in LAYERS for p in (ROOT / layer).rglob("*.py"))


def test_no_synchronous_store_use_in_ops_tui_cli() -> None:
    problems = [problem for path in _files() for problem in _problems(path)]
    assert problems == []


def test_the_walk_finds_each_forbidden_form(tmp_path: Path) -> None:
    # The checker itself: each form it must catch, in a file it reads as ours.
    sample = ROOT / "ops" / "_sample_for_test.py"
    forms = {
        "x = session.journal": ".journal",
        "x = self.services.session.inventory": ".inventory",
        "import asyncio\nasyncio.to_thread(f)": "to_thread",
        "from bottui.ops.daemon import run_in_daemon": "daemon",
        "from bottui.store.journal.journal_file import Journal": "journal_file.Journal",
        "from bottui.store.inventory.inventory_file import Inventory": "inventory_file.Inventory",
        "Journal(path)": "constructed",
        "store.Inventory(path, 'p')": "constructed",
        # Config edits: called synchronously, handed on as a callback, or by hand.
        "ConfigStore(locations).set_theme('nord')": ".set_theme not awaited",
        "store.add_profile(profile)": ".add_profile not awaited",
        "run_blocking(lambda: store.use('p'))": ".use not awaited",
        "App(remember_theme=store.set_theme)": ".set_theme not awaited",
        "ConfigStore(locations).set_project_settings('p', 'a', 'b', s)": "set_project_settings",
        "store.remove_profile('p')": ".remove_profile not awaited",
        "profiles.save(config)": ".save not awaited",
        "from bottui.store.config.config_file import write_atomic": "config_file's writers",
        "from bottui.store.config.config_file import render": "config_file's writers",
    }
    try:
        for source, expected in forms.items():
            sample.write_text(source + "\n", encoding="utf-8")
            problems = _problems(sample)
            assert any(expected in p for p in problems), (source, problems)
        sample.write_text(
            "from bottui.store.journal.journal_records import JournalEntry\n"
            "x = await session.journal_store.page()\n"
            "config = ConfigStore(locations).load()\n"
            "await session.config_store.set_theme('nord')\n"
            "await profiles.add_profile(store, profile)\n",
            encoding="utf-8",
        )
        assert _problems(sample) == []
    finally:
        sample.unlink(missing_ok=True)
