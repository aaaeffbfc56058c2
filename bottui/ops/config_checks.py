"""Every check of the user's files, in one list: ``bottui config check`` and the start warnings.

A checker takes the :class:`~bottui.store.paths.Locations` and returns the
problems it found, each with its file and line. :data:`CHECKERS` is the one
list both faces run, so a new kind of file (playbooks in the config
directory) is checked everywhere by adding its checker here.

The keymap is checked apart (:func:`keymap_problems`): it needs the TUI's
bindings, which only ``config check`` and the TUI itself load.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final, NamedTuple

from bottui.ops.keymap_check import KnownBinding, check_keymap
from bottui.plaintext import clean
from bottui.store.paths import Locations


class FileProblem(NamedTuple):
    """One problem of one file: where (line None when not known) and what."""

    path: Path
    line: int | None
    message: str

    @property
    def where(self) -> str:
        """``/home/me/.config/bottui/config.toml:12`` (the path alone without a line)."""
        return f"{self.path}:{self.line}" if self.line else str(self.path)


Checker = Callable[[Locations], list[FileProblem]]


def config_file_problems(locations: Locations) -> list[FileProblem]:
    """Unknown keys and wrong values of ``config.toml`` (no file: none)."""
    from bottui.store.config_check import check_config_file

    path = locations.config_file
    found = check_config_file(path)
    if found is None:
        return []
    return [FileProblem(path, p.line, p.message) for p in found.problems]


def playbook_problems(locations: Locations) -> list[FileProblem]:
    """Unknown keys, bad values and bad names of the playbook files (none: none)."""
    from bottui.ops.playbooks.library import check_playbooks

    return [FileProblem(p.path, p.line, p.message) for p in check_playbooks(locations)]


#: The checks of every file bottui reads, in the order they are reported.
CHECKERS: Final[list[Checker]] = [config_file_problems, playbook_problems]


def run_checkers(
    locations: Locations, checkers: Iterable[Checker] | None = None
) -> list[FileProblem]:
    """The problems every checker found, by file, then line.

    A checker that fails is a problem too (named, with its reason), so a
    broken check is never taken for a clean file.
    """
    problems: list[FileProblem] = []
    for checker in CHECKERS if checkers is None else checkers:
        try:
            problems += checker(locations)
        except Exception as exc:  # any failure of a check is reported, never raised
            name = getattr(checker, "__name__", "a check")
            problems.append(
                FileProblem(locations.config_dir, None, f"{name} failed: {clean(str(exc))}")
            )
    return problems


def keymap_problems(locations: Locations, bindings: Iterable[KnownBinding]) -> list[FileProblem]:
    """The ``[keymap]`` table's mistakes against the app's ``bindings``, on their lines."""
    from bottui.store.config_check import check_config_file

    path = locations.config_file
    found = check_config_file(path)
    if found is None:
        return []
    return [
        FileProblem(path, found.keymap_lines.get(m.binding_id), m.message)
        for m in check_keymap(found.keymap, bindings)
    ]


def summary(problems: list[FileProblem]) -> str:
    """One line for the start of a command: how many, the first, and where to see all."""
    count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return (
        f"warning: {count} in your config files: {first.where}: {first.message}{more}; "
        "bottui config check lists them"
    )


__all__ = [
    "CHECKERS",
    "Checker",
    "FileProblem",
    "config_file_problems",
    "keymap_problems",
    "run_checkers",
    "summary",
]
