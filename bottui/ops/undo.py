"""Undo: put back the value before a rate limiter or threshold change, the last one or any row.

:func:`find` asks the journal for the newest change of a kind
(:meth:`SqliteJournalStore.last_undoable
<bottui.store.journal.journal_store.SqliteJournalStore.last_undoable>`, awaited: off the
event loop) and turns it into an :class:`UndoPlan` (what will be restored, old -> new),
or refuses with :class:`UndoRefused` saying why (exit 2): nothing to undo,
the value before it is not known, its outcome is not known, or it was made
against another base URL. :func:`apply` sends the plan as a new request
through :mod:`bottui.ops.mutations`, so the read-only and protected rules,
the journal (a new entry with ``undo_of`` pointing at the undone one) and
the inventory work as for any change. :func:`plan_change` gives the undo as
a :class:`~bottui.ops.planning.PlannedChange` (dry run, confirmation texts) that
:func:`apply` sends as it is.

One journal row, of the current project (the Journal screen's ``u``):
:func:`plan_row` takes the entry the operator picked (any row, not only the
newest) and either plans its undo (an :class:`UndoPlan`
whose confirmation shows now -> restored) or refuses with
:class:`UndoRefused` saying why: a revocation, an attempt
that failed or whose outcome is not known, another project's change,
another base URL. :func:`plan_latest` does the same for the newest change of
the current project (``u`` anywhere else, the palette).

An older row may have been changed since: :func:`newer_changes` reads the
changes of the same limiter or dimension journaled after it (in the
journal the face shows: this machine's, or the team's shared one), so the
confirmation can say who changed it and when, and the "now" value is the
newest change's, not the row's. :func:`apply_row` reads them again before
sending and sends nothing when another change arrived in between.

Every read is bounded (:data:`SCAN_LIMIT` entries) and awaited: the stores
read on their own threads, never on the event loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, get_args

import msgspec
from msgspec.structs import replace

from bottui.api.errors import RefusedError
from bottui.api.models import DimensionThresholds
from bottui.ops import mutations, planning
from bottui.ops.journal_view import entry_ref, target_id, value_text, when
from bottui.ops.mutations import Applied
from bottui.ops.planning import PlannedChange
from bottui.ops.session import Session
from bottui.store.journal import journal_file
from bottui.store.journal.journal_records import (
    NO_CHANGE_OUTCOMES,
    EntryQuery,
    JournalEntry,
    Operation,
    Outcome,
    UndoCandidate,
    UndoKind,
    entry_started,
    previous_json,
    value_of,
)
from bottui.store.store_errors import JournalUnavailable, StoreError

if TYPE_CHECKING:
    from bottui.store.journal.journal_records import JournalReader
    from bottui.store.journal.journal_store import SqliteJournalStore

# -- the last change of a kind ---------------------------------------------------------

#: The kinds of change that can be undone, in the order ``--kind`` lists them.
KINDS: Final[tuple[UndoKind, ...]] = get_args(UndoKind)
_WORDS: Final[dict[str, str]] = {"limiter": "rate limiter", "thresholds": "threshold"}
#: What each kind changes: ``rate limiter rl-login``, ``dimension bot-score``.
NOUNS: Final[dict[str, str]] = {"limiter": "rate limiter", "thresholds": "dimension"}


class UndoRefused(RefusedError):
    """There is nothing to undo, or the value to restore is not known (exit 2).

    ``other`` names the other kind when its last change could be undone
    instead (``--kind``).
    """

    title = "Cannot undo"

    def __init__(self, details: str, *, other: UndoKind | None = None) -> None:
        self.other = other
        super().__init__(None, details)


class UndoPlan(msgspec.Struct, frozen=True):
    """The change to undo and the value that undoes it.

    ``passed_over`` is set when the newest change of the other kind could not
    be undone and this plan was chosen instead: the confirmation must say so.
    """

    kind: UndoKind
    #: The journal entry being undone.
    entry: JournalEntry
    #: Rate limiter id or dimension id.
    target_id: str
    #: The value to send: ``{"isActive": ...}`` or the threshold body (literals).
    restore: dict[str, Any]
    #: The value the undone change set, same shape; None when not known.
    current: dict[str, Any] | None
    passed_over: UndoCandidate | None = None
    #: The id the undo's journal entry names in ``undo_of``; -1: ``entry.id``.
    #: None for a teammate's shared entry (its id is not one of this journal's).
    undo_of: int | None = -1

    @property
    def undoes(self) -> int | None:
        """The local journal id this undo's entry records as ``undo_of``."""
        return self.entry.id if self.undo_of == -1 else self.undo_of

    @property
    def account(self) -> str:
        """The account of the undone change."""
        return self.entry.account

    @property
    def project(self) -> str:
        """The project of the undone change."""
        return self.entry.project

    def restore_active(self) -> bool:
        """The active flag to send (kind ``limiter``)."""
        return bool(self.restore["isActive"])

    def restore_thresholds(self) -> DimensionThresholds:
        """The thresholds to send (kind ``thresholds``), literals as recorded."""
        return DimensionThresholds.from_record(self.restore)

    @property
    def what(self) -> str:
        """``rate limiter rl-login`` or ``dimension bot-score``."""
        return f"{NOUNS[self.kind]} {self.target_id}"

    @property
    def restored(self) -> str:
        """The value restored, in words (``ON``, ``Bot score: block 0.8, challenge 0.5``)."""
        return value_text(self.restore)

    @property
    def change(self) -> str:
        """``OFF -> ON``: the value now (as the undone change set it) -> the value restored."""
        now = value_text(self.current) if self.current is not None else "?"
        return f"{now} -> {self.restored}"

    def summary(self) -> str:
        """One line: what, where, old -> new, and which entry (not cleaned)."""
        return (
            f"{self.what} of {self.account}/{self.project}: {self.change} "
            f"(undoes journal entry #{self.entry.id} of {self.entry.started_at[:19]}Z "
            f"by {self.entry.operator})"
        )

    def to_json(self) -> dict[str, Any]:
        """The plan as ``bottui undo --json`` reports it."""
        return {
            "kind": self.kind,
            "undoes": self.entry.id,
            "account": self.account,
            "project": self.project,
            "target": self.entry.target,
            # Thresholds as numbers, as everywhere in --json (the plan keeps the literals).
            "from": previous_json(self.current),
            "to": previous_json(self.restore),
        }


