"""Settling the ids of a bulk run: each id's status, counters, journal records and result.

:class:`Settling` is the part of :class:`~bottui.ops.bulk.engine.BulkRevocation`
that turns what became of one id (an answer, a failure, a stop) into its
:class:`~bottui.ops.bulk.status.ItemStatus`, the run's counters, its outcome
record (and the closing records of entries a crash left unfinished) and the
``on_result`` callback. Kept apart from the engine's flow (reading, queueing,
sending) so each stays small.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from bottui.api.errors import ApiError, BottuiError, NetworkError
from bottui.api.models import Revocation
from bottui.ops.bulk.covered import CoveredLines
from bottui.ops.bulk.input import Subject
from bottui.ops.bulk.journal import JournalSink, is_settled, is_uncertain
from bottui.ops.bulk.meter import Tally
from bottui.ops.bulk.status import FATAL_STATUSES, ItemResult, ItemStatus, ResultCallback
from bottui.ops.mutations import error_outcome
from bottui.plaintext import clean
from bottui.store.journal.records import ItemState, Outcome

#: One id on its way: its subject, its entry, what earlier attempts left.
Job = tuple[Subject, int | None, ItemState | None]
#: An id to send: its subject, its item key, what earlier attempts left.
Sending = tuple[Subject, str, ItemState | None]
#: A chunk read and being looked up: its subjects, their item keys, the lookup.
Looking = tuple[list[Subject], list[str], "asyncio.Future[dict[str, ItemState]] | None"]


class Settling:
    """How a bulk run settles its ids (mixed into the engine, which sets these)."""

    concurrency: int
    on_result: ResultCallback | None
    _tally: Tally
    _sink: JournalSink
    _chunk: list[Subject]
    _looking: Looking | None
    _unqueued: deque[Job]
    _queue: asyncio.Queue[Job | None]
    _covered: CoveredLines | None

    def _stop(self, reason: str) -> None:
        raise NotImplementedError

    # -- what a resume skips ----------------------------------------------------------

    def _count_skipped(self, skipped: int) -> None:
        """Count ids skipped at once (a settled 1,000,000-id resume skips them all)."""
        self._tally.counts[ItemStatus.SKIPPED] += skipped
        self._tally.done += skipped

    def _unsettled(
        self, chunk: list[Subject], keys: list[str], states: dict[str, ItemState]
    ) -> tuple[list[Sending], bool]:
        """The ids of a chunk to send (what earlier attempts left of each); the others
        skipped, their unfinished entries closed. True: too many held for counting
        (a resume reading its covered lines aside: :meth:`CoveredLines.flush`)."""
        if not states:  # nothing known of these ids: every one is sent
            return [(subject, key, None) for subject, key in zip(chunk, keys, strict=True)], False
        sending: list[Sending] = []
        skipped = 0
        held = False
        ahead = self._covered
        for subject, key in zip(chunk, keys, strict=True):
            state = states.get(key)
            if state is None or not is_settled(state):
                sending.append((subject, key, state))
                continue
            if state.unfinished:  # settled since by another attempt: close them
                self._sink.supersede(state.unfinished, None)
            if ahead is not None:  # skipped, or a repeat of a covered line: counted later
                held = ahead.hold(subject) or held
            elif self.on_result is not None:
                self._settle(subject, None, ItemStatus.SKIPPED)
            else:
                skipped += 1  # counted at once: a settled 1,000,000-id resume skips them all
        if skipped:
            self._count_skipped(skipped)
        return sending, held

    # -- settling an id ---------------------------------------------------------------

    def _answered(
        self,
        subject: Subject,
        entry_id: int | None,
        revocation: Revocation,
        duration: float,
        state: ItemState | None,
    ) -> None:
        # Same words: RevocationOutcome's values are ItemStatus's.
        status = ItemStatus(revocation.outcome.value)
        if status is not ItemStatus.UNKNOWN and is_uncertain(state):
            # An earlier attempt's answer was lost (a crash) or unknown: it may
            # have withdrawn the grant, and one withdrawn now may be a new one.
            status = ItemStatus.UNKNOWN_RETRIED
        self._tally.network_streak = 0
        result = revocation.to_json()
        result["outcome"] = status.value
        if status is ItemStatus.UNKNOWN_RETRIED and revocation.revoked is False:
            result["revoked"] = None  # nothing stood: who withdrew it is not known
        if state is not None and state.unfinished and entry_id is not None:
            # Settled now: the entries a crash left unfinished get their closing
            # record, queued before the outcome (and any checkpoint covering it).
            self._sink.supersede(state.unfinished, entry_id)
        self._settle(
            subject,
            entry_id,
            status,
            report_id=revocation.report_id,
            http_status=revocation.status,
            journal_result=result,
            duration=duration,
        )

    def _failed(
        self, subject: Subject, entry_id: int | None, error: BottuiError, duration: float
    ) -> None:
        tally = self._tally
        title = clean(error.title)
        tally.errors[title] += 1
        if isinstance(error, NetworkError):
            tally.network_failures += 1
            tally.network_streak += 1
            if tally.network_streak >= max(16, 2 * self.concurrency):
                self._stop(f"{tally.network_streak} ids in a row failed: {title}")
        else:
            tally.api_failures += 1
            tally.network_streak = 0
            if isinstance(error, ApiError) and error.status in FATAL_STATUSES:
                self._stop(f"{title}: every other id would get the same answer")
        status = getattr(error, "status", None)
        # A request that may have arrived unanswered is unknown, never failed.
        unknown = isinstance(error, BottuiError) and error.ambiguous
        self._settle(
            subject,
            entry_id,
            ItemStatus.UNKNOWN if unknown else ItemStatus.FAILED,
            http_status=status if isinstance(status, int) else None,
            error=str(error),
            journal_error=error.to_json()["error"],
            journal_outcome=error_outcome(error),
            duration=duration,
        )

    def _settle(
        self,
        subject: Subject,
        entry_id: int | None,
        status: ItemStatus,
        *,
        report_id: str | None = None,
        http_status: int | None = None,
        error: str | None = None,
        journal_result: dict[str, Any] | None = None,
        journal_error: dict[str, Any] | None = None,
        journal_outcome: str | None = None,
        duration: float | None = None,
    ) -> None:
        tally = self._tally
        tally.counts[status] += 1
        tally.done += 1
        if status not in (ItemStatus.SKIPPED, ItemStatus.NOT_SENT):
            tally.sent += 1
        if status is ItemStatus.NOT_SENT:
            journal_error = {"message": "not sent: the run stopped before this id"}
        if entry_id is not None:
            self._sink.finish(
                entry_id,
                # ItemStatus and Outcome name their members alike; FAILED and an
                # unknown failure bring their journal_outcome, SKIPPED is never journaled.
                outcome=journal_outcome or Outcome[status.name].value,
                status=http_status,
                result=journal_result,
                error=journal_error,
                duration_ms=None if duration is None else duration * 1000,
            )
        if self.on_result is not None:
            self.on_result(
                ItemResult(
                    subject=subject,
                    status=status,
                    report_id=report_id,
                    http_status=http_status,
                    error=error,
                )
            )

    def _settle_leftovers(self) -> None:
        """Ids taken but never sent (stopped, or abandoned): recorded as not sent."""
        chunk = self._chunk[:]
        self._chunk.clear()
        looking, self._looking = self._looking, None
        if looking is not None:
            if looking[2] is not None:
                looking[2].cancel()
            chunk = looking[0] + chunk
        for subject in chunk:
            self._settle(subject, None, ItemStatus.NOT_SENT)
        while self._unqueued:
            subject, entry_id, _ = self._unqueued.popleft()
            self._settle(subject, entry_id, ItemStatus.NOT_SENT)
        while not self._queue.empty():
            job = self._queue.get_nowait()
            if job is not None:
                self._settle(job[0], job[1], ItemStatus.NOT_SENT)
