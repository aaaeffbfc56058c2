"""Plan a playbook once, before anything is sent; and say which ids the inventory has not seen.

:func:`plan_playbook` plans every step; :func:`unseen_steps` is ``config
check``'s warning for the ids of every playbook.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from bottui.api.client import build_thresholds
from bottui.api.errors import BottuiError, RefusedError, ValidationError
from bottui.ops import planning
from bottui.ops.confirmation import Confirmation
from bottui.ops.journal_view import value_text
from bottui.ops.planning import PlannedChange
from bottui.ops.playbooks.library import (
    LimiterStep,
    Playbook,
    PlaybookFileError,
    PlaybookProblem,
    Step,
    load_all,
)
from bottui.ops.session import Session
from bottui.ops.thresholds import check_rules

# Plan a playbook once: every step through :mod:`bottui.ops.planning`, before anything is sent.
#
# Each step becomes a :class:`~bottui.ops.planning.PlannedChange` (the exact
# request, the value the inventory knew, the confirmation rule), so the
# table a face shows, the dry run and the run itself share one plan.
#
# An id the inventory has never seen in the playbook's project (or whose
# value it does not know) is refused here, with the file and line of its
# step: a step whose value before is unknown could never be reverted, and a
# typo found after half a playbook has run is the worst time to find it.
# Showing is not running: ``playbook show`` and ``config check`` plan with
# ``strict=False``, where such a step is planned anyway and carries the same
# words in :attr:`PlannedStep.unseen` (said as a warning; ``run`` refuses it).


class PlannedStep(msgspec.Struct, frozen=True):
    """One step, planned: its change, and the texts of its row in the plan table."""

    step: Step
    change: PlannedChange[Any]
    warnings: tuple[str, ...] = ()
    #: Why ``run`` would refuse this step (an id the inventory never saw), when
    #: planned with ``strict=False``; None: known.
    unseen: str | None = None

    @property
    def number(self) -> int:
        """1-based, as the file orders it."""
        return self.step.number

    @property
    def target(self) -> str:
        """``limiter rl-login`` (not cleaned)."""
        return self.step.target_text

    @property
    def known(self) -> str:
        """The value before, as the inventory knew it (``ON``, ``Bot score: …``)."""
        previous = self.change.previous
        return previous.text if previous is not None else "unknown"

    @property
    def new(self) -> str:
        """The value the step gives."""
        target = self.change.target
        if isinstance(target, planning.LimiterTarget):
            return "ON" if target.is_active else "OFF"
        if isinstance(target, planning.ThresholdsTarget):
            return value_text(target.thresholds.record())
        return "?"

    @property
    def source(self) -> str:
        """How the inventory learnt the value before, and when."""
        previous = self.change.previous
        if previous is None:
            return ""
        return f"{previous.source}, {previous.when} UTC"

    def to_json(self) -> dict[str, Any]:
        """One row of the plan (``--json``)."""
        return {
            "step": self.number,
            "target": self.target,
            "known": self.change.previous_json,
            "knownText": self.known,
            "new": self.new,
            "source": self.source,
        }


class PlaybookPlan(msgspec.Struct, frozen=True):
    """A playbook planned for one project: its steps, in order, and why it is run."""

    playbook: Playbook
    account: str
    project: str
    steps: tuple[PlannedStep, ...]
    reason: str | None = None

    @property
    def confirmations(self) -> tuple[Confirmation, ...]:
        """Every step's rule (the strictest wins when it is enforced)."""
        return tuple(s.change.confirmation for s in self.steps)

    @property
    def refused(self) -> Confirmation | None:
        """The rule that refuses the run (read-only), if any."""
        return next((c for c in self.confirmations if c.refused), None)

    @property
    def typed(self) -> str | None:
        """The text to type to confirm (protected profile), if any."""
        return next((c.typed for c in self.confirmations if c.typed is not None), None)

    def with_reason(self, reason: str | None) -> PlaybookPlan:
        """This plan with ``reason`` on every step.

        Raises:
            ValidationError: a reason too long.
        """
        steps = tuple(replace(s, change=s.change.with_reason(reason)) for s in self.steps)
        return replace(self, steps=steps, reason=steps[0].change.reason if steps else None)

    def to_json(self) -> dict[str, Any]:
        """The plan (``show --json`` and ``run --dry-run --json``)."""
        return {
            "playbook": self.playbook.name,
            "account": self.account,
            "project": self.project,
            "duration": self.playbook.duration_text,
            "steps": [s.to_json() for s in self.steps],
        }


