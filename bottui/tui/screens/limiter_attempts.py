"""The Rate limiters screen's latest attempts: its result panel and its row marks.

The panel (:class:`~bottui.tui.widgets.result_panels.ReturnedProjectPanel`)
shows the current project's latest switch: the project the service returned,
or the failure (failed, or unknown when the request may have arrived). A
limiter whose last attempt did not succeed is marked on its row ("last try
FAILED (e)") until a switch of it succeeds. Kept per project, in memory.
Shown against the rows the table shows: a panel whose answer says otherwise
than the table now (an undo, a timed revert, another bottui's change) says
it is history and what each is now (#27). The
messages of an attempt's end (:class:`LimiterSet`, :class:`LimiterFailed`,
:class:`MarkedSwitched` for a change of many) live here too.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from textual.message import Message

from bottui.tui.widgets.limiter_table import flagged_source
from bottui.tui.widgets.untrusted_text import safe

if TYPE_CHECKING:
    from bottui.api.models import LimiterChange
    from bottui.ops.mutations import Applied
    from bottui.store.inventory.records import LimiterEntry
    from bottui.tui.error_report import Failure
    from bottui.tui.screens.limiters_multi import LimiterResult
    from bottui.tui.widgets.result_panels import ReturnedProjectPanel

Project = tuple[str, str]


class LimiterSet(Message):
    """A rate limiter change was answered."""

    # A plain __init__, not a dataclass: this module is on the way to the
    # demo's first frame, and a dataclass costs ~0.3 ms to define there.
    def __init__(
        self,
        account: str,
        project: str,
        applied: Applied[LimiterChange],
        known_before: frozenset[str],
    ) -> None:
        super().__init__()
        self.account = account
        self.project = project
        self.applied = applied
        self.known_before = known_before


class MarkedSwitched(Message):
    """Every marked limiter's change was sent (or not): the results, in order."""

    def __init__(self, verb: str, results: list[LimiterResult]) -> None:
        super().__init__()
        self.verb = verb
        self.results = results


class LimiterFailed(Message):
    """A rate limiter change failed, or its outcome is unknown (the error log has it whole)."""

    def __init__(
        self,
        account: str,
        project: str,
        limiter_id: str,
        failure: Failure,
        where: str,
        at: str,
        stamped: str | None = None,
    ) -> None:
        super().__init__()
        self.account = account
        self.project = project
        self.limiter_id = limiter_id
        self.failure = failure
        self.where = where
        self.at = at
        #: When it failed, as the inventory stamps what it learns (None: not known).
        self.stamped = stamped


class LimiterAttempts:
    """Each project's latest attempt (for the panel) and each limiter's failed one (marks)."""

    def __init__(self) -> None:
        #: ``("set", change, known_before)`` or ``("failed", failure, where, at)``.
        self._latest: dict[Project, tuple[Any, ...]] = {}
        #: (account, project, limiter id) -> (FAILED/UNKNOWN, when, as the inventory stamps).
        self._marks: dict[tuple[str, str, str], tuple[str, str | None]] = {}

    def answered(
        self,
        project: Project,
        change: LimiterChange,
        known_before: Collection[str],
        at: str | None = None,
    ) -> None:
        """A switch was answered (at ``at``, UTC): the project's latest, its limiter's mark gone."""
        self._latest[project] = ("set", change, known_before, at)
        self._marks.pop((*project, change.limiter_id), None)

    def failed(self, message: LimiterFailed) -> None:
        """A switch failed or its outcome is unknown: the latest, and a mark on its row."""
        project = (message.account, message.project)
        self._latest[project] = ("failed", message.failure, message.where, message.at)
        mark = "UNKNOWN" if message.failure.unknown else "FAILED"
        self._marks[(*project, message.limiter_id)] = (mark, message.stamped)

    def forget(self, project: Project) -> None:
        """The panel was hidden: nothing to show for ``project`` until the next attempt."""
        self._latest.pop(project, None)

    def show(
        self,
        panel: ReturnedProjectPanel,
        project: Project | None,
        rows: Mapping[str, bool | None] | None = None,
    ) -> None:
        """``project``'s latest attempt on ``panel``, or the panel hidden.

        ``rows``: the states the table shows now (limiter id -> state); the
        panel says it is history where the answer says otherwise.
        """
        latest = self._latest.get(project) if project is not None else None
        if latest is None:
            panel.hide()
        elif latest[0] == "set":
            from bottui.tui.widgets.result_panels import since_changed

            change, known_before, at = latest[1:]
            since = since_changed(change, rows) if rows is not None else {}
            panel.show(change, known_before, at, since)
        else:
            failure, where, at = latest[1:]
            panel.show_failure(failure, safe(where), at)

    def marked(self, project: Project, entry: LimiterEntry) -> LimiterEntry:
        """The row, marked when its last attempt failed or its outcome is unknown.

        Not once a state was learnt after it (another bottui's switch, a
        teammate's): "last try FAILED" beside a state set since would be stale.
        """
        key = (*project, entry.id)
        found = self._marks.get(key)
        if found is None:
            return entry
        mark, stamped = found
        if stamped is not None and entry.is_active is not None and entry.known_at > stamped:
            del self._marks[key]
            return entry
        return entry._replace(source=flagged_source(mark, entry.source))