async def find(
    session: Session, kind: UndoKind | None = None, *, fall_back: bool = False
) -> UndoPlan:
    """The undo of the last change of ``kind`` of this profile (no kind: the newer of the two).

    Args:
        session: Its profile picks the journal entries, its base URL must match theirs.
        kind: ``"limiter"`` or ``"thresholds"``; None for the newest change of either.
        fall_back: With no kind, when the newest change cannot be undone but the
            other kind's can, plan that one (``passed_over`` says why); the
            caller must show it before confirming. Without it: refuse.

    Raises:
        UndoRefused: nothing to undo, or why it cannot be undone.
    """
    if kind is not None and kind not in KINDS:
        raise UndoRefused(f"unknown kind {kind!r}: one of {', '.join(KINDS)}")
    journal = session.journal_store
    profile = session.settings.inventory_scope
    try:
        # Read off the event loop (the store's executor); a journal that cannot
        # be opened raises JournalUnavailable here.
        candidates = [await journal.last_undoable(profile, k) for k in ((kind,) if kind else KINDS)]
    except JournalUnavailable as exc:
        raise _unreadable(exc, "the last change is not known") from None
    found = sorted(
        (c for c in candidates if c.entry is not None),
        key=lambda c: c.entry.id if c.entry else 0,
        reverse=True,
    )
    if not found:
        words = _WORDS[kind] if kind else "rate limiter or threshold"
        raise UndoRefused(
            f"nothing to undo: no {words} change of profile {profile!r} is in the journal"
        )
    newest = found[0]
    other = next((c for c in found[1:] if c.possible), None)
    if not newest.possible:
        if fall_back and other is not None:
            return _plan(session, other, passed_over=newest)
        raise UndoRefused(newest.reason or "nothing to undo", other=other.kind if other else None)
    return _plan(session, newest)


def _plan(
    session: Session, candidate: UndoCandidate, *, passed_over: UndoCandidate | None = None
) -> UndoPlan:
    entry, restore, target = candidate.entry, candidate.restore, candidate.target_id
    assert entry is not None and restore is not None
    if target is None:
        raise UndoRefused(f"journal entry #{entry.id} does not name the id it changed")
    _check_base_url(session, entry)
    return UndoPlan(
        kind=candidate.kind,
        entry=entry,
        target_id=target,
        restore=restore,
        current=candidate.current,
        passed_over=passed_over,
    )


