"""``bottui config check``: every problem of config.toml and its keymap, by line.

Unknown keys (a misspelt ``protect`` for ``protected``), every value of the
wrong type, the files of every checker of
:data:`bottui.ops.config_checks.CHECKERS`, and the ``[keymap]`` table
against the TUI's bindings: a misspelt binding id, a key that is not a key,
a key bound twice in one place (the same check and words as the TUI's
start-up toast). Exit 0 when clean, 2
when a problem is found (CONVENTIONS: refused before sending, invalid values).

Warnings do not change the exit code: a playbook step whose id the
profile's inventory has never seen (``playbook run`` refuses it until the
inventory learns it; :mod:`bottui.ops.playbooks.playbook_plan`).
Every other command warns in one line at its start
(:func:`bottui.cli.command_session.warn_at_start`).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from bottui.api.errors import EXIT_OK, EXIT_REFUSED, BottuiError
from bottui.cli.apps import known_bindings
from bottui.cli.output import Output
from bottui.cli.parser import Args, command, group_of
from bottui.ops.config_checks import CheckedFiles, FileProblem, keymap_problems, run_checkers
from bottui.ops.playbooks.library import PlaybookProblem
from bottui.ops.playbooks.playbook_plan import unseen_steps
from bottui.ops.session import session_from_options
from bottui.store.config.config_file import ConfigStore
from bottui.store.files import Locations


def cmd_config(args: Args, out: Output) -> int:
    """``bottui config check``."""
    files = CheckedFiles(Locations.default())
    path = files.locations.config_file
    found = files.config
    # Every checker (config.toml, and any other file registered in CHECKERS), then the keymap.
    problems = run_checkers(files)
    if found is not None:
        problems += keymap_problems(files, known_bindings())
    # config.toml's by line first; each other file's as its checker gave them.
    problems.sort(key=lambda p: (p.path != path, (p.line or 0) if p.path == path else 0))
    warnings = _playbook_warnings(args, files.locations)
    lines = [] if found is not None else [f"{path}: no such file, nothing to check"]
    lines += [f"{problem.where}: {problem.message}" for problem in problems]
    for warning in warnings:
        where = f"{warning.path}:{warning.line}" if warning.line else str(warning.path)
        lines.append(f"{where}: warning: {warning.message}")
    doc = {
        "file": str(path),
        "exists": found is not None,
        "problems": [_json(p) for p in problems],
        "count": len(problems),
        "warnings": [_json(w) for w in warnings],
    }
    out.result(doc, lines)
    said = f" ({len(warnings)} warning{'s' if len(warnings) != 1 else ''})" if warnings else ""
    if problems:
        out.message(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found{said}")
        return EXIT_REFUSED
    if found is not None:
        keys = len(found.keymap)
        out.message(f"{path}: no problems ({keys} keymap entr{'y' if keys == 1 else 'ies'}){said}")
    elif said:
        out.message(f"no problems{said}")
    return EXIT_OK


def _json(problem: FileProblem | PlaybookProblem) -> dict[str, Any]:
    return {"file": str(problem.path), "line": problem.line, "message": problem.message}


def _playbook_warnings(args: Args, locations: Locations) -> list[PlaybookProblem]:
    """Steps whose ids the profile's inventory never saw; none when no profile resolves."""
    try:
        session = session_from_options(locations, ConfigStore(locations).load(), args)
    except BottuiError:
        return []  # no profile to check against: the problems above say why, if any

    async def check() -> list[PlaybookProblem]:
        try:
            return await unseen_steps(session)
        finally:
            await session.aclose()

    try:
        return asyncio.run(check())
    except BottuiError:
        return []


def _add_config(commands: Any) -> None:
    config_cmds = group_of(
        commands,
        "config",
        examples=["bottui config check", "bottui config check --json"],
        exits=[0, 2],
    )
    command(
        config_cmds,
        "check",
        "every unknown key, wrong value and keymap mistake, by line",
        examples=["bottui config check", "bottui config check --json"],
        exits=[(0, "no problems, or no config file"), (2, "problems found (each printed)")],
        common={"json"},
    )


#: Each command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"config": _add_config}
