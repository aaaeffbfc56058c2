"""A doctor check's result: an id, a verdict, what was found and how to fix it."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Verdict(enum.Enum):
    """How one check came out. Only :attr:`PROBLEM` makes ``bottui doctor`` fail."""

    OK = "ok"
    WARNING = "warning"
    PROBLEM = "problem"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Check:
    """One check's result.

    ``detail`` may hold several lines (the tokens of each project); ``fix`` is
    empty when there is nothing to do. Both are untrusted text (they quote
    environment variables, ids, server messages): the face cleans them.
    """

    id: str
    title: str
    verdict: Verdict
    detail: str
    fix: str = ""


def worst(verdicts: list[Verdict]) -> Verdict:
    """The verdict a group of findings adds up to (problem > warning > ok > skipped)."""
    for verdict in (Verdict.PROBLEM, Verdict.WARNING, Verdict.OK):
        if verdict in verdicts:
            return verdict
    return Verdict.SKIPPED


__all__ = ["Check", "Verdict", "worst"]
