"""The playbooks of a session's config directory, read off the event loop.

Reading a file is blocking work: every read here is awaited on the store
executor's general lane, so the TUI never waits on a slow disk. Both faces
use these; :func:`check_playbooks` is what ``bottui config check`` calls,
and every CLI command's start: so the executor (and asyncio) is imported
only where a read is awaited.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bottui.ops.playbooks.schema import Playbook, playbook
from bottui.store import playbook_files
from bottui.store.files import Locations
from bottui.store.playbook_files import PlaybookFileError


@dataclass(frozen=True)
class PlaybookProblem:
    """A problem ``check`` found: the file, its line when known, and what is wrong."""

    path: Path
    line: int | None
    message: str

    def text(self) -> str:
        """``FILE:LINE: message`` (not cleaned)."""
        where = f"{self.path}:{self.line}" if self.line is not None else str(self.path)
        return f"{where}: {self.message}"


def directory(locations: Locations) -> Path:
    """Where the playbooks of ``locations`` live."""
    return playbook_files.playbook_dir(locations)


def read_playbook(locations: Locations, name: str) -> Playbook:
    """Read and check ``NAME.toml`` (blocking: call from a thread or before a loop).

    Raises:
        PlaybookFileError: with the file and line of the first problem.
    """
    return playbook(playbook_files.read(directory(locations), name))


async def load(locations: Locations, name: str) -> Playbook:
    """:func:`read_playbook`, awaited off the event loop."""
    from bottui.store.executor import shared_executor

    return await shared_executor().call(lambda: read_playbook(locations, name))


async def load_all(locations: Locations) -> list[Playbook | PlaybookFileError]:
    """Every playbook in the directory, by name; one that cannot be used is its error."""
    from bottui.store.executor import shared_executor

    def read_all() -> list[Playbook | PlaybookFileError]:
        found: list[Playbook | PlaybookFileError] = []
        for name in playbook_files.list_names(directory(locations)):
            try:
                found.append(read_playbook(locations, name))
            except PlaybookFileError as exc:
                found.append(exc)
        return found

    return await shared_executor().call(read_all)


def check_playbooks(locations: Locations) -> list[PlaybookProblem]:
    """Every problem of every playbook file of ``locations`` (blocking; ``config check``).

    A file whose name cannot be a playbook name is a problem too. Whether
    the ids are known to the inventory is not checked here (that needs a
    profile): ``playbook show`` and ``run`` do it.
    """
    where = directory(locations)
    problems = [
        PlaybookProblem(path, None, "the name is not a playbook name (letters, digits, . _ -)")
        for path in playbook_files.invalid_file_names(where)
    ]
    for name in playbook_files.list_names(where):
        try:
            read_playbook(locations, name)
        except PlaybookFileError as exc:
            problems.append(PlaybookProblem(exc.path, exc.line, exc.reason))
    return problems


__all__ = [
    "PlaybookProblem",
    "check_playbooks",
    "directory",
    "load",
    "load_all",
    "read_playbook",
]