def scope(
    session: Session, book: Playbook, account: str | None, project: str | None
) -> tuple[str, str]:
    """The account and project the playbook runs on.

    The file's own account/project win; a flag naming another is refused
    (a playbook written for one project is not silently run on another).

    Raises:
        RefusedError: a flag that contradicts the file, or no project at all.
    """
    for key, mine, given in (
        ("account", book.account, account),
        ("project", book.project, project),
    ):
        if mine is not None and given is not None and given != mine:
            raise book.source.error(f"this playbook is for {key} {mine}; --{key} {given} was given")
    return session.project_scope(book.account or account, book.project or project)


async def plan_playbook(
    session: Session, book: Playbook, account: str, project: str, *, strict: bool = True
) -> PlaybookPlan:
    """Plan every step of ``book`` for ``account``/``project``; nothing is sent.

    ``strict=False`` (show, not run): a step whose id the inventory never
    saw is planned anyway, its refusal in :attr:`PlannedStep.unseen`.

    Raises:
        PlaybookFileError: a step the API would refuse, an id the inventory
            does not know (``strict``), or thresholds outside the project's
            range (with the step's line).
    """
    steps: list[PlannedStep] = []
    for step in book.steps:
        steps.append(await _plan_step(session, book, step, account, project, strict))
    return PlaybookPlan(book, account, project, tuple(steps))


def unseen_words(step: Step, project: str) -> str:
    """Why ``run`` refuses a step whose id the inventory has never seen in ``project``."""
    what = step.target_text
    return (
        f"step {step.number}: the inventory has never seen {what} in project {project} "
        "(or does not know its value), so the step could not be reverted: check the id, "
        "or open the project in the TUI once so the inventory learns it"
    )


async def _plan_step(
    session: Session, book: Playbook, step: Step, account: str, project: str, strict: bool
) -> PlannedStep:
    where = ("steps", step.number - 1)
    try:
        if isinstance(step, LimiterStep):
            change: PlannedChange[Any] = await planning.plan_limiter(
                session, account, project, step.limiter_id, step.is_active
            )
            unseen = _known_or_refuse(book, step, change, project, strict)
            return PlannedStep(step, change, unseen=unseen)
        thresholds = build_thresholds(step.name or step.dimension_id, step.block, step.challenge)
        change = await planning.plan_thresholds(
            session, account, project, step.dimension_id, thresholds
        )
        unseen = _known_or_refuse(book, step, change, project, strict)
        known_name = change.previous.value.get("name") if change.previous is not None else None
        if step.name is None and isinstance(known_name, str) and known_name:
            # No name in the file: keep the one the dimension has (the PUT replaces it).
            thresholds = build_thresholds(known_name, step.block, step.challenge)
            change = await planning.plan_thresholds(
                session, account, project, step.dimension_id, thresholds
            )
        settings = session.settings.project_settings(account, project)
        warnings = check_rules(thresholds, settings, force=False)
        return PlannedStep(step, change, tuple(warnings), unseen=unseen)
    except PlaybookFileError:
        raise
    except ValidationError as exc:
        raise book.source.error(f"step {step.number}: {exc.field} {exc.message}", *where) from None
    except RefusedError as exc:
        raise book.source.error(f"step {step.number}: {exc.title}: {exc.details}", *where) from None


def _known_or_refuse(
    book: Playbook, step: Step, change: PlannedChange[Any], project: str, strict: bool
) -> str | None:
    """None when the inventory knows the value before; else refused, or the words (not strict)."""
    if change.previous is None:
        if not strict:
            return unseen_words(step, project)
        raise book.source.error(
            unseen_words(step, project),
            "steps",
            step.number - 1,
            "limiter" if isinstance(step, LimiterStep) else "dimension",
        )
    return None


# Whether the inventory knows every id the playbooks name: ``config check``'s warnings.
#
# ``playbook run`` refuses a step whose id the inventory has never seen in the
# playbook's project (:mod:`bottui.ops.playbooks.playbook_plan`). On a fresh set-up
# that is every step of the docs' own example (``docs/playbooks.md``), while
# the file itself is clean; ``config check`` says so as a warning (not a problem: the file is
# right, the inventory has not learnt yet), with the same words ``run`` would
# refuse with. A playbook whose project cannot be told (neither the file nor
# the profile names one) is not checked. Nothing is written: with no inventory
# file yet, every id is unseen and no file is created.


async def unseen_steps(session: Session) -> list[PlaybookProblem]:
    """A warning per step whose id ``session``'s inventory has never seen (by file, line)."""
    found: list[PlaybookProblem] = []
    for book in await load_all(session.locations):
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
