"""The journal side of a bulk run: the run's identity, what ``--resume`` skips,
and the started, outcome and closing records of every id, written in batches.

``--resume`` never loads a run: the engine asks :meth:`JournalSink.states`
for the ids of each chunk just before sending it
(:meth:`~bottui.store.journal.records.JournalStore.item_states`), so a resume
starts sending at once and its memory does not grow with the run. An id
whose earlier attempt left its entry unfinished (a crash lost the answer) is
sent again; once settled, :meth:`JournalSink.supersede` appends the closing
record of each such entry (outcome ``superseded``, pointing at the entry
that settled it): the journal stays append-only and no entry of a resumed
run stays unfinished.

While it runs, a run holds the liveness lock of its identity
(:mod:`bottui.store.files`): a second process running the same input is
refused, unless forced into a run of its own.

Every journal call is awaited on the async
:class:`~bottui.store.journal.records.JournalStore` (its SQLite work runs on
the store executor's daemon threads), so a journal locked by another process
(up to its busy timeout) never stalls
the event loop, the requests in flight or a TUI. Started records are written
per chunk, before the chunk's ids are sent; outcomes are buffered here and
written by one pump task, in order, every :data:`FLUSH_SECONDS` or
:data:`FLUSH_COUNT` outcomes. A journal that cannot be opened or written
becomes a warning on the session: the run goes on and its exit code does
not change (CONVENTIONS.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from bottui.api.errors import RefusedError
from bottui.ops.bulk.input import Subject
from bottui.ops.session import Session
from bottui.store.errors import JournalUnavailable
from bottui.store.journal.records import (
    EntryId,
    EntryQuery,
    ItemState,
    Operation,
    Outcome,
    RunId,
    StartRecord,
)

if TYPE_CHECKING:
    from bottui.store.files import RunLock
    from bottui.store.journal.store import SqliteJournalBatch as JournalBatch

FLUSH_SECONDS: Final = 0.5
FLUSH_COUNT: Final = 256
#: Outcomes after which an earlier attempt may have withdrawn the grant
#: without our knowing: resent, a "nothing standing" reads "unknown (retried)".
UNCERTAIN_OUTCOMES: Final = (
    Outcome.NETWORK_ERROR.value,
    Outcome.UNKNOWN.value,
    Outcome.UNKNOWN_RETRIED.value,
    Outcome.INTERRUPTED.value,
)


#: Outcomes that settle an id for ``--resume`` (besides the store's own, withdrawn
#: and nothing standing): "unknown (retried)" was answered 2xx, so nothing
#: stands; sending it again would only say "unknown (retried)" once more.
RESUME_SETTLED: Final = (Outcome.UNKNOWN_RETRIED.value,)


@dataclass(frozen=True)
class ResumeState:
    """Whether an earlier run of the same input exists (its ids are looked up per chunk),
    and its settled prefix: every id on an input line up to ``settled_line`` is
    settled (its newest checkpoint; those ids are skipped without a lookup)."""

    earlier_run: bool = False
    settled_line: int = 0


@dataclass(frozen=True, slots=True)
class _Checkpoint:
    """A settled prefix queued among the outcomes, written after those before it."""

    line: int


def is_settled(state: ItemState) -> bool:
    """Whether ``--resume`` skips an id in this state."""
    return state.settled or state.last_outcome in RESUME_SETTLED


def is_uncertain(state: ItemState | None) -> bool:
    """Whether an earlier attempt of the id may have done its work unseen.

    Its answer was lost (an unfinished entry: a crash), or its outcome was
    unknown: sent again, the id is reported "unknown (retried)".
    """
    if state is None:
        return False
    return bool(state.unfinished) or state.last_outcome in UNCERTAIN_OUTCOMES


class JournalSink:
    """Journals one bulk run; every method is safe to call when the journal is away.

    Args:
        session: Gives the journal and takes the warnings.
    """

    def __init__(self, session: Session, *, reason: str | None = None) -> None:
        self._session = session
        self._reason = reason
        self._writer: JournalBatch | None = None
        self._pending: list[tuple[int, dict[str, Any]] | _Checkpoint] = []
        self._wake = asyncio.Event()
        self._closing = False
        self._pump: asyncio.Task[None] | None = None
        self._lock: RunLock | None = None
        self._states_warned = False
        #: A lookup of earlier attempts failed (its ids were taken as unknown).
        self.lookup_failed = False
        self._profile = ""
        self._base_url = ""
        self.run_id: int | None = None

    @property
    def available(self) -> bool:
        """Whether records are being written."""
        return self._writer is not None

    def _warn(self, what: str, exc: BaseException) -> None:
        title = getattr(exc, "title", type(exc).__name__)
        details = getattr(exc, "details", "")
        self._session.warn(f"{what}: {title}. {details}".strip())

    async def open(
        self,
        *,
        account: str,
        project: str,
        input_sha256: str,
        operation: str,
        resume: bool,
        force: bool = False,
    ) -> ResumeState:
        """Make a run of its own, or with ``resume`` take the input's newest run and
        read what its earlier attempts settled (a fresh run of an input that ran
        before is never joined to that run: #27 item 5).

        Refused (:class:`RefusedError`) while another process runs the same
        input, unless ``force``: a forced run is a run of its own, with its
        own run id (its identity mixes the input's hash with a random nonce,
        so no later ``--resume`` takes it for the input's run).
        """
        profile = self._session.settings.inventory_scope
        if force:
            nonce = f"{input_sha256}\nforced\n{uuid.uuid4().hex}"
            input_sha256 = hashlib.sha256(nonce.encode()).hexdigest()
        else:
            self._take_lock(profile, account, project, input_sha256)
        try:
            return await self._open(
                profile=profile,
                account=account,
                project=project,
                input_sha256=input_sha256,
                operation=operation,
                resume=resume,
            )
        except BaseException:
            self._release_lock()
            raise

    def _take_lock(self, profile: str, account: str, project: str, input_sha256: str) -> None:
        """Hold the run's liveness lock, or refuse: another process runs this input."""
        from bottui.store.files import RunLive, acquire_run_lock, describe_holder, run_key

        key = run_key(profile, account, project, input_sha256)
        try:
            self._lock = acquire_run_lock(self._session.locations.state_dir, key)
        except RunLive as live:
            raise RefusedError(
                "Another run of this input is live",
                f"{describe_holder(live.holder)}; wait for it to end, or pass --force "
                "to start a run of its own (ids that run sends too are sent twice)",
            ) from None
        except OSError as exc:
            self._session.warn(
                f"cannot lock this run ({exc.strerror or exc}): "
                "a second run of the same input would not be refused"
            )
            return
        if self._lock is None:
            self._session.warn(
                "this system has no file locks: a second run of the same input is not refused"
            )

    def _release_lock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()

    async def _open(
        self,
        *,
        profile: str,
        account: str,
        project: str,
        input_sha256: str,
        operation: str,
        resume: bool,
    ) -> ResumeState:
        journal = self._session.journal_store
        state = ResumeState()
        try:
            run_id = await journal.run(
                profile=profile,
                account=account,
                project=project,
                input_sha256=input_sha256,
                operation=operation,
                # A fresh run is a run of its own; --resume continues the newest (#27 item 5).
                resume=resume,
            )
            if resume:
                first = await journal.page(EntryQuery(run_id=run_id), limit=1)
                if first.entries:
                    line = await journal.settled_prefix(run_id)
                    state = ResumeState(earlier_run=True, settled_line=line or 0)
            self.run_id = run_id
            if self._lock is not None:
                self._lock.note_run(run_id)
            self._profile = profile
            self._base_url = self._session.base_url
            self._writer = await journal.batch()
        except JournalUnavailable as exc:
            self._warn("this run is NOT journaled", exc)
            if resume:
                self._session.warn("cannot resume: sending every id")
            return ResumeState()
        self._pump = asyncio.create_task(self._pump_loop(), name="bottui-bulk-journal")
        return state

    async def states(self, keys: Sequence[str]) -> dict[str, ItemState]:
        """What earlier attempts of this run left for ``keys`` (one chunk of ids).

        A journal that cannot be read now warns once and answers nothing: the
        ids are sent again (harmless: a revocation of nothing reports so).
        """
        if self.run_id is None or self._writer is None or not keys:
            return {}
        try:
            return await self._session.journal_store.item_states(RunId(self.run_id), keys)
        except JournalUnavailable as exc:
            self.lookup_failed = True
            if not self._states_warned:
                self._states_warned = True
                self._warn("cannot read what earlier runs settled; sending those ids again", exc)
            return {}

    def supersede(self, entries: Sequence[EntryId], by: int | None) -> None:
        """Queue the closing records of ``entries``, left unfinished, now settled by ``by``."""
        for entry_id in entries:
            self.finish(
                int(entry_id),
                outcome=Outcome.SUPERSEDED.value,
                result={"supersededBy": by},
            )

    async def start(self, records: list[StartRecord]) -> list[int] | None:
        """Write the started records of a chunk now; their entry ids (None: not journaled)."""
        writer = self._writer
        if writer is None or not records:
            return None
        try:
            return list(await writer.start_many(records))
        except JournalUnavailable as exc:
            self._warn("some ids are NOT journaled", exc)
            return None

    def record(
        self, account: str, project: str, subject: Subject, key: str | None = None
    ) -> StartRecord:
        """The started record of one id of this run (``key``: its item key, if known)."""
        target: dict[str, str] = {}
        if subject.visitor_id is not None:
            target["visitorId"] = subject.visitor_id
        if subject.user_account_id is not None:
            target["userAccountId"] = subject.user_account_id
        return StartRecord(
            profile=self._profile,
            base_url=self._base_url,
            operation=Operation.REVOKE_GRANT,
            account=account,
            project=project,
            target=target,
            request_body={"subject": target},  # what request.body holds, without parsing it
            run_id=self.run_id,
            item_key=subject.key.hex() if key is None else key,
            operator=self._session.settings.operator,
            reason=self._reason,
        )

    def finish(self, entry_id: int | None, **fields: Any) -> None:
        """Queue the outcome of an entry (written by the pump, in order).

        ``fields`` are the keywords of the journal writer's ``finish``.
        """
        if entry_id is None or self._writer is None:
            return
        self._pending.append((entry_id, fields))
        if len(self._pending) >= FLUSH_COUNT:
            self._wake.set()

    def checkpoint(self, settled_line: int) -> None:
        """Queue a settled prefix: every id up to input line ``settled_line`` is
        settled and its outcome already queued here (so written before it)."""
        if self._writer is None or self.run_id is None:
            return
        self._pending.append(_Checkpoint(settled_line))

    async def close(self) -> None:
        """Write every queued outcome and close the writer."""
        self._closing = True
        self._wake.set()
        if self._pump is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
            self._pump = None
        writer, self._writer = self._writer, None
        try:
            if writer is not None:
                try:
                    await writer.close()
                except JournalUnavailable as exc:
                    self._warn("outcomes NOT journaled", exc)
                except ValueError as exc:  # outcomes the journal refused; the rest is written
                    self._session.warn(f"journal: {exc}")
        finally:
            # Only now: every outcome is written, a --resume may start.
            self._release_lock()

    async def _pump_loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), FLUSH_SECONDS)
            self._wake.clear()
            batch, self._pending = self._pending, []
            if batch:
                await self._write(batch)
            if self._closing and not self._pending:
                return

    async def _write(self, batch: list[tuple[int, dict[str, Any]] | _Checkpoint]) -> None:
        writer = self._writer
        if writer is None or self.run_id is None:
            return
        try:
            for item in batch:
                if isinstance(item, _Checkpoint):
                    await writer.checkpoint(RunId(self.run_id), item.line)
                else:
                    await writer.finish(EntryId(item[0]), **item[1])
            await writer.flush()
        except JournalUnavailable as exc:
            self._warn("some outcomes are NOT journaled", exc)
        except ValueError as exc:  # an outcome the journal refused; the rest is written
            self._session.warn(f"journal: {exc}")


__all__ = [
    "RESUME_SETTLED",
    "UNCERTAIN_OUTCOMES",
    "JournalSink",
    "ResumeState",
    "is_settled",
    "is_uncertain",
]
