"""Inventory edits both faces share: what the operator adds, renames, forgets or imports.

The API lists nothing, so the operator teaches bottui its ids: the TUI's
Projects, Rate limiters and Thresholds screens add, rename and forget
projects, limiters and dimensions; ``bottui inventory import`` merges a file.
Nothing here is sent to the API. Every edit is awaited on the session's
:class:`~bottui.store.inventory.inventory_store.SqliteInventoryStore` (off the event loop).

What is entered is checked here, and refused with
:class:`~bottui.api.errors.ValidationError` (exit 2; a form shows it under
the field): a new id becomes exactly one path segment
(:func:`bottui.api.requests.path_id`), a display name holds no control
character (a project's at most :data:`NAME_MAX` characters; a dimension's
is required, the PUT sends it). Forgetting checks nothing: it names a
record already stored. The forms call the same ``check_*`` functions as the
operator types.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from bottui.api.errors import ValidationError
from bottui.api.requests import dimension_name, first_forbidden_char, path_id
from bottui.ops import team_facts
from bottui.ops.inventory_reads import read_all_dimensions, read_all_limiters

if TYPE_CHECKING:
    from bottui.ops.session import Session
    from bottui.store.inventory.inventory_records import DimensionEntry, MergeReport

#: The longest display name a project keeps.
NAME_MAX: Final = 200


# -- checks (no I/O: a form calls them as the operator types) ---------------------------


def check_project_ids(account: str, project: str) -> tuple[str, str]:
    """The ids of a new project; ValidationError (``account id``/``project id``) if not."""
    return path_id("account id", account), path_id("project id", project)


def check_display_name(value: str) -> str | None:
    """A project's display name to store (``None`` when blank), trimmed.

    Raises:
        ValidationError: field ``display name``.
    """
    text = value.strip()
    if not text:
        return None
    if first_forbidden_char(text) is not None:
        raise ValidationError("display name", "contains a control character")
    if len(text) > NAME_MAX:
        raise ValidationError("display name", f"is longer than {NAME_MAX} characters")
    return text


def check_limiter_name(value: str) -> str | None:
    """A rate limiter's optional name (``None`` when empty), as typed.

    Raises:
        ValidationError: field ``name``.
    """
    bad = first_forbidden_char(value)
    if bad is not None:
        raise ValidationError("name", f"contains a control character (U+{ord(bad):04X})")
    return value or None


def check_dimension(dimension_id: str, name: str) -> tuple[str, str]:
    """A new dimension's id and its (required) name; ValidationError if not."""
    return path_id("dimension id", dimension_id), dimension_name(name)


# -- projects -----------------------------------------------------------------------------


async def add_project(session: Session, account: str, project: str, name: str | None) -> None:
    """Add a project to the inventory (or name it, if known)."""
    account, project = check_project_ids(account, project)
    shown = check_display_name(name) if name is not None else None
    await session.inventory_store.add_project(account, project, shown)
    await team_facts.share(session, team_facts.added(account, project, "project", "", shown))


async def rename_project(session: Session, account: str, project: str, name: str | None) -> None:
    """Give a known project another display name (``None``: none)."""
    shown = check_display_name(name) if name is not None else None
    await session.inventory_store.rename_project(account, project, shown)
    await team_facts.share(session, team_facts.renamed(account, project, shown))


async def forget_project(session: Session, account: str, project: str) -> None:
    """Remove a project and its limiters and dimensions from the inventory."""
    facts = team_facts.removed(account, project, "project", "")
    if team_facts.store_key(session) is not None:
        # Its limiters and dimensions are forgotten for the team too (read before they go).
        for limiter in await read_all_limiters(session, account, project):
            facts += team_facts.removed(account, project, "limiter", limiter.id)
        for dimension in await read_all_dimensions(session, account, project):
            facts += team_facts.removed(account, project, "dimension", dimension.id)
    await session.inventory_store.remove_project(account, project)
    await team_facts.share(session, facts)


# -- rate limiters ------------------------------------------------------------------------


async def add_limiter(
    session: Session, account: str, project: str, limiter_id: str, name: str | None
) -> None:
    """Add a rate limiter id (and optional name) to a project."""
    path_id("rate limiter id", limiter_id)
    shown = check_limiter_name(name) if name is not None else None
    await session.inventory_store.add_limiter(account, project, limiter_id, shown)
    await team_facts.share(
        session, team_facts.added(account, project, "limiter", limiter_id, shown)
    )


async def forget_limiter(session: Session, account: str, project: str, limiter_id: str) -> None:
    """Remove a rate limiter from the inventory (the service keeps it)."""
    await session.inventory_store.remove_limiter(account, project, limiter_id)
    await team_facts.share(session, team_facts.removed(account, project, "limiter", limiter_id))


# -- dimensions ---------------------------------------------------------------------------


async def add_dimension(
    session: Session, account: str, project: str, dimension_id: str, name: str
) -> DimensionEntry | None:
    """Add a dimension to a project; the record as stored (``None`` if it vanished)."""
    check_dimension(dimension_id, name)
    inventory = session.inventory_store
    await inventory.add_dimension(account, project, dimension_id, name)
    await team_facts.share(
        session, team_facts.added(account, project, "dimension", dimension_id, name)
    )
    return await inventory.dimension(account, project, dimension_id)


async def forget_dimension(session: Session, account: str, project: str, dimension_id: str) -> None:
    """Remove a dimension from the inventory (the service keeps its thresholds)."""
    await session.inventory_store.remove_dimension(account, project, dimension_id)
    await team_facts.share(session, team_facts.removed(account, project, "dimension", dimension_id))


# -- files --------------------------------------------------------------------------------


async def import_file(session: Session, path: Path) -> MergeReport:
    """Merge a TOML inventory file (``-``: stdin) into the profile's; what changed."""
    return await session.inventory_store.import_toml(Path(path))
