"""The journal side of a bulk run: the run's identity, what ``--resume`` skips,
and the started and outcome records of every id, written in batches.

While it runs, a run holds the liveness lock of its identity
(:mod:`bottui.store.run_lock`): a second process running the same input is
refused, unless forced into a run of its own.

Every journal call is awaited on the async
:class:`~bottui.store.journal_store.JournalStore` (its SQLite work runs on
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
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from bottui.api.errors import RefusedError
from bottui.ops.bulk.input import Subject
from bottui.ops.session import Session
from bottui.store.db_errors import JournalUnavailable
from bottui.store.journal_records import SETTLED_OUTCOMES, Operation, Outcome, StartRecord
from bottui.store.journal_store import EntryId, EntryQuery, RunId

if TYPE_CHECKING:
    from bottui.store.journal_store import JournalBatch, JournalStore
    from bottui.store.run_lock import RunLock

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


@dataclass
class ResumeState:
    """What earlier runs of the same input left: digests of ids to skip, and
    of ids whose earlier attempt may have done its work unseen."""

    settled: set[bytes] = field(default_factory=set)
    uncertain: set[bytes] = field(default_factory=set)
    earlier_run: bool = False


def _digests(keys: Iterable[str | None]) -> set[bytes]:
    out: set[bytes] = set()
    for key in keys:
        if key is None:
            continue
        try:
            out.add(bytes.fromhex(key))
        except ValueError:
            continue  # not one of ours
    return out


class JournalSink:
    """Journals one bulk run; every method is safe to call when the journal is away.

    Args:
        session: Gives the journal and takes the warnings.
    """

    def __init__(self, session: Session) -> None:
        self._session = session
        self._writer: JournalBatch | None = None
        self._pending: list[tuple[int, dict[str, Any]]] = []
        self._wake = asyncio.Event()
        self._closing = False
        self._pump: asyncio.Task[None] | None = None
        self._lock: RunLock | None = None
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
        """Find or make the run; with ``resume``, read what earlier runs settled.

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
        from bottui.store import run_lock

        key = run_lock.run_key(profile, account, project, input_sha256)
        try:
            self._lock = run_lock.acquire(self._session.locations.state_dir, key)
        except run_lock.RunLive as live:
            raise RefusedError(
                "Another run of this input is live",
                f"{run_lock.describe(live.holder)}; wait for it to end, or pass --force "
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
            )
            if resume:
                state = await _resume_state(journal, run_id)
            self.run_id = run_id
            if self._lock is not None:
                self._lock.note_run(run_id)
            self._writer = await journal.batch()
        except JournalUnavailable as exc:
            self._warn("this run is NOT journaled", exc)
            if resume:
                self._session.warn("cannot resume: sending every id")
            return ResumeState()
        self._pump = asyncio.create_task(self._pump_loop(), name="bottui-bulk-journal")
        return state

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

    def record(self, account: str, project: str, subject: Subject) -> StartRecord:
        """The started record of one id of this run."""
        target = {
            k: v
            for k, v in (
                ("visitorId", subject.visitor_id),
                ("userAccountId", subject.user_account_id),
            )
            if v is not None
        }
        return StartRecord(
            profile=self._session.settings.inventory_scope,
            base_url=self._session.base_url,
            operation=Operation.REVOKE_GRANT,
            account=account,
            project=project,
            target=target,
            request_body={"subject": target},  # what request.body holds, without parsing it
            run_id=self.run_id,
            item_key=subject.key.hex(),
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

    async def _write(self, batch: list[tuple[int, dict[str, Any]]]) -> None:
        writer = self._writer
        if writer is None:
            return
        try:
            for entry_id, outcome in batch:
                await writer.finish(EntryId(entry_id), **outcome)
            await writer.flush()
        except JournalUnavailable as exc:
            self._warn("some outcomes are NOT journaled", exc)
        except ValueError as exc:  # an outcome the journal refused; the rest is written
            self._session.warn(f"journal: {exc}")


async def _resume_state(journal: JournalStore, run_id: RunId) -> ResumeState:
    """What earlier runs of this input settled."""
    first = await journal.page(EntryQuery(run_id=run_id), limit=1)
    if not first.entries:
        return ResumeState()
    settled = _digests(await journal.settled_items(run_id, SETTLED_OUTCOMES))
    uncertain = _digests(await journal.settled_items(run_id, UNCERTAIN_OUTCOMES))
    cursor = None
    while True:
        page = await journal.page(EntryQuery(run_id=run_id, unfinished=True), cursor=cursor)
        uncertain |= _digests(e.item_key for e in page.entries)
        if page.next is None:
            break
        cursor = page.next
    return ResumeState(settled=settled, uncertain=uncertain - settled, earlier_run=True)


__all__ = [
    "UNCERTAIN_OUTCOMES",
    "JournalSink",
    "ResumeState",
]