async def plan_change(session: Session, plan: UndoPlan) -> PlannedChange[Any]:
    """The undo as a :class:`PlannedChange` (``undo_of`` = the undone entry).

    Its texts say which entry is undone, now -> restored, and which newer
    change was passed over, if one was.
    """
    change: PlannedChange[Any]
    to = (session, plan.account, plan.project, plan.target_id)  # where the undo is sent
    if plan.kind == "limiter":
        change = await planning.plan_limiter(*to, plan.restore_active(), undo_of=plan.undoes)
    else:
        change = await planning.plan_thresholds(*to, plan.restore_thresholds(), undo_of=plan.undoes)
    entry = plan.entry
    now = value_text(plan.current) if plan.current is not None else "?"
    lines = [
        f"Journal entry #{entry.id}, {when(entry)}, by {entry.operator}",
        f"{'Rate limiter' if plan.kind == 'limiter' else 'Dimension'} {plan.target_id}",
        f"Project {plan.project}, account {plan.account}",
        f"Now: {now}",
        f"Restore: {plan.restored}",
        f"A new request sets the value back; the journal records it as the undo of #{entry.id}.",
    ]
    skipped = plan.passed_over
    if skipped is not None and skipped.entry is not None:
        lines[:0] = [
            f"The newer {_WORDS[skipped.kind]} change (#{skipped.entry.id}) cannot be undone: "
            f"{skipped.reason}",
            f"This undoes the last {_WORDS[plan.kind]} change instead.",
        ]
    return replace(
        change,
        title=f"Undo the last {_WORDS[plan.kind]} change?",
        confirm_label="Undo",
        lines=tuple(lines),
    )


async def apply(
    session: Session,
    plan: UndoPlan,
    *,
    confirmed: bool = False,
    change: PlannedChange[Any] | None = None,
) -> Applied[Any]:
    """Send the undo, journaled as its own entry with ``undo_of`` = the undone entry.

    The journal is read again first: when another change of the same kind was
    journaled since the plan was made (another terminal, another process),
    nothing is sent. ``change`` is the :func:`plan_change` a face showed: it is
    sent as it is (planned here when not given).

    Raises:
        UndoRefused: the plan is no longer the last change of its kind.
        RefusedError: read-only, or protected and not ``confirmed``.
        ValueError: ``change`` is not the undo of ``plan``'s entry.
        BottuiError: as :func:`bottui.ops.mutations.apply`.
    """
    session.check_may_change(
        confirmed=confirmed, reason=change.reason if change is not None else None
    )
    if change is not None and change.undo_of != plan.undoes:
        raise ValueError(f"the planned change does not undo journal entry #{plan.entry.id}")
    latest = await find(session, plan.kind)
    if latest.entry.id != plan.entry.id:
        raise UndoRefused(
            f"journal entry #{latest.entry.id} is now the last {_WORDS[plan.kind]} change "
            f"(the plan was to undo #{plan.entry.id}): nothing was sent; look again"
        )
    if change is None:
        change = await plan_change(session, plan)
    return await mutations.apply(session, change, confirmed=confirmed)


# -- one journal row ------------------------------------------------------------------------

#: Entries a search for newer changes (or the newest change) reads at most.
SCAN_LIMIT: Final = 500
#: Newer changes the confirmation names one by one (the rest are counted).
NAMED: Final = 4
_KINDS: Final[dict[str, UndoKind]] = {
    Operation.SET_LIMITER_ACTIVE: "limiter",
    Operation.SET_THRESHOLDS: "thresholds",
}
_CHANGES: Final = tuple(_KINDS)


class ChangedSince(msgspec.Struct, frozen=True):
    """The changes of the same object journaled after the row, newest first."""

    entries: tuple[JournalEntry, ...] = ()
    #: False when the search stopped at :data:`SCAN_LIMIT` entries without an answer.
    complete: bool = True

    @property
    def newest(self) -> JournalEntry | None:
        """The newest change since the row, if any."""
        return self.entries[0] if self.entries else None

    def key(self) -> str | None:
        """What :func:`apply_row` compares: the newest change's identity."""
        newest = self.newest
        return None if newest is None else identity(newest)


class RowUndo(msgspec.Struct, frozen=True):
    """An undo of one row: the plan, and what changed the object since (not cleaned)."""

    plan: UndoPlan
    since: ChangedSince
    #: The operator name the journal writes for this session ("you").
    me: str

    def warning(self) -> list[str]:
        """Lines that warn the object changed since the row; empty: it did not."""
        out: list[str] = []
        shown = self.since.entries[:NAMED]
        if shown:
            out.append(
                f"Changed since journal entry {entry_ref(self.plan.entry)}: this undo puts back "
                "the value from before it, over these newer changes:"
            )
            for entry in shown:
                who = "you" if entry.operator == self.me else entry.operator
                outcome = entry.outcome or "no outcome yet"
                out.append(
                    f"  {entry_ref(entry)} {when(entry)} by {who}: {value_text(entry.request_body)}"
                    f" ({outcome})"
                )
            more = len(self.since.entries) - len(shown)
            if more:
                out.append(f"  and {more} more")
        plan = self.plan
        if shown and plan.current == plan.restore:
            out.append(f"It is {plan.restored} already: the undo sends that value again.")
        if not self.since.complete:
            out.append(
                f"Could not check every newer entry (the newest {SCAN_LIMIT} of this "
                "project were read): the value may have changed since."
            )
        return out


