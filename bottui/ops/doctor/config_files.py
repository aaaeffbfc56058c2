"""config.toml and its keymap: every unknown key, wrong value and keymap mistake.

The same findings as ``bottui config check`` on config.toml
(:func:`bottui.ops.config_checks.config_file_problems` and
:func:`~bottui.ops.config_checks.keymap_problems`), one line each with its line
number. The TUI's bindings come from the caller: ops cannot import the TUI.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from bottui.ops.config_checks import (
    CheckedFiles,
    FileProblem,
    config_file_problems,
    keymap_problems,
)
from bottui.ops.doctor.model import Check, Verdict
from bottui.ops.keymap_check import KnownBinding
from bottui.store.paths import Locations

_TITLE: Final = "Config and keymap"
#: Problems listed one per line; more are counted.
SHOWN_PROBLEMS: Final = 10


def check_config(
    locations: Locations, bindings: Iterable[KnownBinding], load_error: str | None = None
) -> Check:
    """Check config.toml (``bottui config check``'s findings on it, summarised).

    A file bottui cannot load (``load_error``: not TOML, a value of the wrong
    type) stops every command that reads it: a problem. Unknown keys and
    keymap mistakes are ignored with a warning at start: a warning here too.
    """
    files = CheckedFiles(locations)
    path = locations.config_file
    found = files.config
    if found is None:
        return Check(
            "config",
            _TITLE,
            Verdict.SKIPPED,
            f"{path}: no config file yet, defaults apply",
            "bottui profile add NAME --base-url URL creates it",
        )
    problems = config_file_problems(files) + keymap_problems(files, bindings)
    problems.sort(key=lambda p: p.line or 0)
    if load_error is not None and not problems:
        problems.append(FileProblem(path, None, load_error))
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
