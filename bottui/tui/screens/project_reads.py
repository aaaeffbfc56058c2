"""The Projects screen's reads of the inventory: unchanged, a first page, the rest, or all.

The screen may list thousands of projects (issue #12). A read first asks the
inventory's marker (:func:`~bottui.ops.inventory_reads.inventory_version`):
the one of the rows shown means nothing changed, and nothing is read. A
screen with no rows yet reads a first page, shown before the rest is read;
a screen with rows reads them all again, to update them in place.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple

from textual.content import Content

from bottui.ops.inventory_reads import first_projects, inventory_version, read_all_projects
from bottui.ops.session import Session
from bottui.store.inventory.records import ProjectEntry
from bottui.store.paging import Cursor
from bottui.tui.error_report import EXPECTED_ERRORS, error_line
from bottui.tui.widgets.project_table import ProjectRow

PROBLEM = "The inventory cannot be read: "


class ProjectsRead(NamedTuple):
    """What a read of the inventory found."""

    #: The inventory's marker before the read (None: unknown).
    version: Hashable | None
    #: The rows read; None: the inventory has not changed since the rows shown.
    rows: list[ProjectRow] | None
    problem: Content | None
    #: Where the rest begins when only a first page was read.
    after: Cursor | None


def _rows(entries: tuple[ProjectEntry, ...] | list[ProjectEntry]) -> list[ProjectRow]:
    return [ProjectRow(e.account, e.project, e.name) for e in entries]


async def read_projects(session: Session, *, whole: bool, shown: Hashable | None) -> ProjectsRead:
    """Nothing if the marker is ``shown``; else every project if ``whole``, or a first page."""
    try:
        version = await inventory_version(session)
        if version is not None and version == shown:
            return ProjectsRead(version, None, None, None)
        if whole:
            return ProjectsRead(version, _rows(await read_all_projects(session)), None, None)
        page = await first_projects(session)
    except EXPECTED_ERRORS as exc:
        return ProjectsRead(None, [], error_line(PROBLEM, exc), None)
    return ProjectsRead(version, _rows(page.items), None, page.next)


async def read_rest(session: Session, first: ProjectsRead) -> ProjectsRead:
    """The first page's rows and the rest after them (its marker: the first page's)."""
    rows = first.rows or []
    try:
        rest = await read_all_projects(session, after=first.after)
    except EXPECTED_ERRORS as exc:
        return ProjectsRead(None, rows, error_line(PROBLEM, exc), None)
    return ProjectsRead(first.version, rows + _rows(rest), None, None)


__all__ = ["ProjectsRead", "read_projects", "read_rest"]
