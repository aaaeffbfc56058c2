"""The bulk revocation engine, shared by the CLI (``revoke --from-file``) and the TUI.

One :class:`BulkRevocation` revokes the grants of every subject of a
:class:`~bottui.ops.bulk.input.BulkSource`:

* ids are read as a stream, validated and deduplicated line by line
  (:mod:`bottui.ops.bulk.input`); bad lines are reported, never sent;
* at most ``concurrency`` requests are in flight, each sent as a single
  change is (:meth:`~bottui.api.client.BotProtectionClient.revoke_grant`),
  over a keep-alive pool of the run's size
  (:meth:`~bottui.api.client.BotProtectionClient.with_pool`); 5xx answers
  and connection failures are retried by the client with backoff within
  its total deadline, per id;
* a 429 (or 503 with ``Retry-After``) pauses the whole run: every request
  waits until the moment the service named (:class:`~bottui.api.sending.SharedPause`);
* an answer that every other id would get too (401, 403, 404), or a long
  series of network failures, stops the run early instead of hammering;
* every id is journaled (started before its chunk is sent, outcome after)
  under a run identified by (profile, account, project, SHA-256 of the
  input); with ``resume`` the ids an earlier run settled (withdrawn, nothing
  standing) are skipped.

Driving it (the TUI does the same as the CLI)::

    run = BulkRevocation(session, account, project, source,
                         on_progress=show, on_result=record)
    summary = await run.run()      # RefusedError / CredentialsError before sending
    run.cancel()                   # from the same loop: stop taking ids,
                                   # let requests in flight finish; twice: abandon them

``on_progress`` receives a :class:`BulkProgress` every ``progress_interval``
seconds and once at the end; ``on_result`` an :class:`ItemResult` per id.
Both are called on the event loop and must be quick.

*Settling* an id turns what became of it (an answer, a failure, a stop) into
its :class:`~bottui.ops.bulk.report.ItemStatus`, the run's counters, its
outcome record (and the closing records of entries a crash left unfinished)
and the ``on_result`` callback.

:func:`plan_bulk` is a run's dry run: it validates the whole input and builds
its first requests, sending nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Final

import msgspec

from bottui.api.errors import ApiError, BottuiError, NetworkError
from bottui.api.models import Revocation
from bottui.api.requests import PreparedRequest
from bottui.api.sending import SharedPause
from bottui.api.tokens import AccessToken
from bottui.ops.bulk.input import BulkSource, Duplicate, InvalidLine, Subject
from bottui.ops.bulk.journaling import (
    CoveredLines,
    JournalSink,
    ResumeState,
    SettledPrefix,
    is_settled,
    is_uncertain,
)
from bottui.ops.bulk.report import (
    DEFAULT_CONCURRENCY,
    FATAL_STATUSES,
    MAX_INVALID_KEPT,
    BulkProgress,
    BulkSummary,
    ItemResult,
    ItemStatus,
    Meter,
    ProgressCallback,
    ResultCallback,
    check_concurrency,
)
from bottui.ops.confirmation import normalize_reason
from bottui.ops.mutations import error_outcome
from bottui.ops.session import Session
from bottui.plaintext import clean
from bottui.store.journal.journal_records import ItemState, Operation, Outcome

if TYPE_CHECKING:
    from bottui.api.client import BotProtectionClient


# -- the run --------------------------------------------------------------------------------------


_YIELD_EVERY: Final = 256


#: Ids read, looked up (``--resume``) and journaled as started together: one
#: lookup and one transaction per chunk, however small the concurrency.
MIN_CHUNK: Final = 256


#: One id on its way: its subject, its entry, what earlier attempts left.
Job = tuple[Subject, int | None, ItemState | None]


#: An id to send: its subject, its item key, what earlier attempts left.
Sending = tuple[Subject, str, ItemState | None]


#: A chunk read and being looked up: its subjects, their item keys, the lookup.
Looking = tuple[list[Subject], list[str], "asyncio.Future[dict[str, ItemState]] | None"]


class BulkRevocation:
    """Revoke the grants of every subject of an input; see the module docstring.

    Args:
        session: Settings, token, client and journal.
        account: The account id.
        project: The project id.
        source: The ids.
        concurrency: Requests in flight at most (1 to :data:`MAX_CONCURRENCY`).
        resume: Skip the ids an earlier run of the same input settled.
        force: Run even while another process runs the same input: a run of
            its own (its own run id). Without it, that is refused.
        confirmed: The operator confirmed (``--yes``): needed under a protected profile.
        reason: Why (``--reason``), journaled once per chunk; required where
            the profile says ``require_reason``.
        on_progress: Called with a :class:`BulkProgress` now and then.
        on_result: Called with each id's :class:`ItemResult`.
        progress_interval: Seconds between two ``on_progress`` calls.
    """

    def __init__(
        self,
        session: Session,
        account: str,
        project: str,
        source: BulkSource,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        resume: bool = False,
        force: bool = False,
        confirmed: bool = False,
        reason: str | None = None,
        on_progress: ProgressCallback | None = None,
        on_result: ResultCallback | None = None,
        progress_interval: float = 0.25,
    ) -> None:
        self.session = session
        self.account = account
        self.project = project
        self.source = source
        self.concurrency = check_concurrency(concurrency)
        self.resume = resume
        self.force = force
        self.confirmed = confirmed
        self.reason = normalize_reason(reason)
        self.on_progress = on_progress
        self.on_result = on_result
        self.progress_interval = progress_interval
        self.pause = SharedPause()
        self._meter = Meter()
        self._tally = self._meter.tally
        self._sink = JournalSink(session, reason=self.reason)
        self._resume_state = ResumeState()
        self._prefix = SettledPrefix()
        self._chunk_size = max(MIN_CHUNK, self.concurrency)
        # A whole chunk may wait queued while the next one is read and journaled.
        self._queue: asyncio.Queue[Job | None] = asyncio.Queue(maxsize=self._chunk_size)
        self._chunk: list[Subject] = []
        self._looking: Looking | None = None  # the chunk being looked up
        self._covered: CoveredLines | None = None  # a resume's covered lines, read aside
        self._pooled: BotProtectionClient | None = None  # the run's pool
        self._unqueued: deque[Job] = deque()
        self._workers: list[asyncio.Task[None]] = []
        self._producer: asyncio.Task[None] | None = None
        self._started = False
        self._stopping = False
        self._interrupted = False
        self._abandon = False
        self._read_all = False
        self._stopped_by: str | None = None

    def __repr__(self) -> str:
        return f"BulkRevocation({self.account!r}, {self.project!r}, {self.source!r})"

    # -- control ------------------------------------------------------------------

    @property
    def stopping(self) -> bool:
        """Whether the run has stopped taking new ids."""
        return self._stopping

    @property
    def in_flight(self) -> int:
        """Requests under way now."""
        return self._tally.in_flight

    def cancel(self) -> None:
        """Stop taking new ids; requests in flight finish and are recorded.

        Called a second time, abandons the requests in flight too (recorded
        as interrupted: they may or may not have been applied). Call it on
        the run's event loop.
        """
        self._interrupted = True
        if not self._stopping:
            self._stopping = True
            return
        if self._abandon:
            return
        self._abandon = True
        if self._producer is not None:
            self._producer.cancel()
        for task in self._workers:
            task.cancel()

    def _stop(self, reason: str) -> None:
        if not self._stopping:
            self._stopping = True
            self._stopped_by = reason

    # -- the run --------------------------------------------------------------------

    async def run(self) -> BulkSummary:
        """Send every request; the summary when all are settled.

        Raises, before anything is sent:
            RefusedError: read-only profile, no reason where one is required,
                protected without confirmation, invalid account or project id,
                the same input run by another live process (without ``force``).
            CredentialsError: no personal access token.
        """
        if self._started:
            raise RuntimeError("a BulkRevocation runs once")
        self._started = True
        session = self.session
        session.check_may_change(confirmed=self.confirmed, reason=self.reason)
        client = session.client()
        client.prepare_revocation(self.account, self.project, visitor_id="-")  # ids usable?
        token = await session.access_token(self.account)
        self._resume_state = await self._sink.open(
            account=self.account,
            project=self.project,
            input_sha256=self.source.sha256,
            operation=Operation.REVOKE_GRANT,
            resume=self.resume,
            force=self.force,
        )
        if self.resume and not self._resume_state.earlier_run and self._sink.available:
            session.warn("nothing to resume: no earlier run of this input; sending every id")
        self._prefix = SettledPrefix(self._resume_state.settled_line)
        self._pooled = client.with_pool(self.concurrency)
        self._meter.start()
        ticker = asyncio.create_task(self._tick(), name="bottui-bulk-progress")
        try:
            self._workers = [
                asyncio.create_task(self._worker(token), name=f"bottui-bulk-{n}")
                for n in range(self.concurrency)
            ]
            self._producer = asyncio.create_task(self._produce(), name="bottui-bulk-input")
            self._producer.add_done_callback(self._producer_done)
            tasks = (self._producer, *self._workers)
            try:
                await asyncio.gather(*tasks, return_exceptions=True)
            except asyncio.CancelledError:
                # The caller cancelled the run itself: abandon it as a second
                # cancel() would, and record what was in flight before leaving.
                self._interrupted = self._stopping = self._abandon = True
                await asyncio.gather(*tasks, return_exceptions=True)
                self._settle_leftovers()
                raise
            self._check_failures()
            self._settle_leftovers()
            self._checkpoint(final=True)
        finally:
            ticker.cancel()
            for task in (self._producer, *self._workers):
                if task is not None and not task.done():
                    task.cancel()
            try:
                await self._pooled.aclose()
            finally:
                await self._sink.close()
        self._emit_progress()
        return self._summary()

    def _producer_done(self, producer: asyncio.Task[None]) -> None:
        """A bug in the input's task: its end-of-input never reaches the workers, so
        they stop here (the run then raises it) instead of waiting for ever."""
        if not producer.cancelled() and producer.exception() is not None:
            for task in self._workers:
                task.cancel()

    def _check_failures(self) -> None:
        """Re-raise a bug in a task (cancellations by :meth:`cancel` are expected)."""
        for task in (self._producer, *self._workers):
            if task is None or task.cancelled():
                continue
            error = task.exception()
            if error is not None:
                raise error

    async def _produce(self) -> None:
        """Read the input in chunks; each is looked up, journaled as started, queued."""
        tally = self._tally
        chunk = self._chunk
        size = self._chunk_size
        # Lines an earlier run's checkpoint covers: settled, skipped without a lookup.
        covered = self._resume_state.settled_line if self.resume else 0
        if covered and self.on_result is None and self._sink.available:
            # Read and deduplicated on a thread while the lines after them are sent.
            self._covered = await CoveredLines.start(self.source, covered, tally)
        ahead = self._covered
        reader = (
            self.source.read()
            if ahead is None
            else self.source.read(start=ahead.offset, first_line=covered, form="lines")
        )
        seen = 0
        skipped = 0
        try:
            for item in iter(reader):
                if self._stopping:
                    break
                seen += 1
                if seen % _YIELD_EVERY == 0:
                    await asyncio.sleep(0)
                if isinstance(item, Subject):
                    tally.taken += 1
                    if item.line <= covered:
                        if self.on_result is not None:
                            self._settle(item, None, ItemStatus.SKIPPED)
                        else:
                            skipped += 1
                            if skipped >= _YIELD_EVERY:
                                self._count_skipped(skipped)
                                skipped = 0
                        continue
                    if skipped:
                        self._count_skipped(skipped)
                        skipped = 0
                    chunk.append(item)
                    if len(chunk) >= size:
                        await self._next_chunk()
                elif isinstance(item, Duplicate):
                    tally.duplicates += 1
                else:
                    tally.invalid_count += 1
                    if len(tally.invalid) < MAX_INVALID_KEPT:
                        tally.invalid.append(InvalidLine(item.line, clean(item.reason)))
            else:
                self._read_all = True
            self._count_skipped(skipped)
            if not self._stopping:
                if chunk:
                    await self._next_chunk()
                await self._last_chunk()
            if ahead is not None:
                await ahead.finish(stopping=self._stopping)
        finally:
            reader.close()
            if ahead is not None:
                ahead.close()
        for _ in self._workers:
            await self._queue.put(None)

    def _checkpoint(self, *, final: bool = False) -> None:
        """Hand the journal the settled prefix, if it moved enough (``final``: at all)."""
        line = self._prefix.due(final=final)
        if line is not None:
            self._sink.checkpoint(line)

    def _settle(
        self, subject: Subject, entry_id: int | None, status: ItemStatus, **kw: Any
    ) -> None:
        self._record(subject, entry_id, status, **kw)
        if status is not ItemStatus.SKIPPED:
            # After the outcome is queued: a checkpoint never leads what it covers.
            self._prefix.settled(subject.line, status, entry_id is not None)
            self._checkpoint()

    async def _next_chunk(self) -> None:
        """Start looking the full chunk up (``--resume``); dispatch the chunk before it.

        One chunk ahead: the journal looks a chunk up on its own thread while
        this one reads and deduplicates the next, so a resume pays for the
        lookups only where they take longer than reading.
        """
        chunk = self._chunk[:]
        self._chunk.clear()
        keys = [subject.key.hex() for subject in chunk]
        lookup = asyncio.ensure_future(self._sink.states(keys)) if self.resume else None
        earlier, self._looking = self._looking, (chunk, keys, lookup)
        if earlier is not None:
            await self._dispatch(*earlier)

    async def _last_chunk(self) -> None:
        """Dispatch the chunk looked up: no chunk comes after it."""
        looked_up, self._looking = self._looking, None
        if looked_up is not None:
            await self._dispatch(*looked_up)

    async def _dispatch(
        self,
        chunk: list[Subject],
        keys: list[str],
        lookup: asyncio.Future[dict[str, ItemState]] | None,
    ) -> None:
        """Skip what earlier runs settled, journal what is sent (one transaction), queue it."""
        sink = self._sink
        states = await lookup if lookup is not None else {}
        ahead = self._covered
        if ahead is not None and sink.lookup_failed:  # no word from the journal: check here
            chunk = await ahead.drop_known(chunk)
            keys = [subject.key.hex() for subject in chunk]
        sending, held = self._unsettled(chunk, keys, states)
        if held:  # only a resume reading its covered lines aside holds ids
            assert ahead is not None
            await ahead.flush()
        if chunk:
            self._prefix.add(chunk[0].line, chunk[-1].line, len(sending))
        if not sending:
            self._checkpoint()
            return
        records = (
            [sink.record(self.account, self.project, s, key) for s, key, _ in sending]
            if sink.available
            else []
        )
        ids: list[int] | None = None
        if records:
            writing = asyncio.ensure_future(sink.start(records))
            try:
                ids = await asyncio.shield(writing)
            except asyncio.CancelledError:
                # Abandoned while the chunk was being journaled: let the write
                # end, so these ids are recorded as not sent, not left unfinished.
                ids = await writing
                raise
            finally:
                self._unqueued.extend(
                    (s, ids[n] if ids else None, state) for n, (s, _, state) in enumerate(sending)
                )
        else:
            self._unqueued.extend((s, None, state) for s, _, state in sending)
        while self._unqueued:
            job = self._unqueued[0]
            if self._stopping:
                self._unqueued.popleft()
                self._settle(job[0], job[1], ItemStatus.NOT_SENT)
                continue
            await self._queue.put(job)
            self._unqueued.popleft()

    async def _worker(self, token: AccessToken) -> None:
        client = self._pooled
        assert client is not None
        tally = self._tally
        pause = self.pause
        while True:
            job = await self._queue.get()
            if job is None:
                return
            subject, entry_id, state = job
            if self._stopping or not await self._wait_pause():
                self._settle(subject, entry_id, ItemStatus.NOT_SENT)
                continue
            tally.in_flight += 1
            started = time.perf_counter()
            revocation: Revocation | None = None
            failure: BottuiError | None = None
            try:
                revocation = await client.revoke_grant(
                    self.account,
                    self.project,
                    token,
                    visitor_id=subject.visitor_id,
                    user_account_id=subject.user_account_id,
                    pause=pause,
                )
            except BottuiError as exc:
                failure = exc
            except asyncio.CancelledError:
                self._settle(
                    subject,
                    entry_id,
                    ItemStatus.INTERRUPTED,
                    duration=time.perf_counter() - started,
                )
                raise
            finally:
                tally.in_flight -= 1
            duration = time.perf_counter() - started
            if revocation is not None:
                self._answered(subject, entry_id, revocation, duration, state)
            elif failure is not None:
                self._failed(subject, entry_id, failure, duration)

    async def _wait_pause(self) -> bool:
        """Wait out a shared pause, watching for a stop; False if the run stopped."""
        timing = self.session.client().timing
        while True:
            left = self.pause.remaining(timing.clock())
            if left <= 0:
                return True
            if self._stopping:
                return False
            await timing.sleep(min(left, 0.1))

    # -- progress and summary -----------------------------------------------------

    def progress(self) -> BulkProgress:
        """Where the run stands now."""
        return self._meter.progress(
            candidate_lines=self.source.candidate_lines,
            exact=self._read_all or self._stopping,
            stopping=self._stopping,
            paused_for=self.pause.remaining(self.session.client().timing.clock()),
        )

    def _emit_progress(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.progress())

    async def _tick(self) -> None:
        while True:
            self._emit_progress()
            await asyncio.sleep(self.progress_interval)

    def _summary(self) -> BulkSummary:
        return self._meter.summary(
            interrupted=self._interrupted,
            stopped_by=self._stopped_by,
            pauses=self.pause.count,
            run_id=self._sink.run_id,
            resumed=self.resume and self._resume_state.earlier_run,
        )

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

    def _record(
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
        """Count the id's end, queue its outcome record, hand ``on_result`` its result."""
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


