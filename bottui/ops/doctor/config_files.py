"""config.toml and its keymap: every unknown key, wrong value and keymap mistake.

The same findings as ``bottui config check``
(:func:`bottui.store.config_check.check_config_file` and
:func:`bottui.ops.keymap_check.check_keymap`), one line each with its line
number. The TUI's bindings come from the caller: ops cannot import the TUI.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Final

from bottui.ops.doctor.model import Check, Verdict
from bottui.ops.keymap_check import KnownBinding, check_keymap
from bottui.store.config_check import ConfigProblem, check_config_file

_TITLE: Final = "Config and keymap"
#: Problems listed one per line; more are counted.
SHOWN_PROBLEMS: Final = 10


def check_config(
    path: Path, bindings: Iterable[KnownBinding], load_error: str | None = None
) -> Check:
    """Check ``path`` (``bottui config check``'s findings, summarised).

    A file bottui cannot load (``load_error``: not TOML, a value of the wrong
    type) stops every command that reads it: a problem. Unknown keys and
    keymap mistakes are ignored with a warning at start: a warning here too.
    """
    found = check_config_file(path)
    if found is None:
        return Check(
            "config",
            _TITLE,
            Verdict.SKIPPED,
            f"{path}: no config file yet, defaults apply",
            "bottui profile add NAME --base-url URL creates it",
        )
    problems = list(found.problems)
    for mistake in check_keymap(found.keymap, bindings):
        problems.append(ConfigProblem(found.keymap_lines.get(mistake.binding_id), mistake.message))
    problems.sort(key=lambda p: p.line or 0)
    if load_error is not None and not problems:
        problems.append(ConfigProblem(None, load_error))
    keys = len(found.keymap)
    if not problems:
        return Check(
            "config",
            _TITLE,
            Verdict.OK,
            f"{path}: valid ({keys} keymap entr{'y' if keys == 1 else 'ies'})",
        )
    lines = [f"line {p.line}: {p.message}" if p.line else p.message for p in problems]
    if len(lines) > SHOWN_PROBLEMS:
        lines = [*lines[:SHOWN_PROBLEMS], f"... and {len(lines) - SHOWN_PROBLEMS} more"]
    count = f"{len(problems)} mistake{'s' if len(problems) != 1 else ''}"
    if load_error is not None:
        return Check(
            "config",
            _TITLE,
            Verdict.PROBLEM,
            "\n".join([f"{path}: cannot be loaded, {count}", *lines]),
            "fix it (bottui config check lists each with its line), or move it aside",
        )
    return Check(
        "config",
        _TITLE,
        Verdict.WARNING,
        "\n".join([f"{path}: {count}, ignored with a warning at start", *lines]),
        "bottui config check lists each with its line; fix them, or move the file aside",
    )


__all__ = ["SHOWN_PROBLEMS", "check_config"]
