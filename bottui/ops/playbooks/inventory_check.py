"""Whether the inventory knows every id the playbooks name: ``config check``'s warnings.

``playbook run`` refuses a step whose id the inventory has never seen in the
playbook's project (:mod:`bottui.ops.playbooks.planning`). On a fresh set-up
that is every step of the docs' own example (``docs/playbooks.md``), while
the file itself is clean; ``config check`` says so as a warning (not a problem: the file is
right, the inventory has not learnt yet), with the same words ``run`` would
refuse with. A playbook whose project cannot be told (neither the file nor
the profile names one) is not checked. Nothing is written: with no inventory
file yet, every id is unseen and no file is created.
"""

from __future__ import annotations

from bottui.api.errors import BottuiError
from bottui.ops.playbooks import library
from bottui.ops.playbooks.library import PlaybookProblem
from bottui.ops.playbooks.planning import plan_playbook, unseen_words
from bottui.ops.playbooks.schema import Playbook
from bottui.ops.session import Session


async def unseen_steps(session: Session) -> list[PlaybookProblem]:
    """A warning per step whose id ``session``'s inventory has never seen (by file, line)."""
    found: list[PlaybookProblem] = []
    for book in await library.load_all(session.locations):
        if isinstance(book, BaseException):
            continue  # its problem is reported by check_playbooks
        found += await _unseen_of(session, book)
    return found


async def _unseen_of(session: Session, book: Playbook) -> list[PlaybookProblem]:
    account = book.account or session.settings.account
    project = book.project or session.settings.project
    if not account or not project:
        return []
    if not session.locations.inventory_file.exists():
        return [PlaybookProblem(book.path, s.line, unseen_words(s, project)) for s in book.steps]
    try:
        plan = await plan_playbook(session, book, account, project, strict=False)
    except BottuiError:
        return []  # a step the API would refuse: check_playbooks or show says it
    return [
        PlaybookProblem(book.path, s.step.line, s.unseen)
        for s in plan.steps
        if s.unseen is not None
    ]


__all__ = ["unseen_steps"]
