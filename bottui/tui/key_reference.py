"""The TUI's key reference, made from the bindings themselves: docs cannot drift from them.

:func:`binding_table` is the Markdown table of every binding id, its default
keys and what it does where (the docs' generated page ``docs/reference/keys.md``);
``docs/generate.py`` writes it and ``tests/test_docs.py`` fails when what is
written differs from what the code declares.
"""

from __future__ import annotations

from bottui.tui.action_registry import all_actions, scopes

#: The table's header.
HEADER = "| binding id | default keys | what |\n|---|---|---|"


def _keys(keys: str) -> str:
    return " ".join(f"`{key.strip()}`" for key in keys.split(",") if key.strip())


def binding_rows() -> list[tuple[str, str, str]]:
    """(binding id, default keys, "Scope: description") of every binding, once each."""
    titles = {scope.name: scope.title for scope in scopes()}
    rows: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for action in all_actions():
        if action.binding_id in seen:
            continue
        seen.add(action.binding_id)
        words = action.description or action.action.replace("_", " ")
        rows.append((action.binding_id, action.keys, f"{titles[action.scope]}: {words}"))
    return rows


def binding_table() -> str:
    """Every binding id as a Markdown table (ids and keys in code spans)."""
    lines = [HEADER]
    for binding_id, keys, what in binding_rows():
        lines.append(f"| `{binding_id}` | {_keys(keys)} | {what.replace('|', '/')} |")
    return "\n".join(lines)


__all__ = ["binding_rows", "binding_table"]