# -- the dry run ----------------------------------------------------------------------------------


class BulkPlan(msgspec.Struct, frozen=True):
    """What a bulk run would send (``--dry-run``): nothing is sent.

    Attributes:
        requests: The first requests, with their subjects.
        count: Requests the run would send (distinct valid ids).
        invalid: The invalid lines (the first :data:`MAX_INVALID_KEPT`).
        invalid_count: Invalid lines in all.
        duplicates: Repeated lines.
    """

    requests: tuple[tuple[Subject, PreparedRequest], ...]
    count: int
    invalid: tuple[InvalidLine, ...]
    invalid_count: int
    duplicates: int


def plan_bulk(
    session: Session, account: str, project: str, source: BulkSource, *, keep: int = 20
) -> BulkPlan:
    """Validate the whole input and build its first ``keep`` requests; send nothing."""
    client = session.client()
    client.prepare_revocation(account, project, visitor_id="-")  # ids usable?
    requests: list[tuple[Subject, PreparedRequest]] = []
    invalid: list[InvalidLine] = []
    reader = source.read()
    try:
        for item in iter(reader):
            if isinstance(item, InvalidLine):
                if len(invalid) < MAX_INVALID_KEPT:
                    invalid.append(InvalidLine(item.line, clean(item.reason)))
            elif isinstance(item, Subject) and len(requests) < keep:
                request = client.prepare_revocation(
                    account,
                    project,
                    visitor_id=item.visitor_id,
                    user_account_id=item.user_account_id,
                )
                requests.append((item, request))
    finally:
        reader.close()
    return BulkPlan(
        requests=tuple(requests),
        count=reader.valid,
        invalid=tuple(invalid),
        invalid_count=reader.invalid,
        duplicates=reader.duplicates,
    )