def kind_of(entry: JournalEntry) -> UndoKind | None:
    """``limiter`` or ``thresholds`` for a change undo knows; None otherwise."""
    return _KINDS.get(entry.operation)


def refusal(entry: JournalEntry, current: tuple[str, str] | None) -> str | None:
    """Why ``entry`` cannot be undone from the project ``current``; None: it can be tried."""
    ref = f"journal entry {entry_ref(entry)}"
    if current is None:
        return "no project is chosen: choose one (1), then undo its changes"
    if (entry.account, entry.project) != current:
        return (
            f"{ref} is a change of project {entry.account}/{entry.project}, not of "
            f"{current[0]}/{current[1]}: switch to that project (1) to undo it"
        )
    if entry.operation == Operation.REVOKE_GRANT:
        return (
            f"{ref} is a revocation: the API has no call that gives a challenge grant back, "
            "so it cannot be undone"
        )
    if kind_of(entry) is None:
        return f"{ref} ({entry.operation}) is not a rate limiter or threshold change"
    if entry.unfinished:
        return (
            f"{ref} has no outcome: it is still running or was cut off, so whether it "
            "changed anything is not known"
        )
    if entry.outcome in NO_CHANGE_OUTCOMES:
        return f"{ref} ended as {entry.outcome}: it changed nothing, so there is nothing to undo"
    if entry.outcome != Outcome.OK:
        return (
            f"{ref} ended as {entry.outcome}: whether it changed anything is not known, "
            "so the value to put back is not known"
        )
    if value_of(_kind(entry), entry.previous) is None:
        return f"{ref} was sent when the value before it was not known: nothing to restore"
    return None


def _check_base_url(session: Session, entry: JournalEntry) -> None:
    """Refuse an entry sent to another base URL than the session's."""
    if entry.base_url != session.base_url:
        raise UndoRefused(
            f"journal entry {entry_ref(entry)} was sent to {entry.base_url}, but this session "
            f"works against {session.base_url}: undo it from a session on that base URL"
        )


def _unreadable(exc: StoreError, unknown: str) -> UndoRefused:
    """The refusal when the journal cannot be read, saying what is then not known."""
    return UndoRefused(f"the journal cannot be read ({exc.title}), so {unknown}")


def _kind(entry: JournalEntry) -> UndoKind:
    kind = kind_of(entry)
    assert kind is not None
    return kind


def identity(entry: JournalEntry) -> str:
    """The entry's event id, or its local number when it has none: one key per change."""
    return entry.event_id or f"local:{entry.id}"


def _newer(entry: JournalEntry, other: JournalEntry) -> bool:
    """True when ``other`` was journaled after ``entry`` (start time, then id)."""
    if identity(other) == identity(entry):
        return False
    mine, theirs = entry_started(entry), entry_started(other)
    if theirs != mine:
        return theirs > mine
    # Ids compare within one namespace only: this machine's numbers, or the shared
    # journal's rows of teammates (#27: a local #7 and a teammate's row 7 are not one).
    same = (other.local_id is None) == (entry.local_id is None)
    return same and other.id > entry.id and other.shared == entry.shared


async def newer_changes(
    pages: JournalReader | SqliteJournalStore, entry: JournalEntry
) -> ChangedSince:
    """The changes of ``entry``'s limiter or dimension journaled after it, newest first.

    Attempts that surely changed nothing (api-error, refused) are left out;
    one without a known outcome counts (it may have changed the value).
    Reads at most :data:`SCAN_LIMIT` entries of the project since ``entry``.
    """
    query = EntryQuery(
        since=entry_started(entry),
        account=entry.account,
        project=entry.project,
        operation=entry.operation,
    )
    page = await pages.page(query, limit=SCAN_LIMIT)
    aim = target_id(entry)
    found = tuple(
        other
        for other in page.entries
        if other.base_url == entry.base_url
        and target_id(other) == aim
        and other.outcome not in NO_CHANGE_OUTCOMES
        and _newer(entry, other)
    )
    return ChangedSince(found, complete=page.next is None or bool(found))


