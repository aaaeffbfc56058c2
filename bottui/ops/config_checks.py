"""Every check of the user's files, in one list: ``bottui config check`` and the start warnings.

A checker takes the :class:`CheckedFiles` of one run (the
:class:`~bottui.store.paths.Locations`, and config.toml read and checked at
most once, whoever asks) and returns the problems it found, each with its
file and line. :data:`CHECKERS` is the one
list both faces run, so a new kind of file (playbooks in the config
directory) is checked everywhere by adding its checker here.

The keymap is checked apart (:func:`keymap_problems`): it needs the TUI's
bindings, which only ``config check`` and the TUI itself load.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from bottui.ops.keymap_check import KnownBinding, check_keymap
from bottui.plaintext import clean
from bottui.store.paths import Locations

if TYPE_CHECKING:
    from bottui.store.config.parse import ConfigCheck


class FileProblem(NamedTuple):
    """One problem of one file: where (line None when not known) and what."""

    path: Path
    line: int | None
    message: str

    @property
    def where(self) -> str:
        """``/home/me/.config/bottui/config.toml:12`` (the path alone without a line)."""
        return f"{self.path}:{self.line}" if self.line else str(self.path)


class CheckedFiles:
    """The files of one run of the checkers: config.toml is read and checked once, when asked."""

    def __init__(self, locations: Locations) -> None:
        self.locations = locations

    @cached_property
    def config(self) -> ConfigCheck | None:
        """What :func:`~bottui.store.config.parse.check_config_file` found (no file: None)."""
        from bottui.store.config.parse import check_config_file

        return check_config_file(self.locations.config_file)


Checker = Callable[[CheckedFiles], list[FileProblem]]


def config_file_problems(files: CheckedFiles) -> list[FileProblem]:
    """Unknown keys and wrong values of ``config.toml`` (no file: none)."""
    found = files.config
    if found is None:
        return []
    return [FileProblem(files.locations.config_file, p.line, p.message) for p in found.problems]


def playbook_problems(files: CheckedFiles) -> list[FileProblem]:
    """Unknown keys, bad values and bad names of the playbook files (none: none)."""
    from bottui.ops.playbooks.library import check_playbooks

    found = check_playbooks(files.locations)
    return [FileProblem(p.path, p.line, p.message) for p in found]


#: The checks of every file bottui reads, in the order they are reported.
CHECKERS: Final[list[Checker]] = [config_file_problems, playbook_problems]


def run_checkers(files: CheckedFiles) -> list[FileProblem]:
    """The problems every checker of :data:`CHECKERS` found, by file, then line.

    A checker that fails is a problem too (named, with its reason), so a
    broken check is never taken for a clean file.
    """
    problems: list[FileProblem] = []
    for checker in CHECKERS:
        try:
            problems += checker(files)
        except Exception as exc:  # any failure of a check is reported, never raised
            name = getattr(checker, "__name__", "a check")
            problems.append(
                FileProblem(files.locations.config_dir, None, f"{name} failed: {clean(str(exc))}")
            )
    return problems


def keymap_problems(files: CheckedFiles, bindings: Iterable[KnownBinding]) -> list[FileProblem]:
    """The ``[keymap]`` table's mistakes against the app's ``bindings``, on their lines."""
    found = files.config
    if found is None:
        return []
    return [
        FileProblem(files.locations.config_file, found.keymap_lines.get(m.binding_id), m.message)
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
    "CheckedFiles",
    "Checker",
    "FileProblem",
    "config_file_problems",
    "keymap_problems",
    "run_checkers",
    "summary",
]