def _me(session: Session) -> str:
    # Looked up on the journal module at call time: the journal writes that name.
    operator: str = getattr(journal_file, "local_operator")()  # noqa: B009
    return session.settings.operator or operator


async def plan_row(
    session: Session,
    pages: JournalReader | SqliteJournalStore,
    entry: JournalEntry,
    current: tuple[str, str] | None,
) -> RowUndo:
    """The undo of ``entry`` from project ``current``: restores the value before it.

    Raises:
        UndoRefused: why ``entry`` cannot be undone (nothing is read then).
    """
    why = refusal(entry, current)
    if why is not None:
        raise UndoRefused(why)
    _check_base_url(session, entry)
    kind = _kind(entry)
    try:
        since = await newer_changes(pages, entry)
    except (JournalUnavailable, StoreError) as exc:
        raise _unreadable(exc, "whether the value changed since is not known") from None
    newest = since.newest
    # "Now" is what the newest change set; unknown when its outcome is.
    if newest is None:
        now = value_of(kind, entry.request_body)
    elif newest.outcome == Outcome.OK:
        now = value_of(kind, newest.request_body)
    else:
        now = None
    restore = value_of(kind, entry.previous)
    assert restore is not None  # refusal() checked it
    plan = UndoPlan(
        kind=kind,
        entry=entry,
        target_id=target_id(entry),
        restore=restore,
        current=now,
        undo_of=_local_id(entry),
    )
    return RowUndo(plan, since, _me(session))


def _local_id(entry: JournalEntry) -> int | None:
    """The id ``undo_of`` names: this machine's journal id, None for a teammate's entry."""
    if entry.shared is None or entry.shared is False:
        return entry.id
    # A shared entry: its local id is only ours when this machine's journal wrote it.
    return None


async def plan_latest(
    session: Session, pages: JournalReader | SqliteJournalStore, current: tuple[str, str] | None
) -> RowUndo:
    """The undo of the newest rate limiter or threshold change of project ``current``.

    Changes that surely changed nothing are looked past; the newest other one
    must be undoable, or this refuses saying why (nothing older is chosen
    instead: the operator picks an older row on the Journal screen).

    Raises:
        UndoRefused: no project, nothing to undo, or why the newest change cannot be.
    """
    if current is None:
        raise UndoRefused("no project is chosen: choose one (1), then undo its changes")
    query = EntryQuery(account=current[0], project=current[1])
    try:
        page = await pages.page(query, limit=SCAN_LIMIT)
    except (JournalUnavailable, StoreError) as exc:
        raise _unreadable(exc, "the last change is not known") from None
    newest = next(
        (
            e
            for e in page.entries
            if e.operation in _CHANGES
            and e.outcome not in NO_CHANGE_OUTCOMES
            and e.base_url == session.base_url
        ),
        None,
    )
    if newest is None:
        looked = "" if page.next is None else f" among its newest {SCAN_LIMIT} entries"
        raise UndoRefused(
            f"nothing to undo: no rate limiter or threshold change of project "
            f"{current[0]}/{current[1]} is in the journal{looked}"
        )
    return await plan_row(session, pages, newest, current)


async def plan_row_change(session: Session, row: RowUndo) -> PlannedChange[Any]:
    """The undo as a :class:`PlannedChange`, its texts saying what changed since."""
    change = await plan_change(session, row.plan)
    lines = row.warning()
    return replace(
        change,
        lines=(*change.lines, *lines),
        title=f"Undo journal entry {entry_ref(row.plan.entry)}?",
    )


async def apply_row(
    session: Session,
    pages: JournalReader | SqliteJournalStore,
    row: RowUndo,
    change: PlannedChange[Any],
) -> Applied[Any]:
    """Send the confirmed undo of ``row``, unless the object changed again meanwhile.

    Raises:
        UndoRefused: a newer change of the object was journaled after the
            confirmation was shown: nothing was sent.
        RefusedError: read-only (the confirmation was given, so protected passes).
        BottuiError: as :func:`bottui.ops.mutations.apply`.
    """
    session.check_may_change(confirmed=True, reason=change.reason)
    try:
        again = await newer_changes(pages, row.plan.entry)
    except (JournalUnavailable, StoreError):
        again = row.since  # the journal went away: the confirmation's check stands
    if again.key() != row.since.key():
        newest = again.newest
        assert newest is not None
        raise UndoRefused(
            f"{row.plan.what} was changed again (journal entry {entry_ref(newest)}, "
            f"{when(newest)}, by {newest.operator}) after the confirmation was shown: "
            "nothing was sent; look again"
        )
    return await mutations.apply(session, change, confirmed=True)
