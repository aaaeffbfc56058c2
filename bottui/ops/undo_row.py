"""Undo one journal row, of the current project: the Journal screen's ``u``.

:func:`plan_row` takes the entry the operator picked (any row, not only the
newest) and either plans its undo (an :class:`~bottui.ops.undo.UndoPlan`
whose confirmation shows now -> restored) or refuses with
:class:`~bottui.ops.undo.UndoRefused` saying why: a revocation, an attempt
that failed or whose outcome is not known, another project's change,
another base URL. :func:`plan_latest` does the same for the newest change of
the current project (``u`` anywhere else, the palette).

An older row may have been changed since: :func:`newer_changes` reads the
changes of the same limiter or dimension journaled after it (in the
journal the face shows: this machine's, or the team's shared one), so the
confirmation can say who changed it and when, and the "now" value is the
newest change's, not the row's. :func:`apply` reads them again before
sending and sends nothing when another change arrived in between.

Every read is bounded (:data:`SCAN_LIMIT` entries) and awaited: the stores
read on their own threads, never on the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

import bottui.store.journal.sync as journal_module
from bottui.ops import mutations
from bottui.ops import undo as undo_ops
from bottui.ops.journal_view import entry_ref, target_id, value_text, when
from bottui.ops.undo import UndoPlan, UndoRefused
from bottui.store.errors import JournalUnavailable, StoreError
from bottui.store.journal.protocol import EntryQuery, entry_started
from bottui.store.journal.records import JournalEntry, Operation, Outcome
from bottui.store.journal.undo import NO_CHANGE_OUTCOMES, UndoKind, value_of

if TYPE_CHECKING:
    from bottui.ops.journal_pages import Pages
    from bottui.ops.mutations import Applied
    from bottui.ops.plan import PlannedChange
    from bottui.ops.session import Session
    from bottui.store.journal.protocol import JournalStore

#: Entries a search for newer changes (or the newest change) reads at most.
SCAN_LIMIT: Final = 500
#: Newer changes the confirmation names one by one (the rest are counted).
NAMED: Final = 4
_KINDS: Final[dict[str, UndoKind]] = {
    Operation.SET_LIMITER_ACTIVE: "limiter",
    Operation.SET_THRESHOLDS: "thresholds",
}
_CHANGES: Final = tuple(_KINDS)


@dataclass(frozen=True)
class ChangedSince:
    """The changes of the same object journaled after the row, newest first."""

    entries: tuple[JournalEntry, ...] = ()
    #: False when the search stopped at :data:`SCAN_LIMIT` entries without an answer.
    complete: bool = True

    @property
    def newest(self) -> JournalEntry | None:
        """The newest change since the row, if any."""
        return self.entries[0] if self.entries else None

    def key(self) -> str | None:
        """What :func:`apply` compares: the newest change's identity."""
        newest = self.newest
        return None if newest is None else _identity(newest)


@dataclass(frozen=True)
class RowUndo:
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


def _kind(entry: JournalEntry) -> UndoKind:
    kind = kind_of(entry)
    assert kind is not None
    return kind


def _identity(entry: JournalEntry) -> str:
    return entry.event_id or f"local:{entry.id}"


def _newer(entry: JournalEntry, other: JournalEntry) -> bool:
    """True when ``other`` was journaled after ``entry`` (start time, then id)."""
    if _identity(other) == _identity(entry):
        return False
    mine, theirs = entry_started(entry), entry_started(other)
    if theirs != mine:
        return theirs > mine
    # Ids compare within one namespace only: this machine's numbers, or the shared
    # journal's rows of teammates (#27: a local #7 and a teammate's row 7 are not one).
    same = (other.local_id is None) == (entry.local_id is None)
    return same and other.id > entry.id and other.shared == entry.shared


async def newer_changes(pages: Pages | JournalStore, entry: JournalEntry) -> ChangedSince:
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
    operator: str = getattr(journal_module, "local_operator")()  # noqa: B009
    return session.settings.operator or operator


async def plan_row(
    session: Session,
    pages: Pages | JournalStore,
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
    if entry.base_url != session.base_url:
        raise UndoRefused(
            f"journal entry {entry_ref(entry)} was sent to {entry.base_url}, but this session "
            f"works against {session.base_url}: undo it from a session on that base URL"
        )
    kind = _kind(entry)
    try:
        since = await newer_changes(pages, entry)
    except (JournalUnavailable, StoreError) as exc:
        raise UndoRefused(
            f"the journal cannot be read ({exc.title}), so whether the value changed "
            "since is not known"
        ) from None
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
    session: Session, pages: Pages | JournalStore, current: tuple[str, str] | None
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
        raise UndoRefused(
            f"the journal cannot be read ({exc.title}), so the last change is not known"
        ) from None
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


async def plan_change(session: Session, row: RowUndo) -> PlannedChange[Any]:
    """The undo as a :class:`PlannedChange`, its texts saying what changed since."""
    change = await undo_ops.plan_change(session, row.plan)
    lines = row.warning()
    return replace(
        change,
        lines=(*change.lines, *lines),
        title=f"Undo journal entry {entry_ref(row.plan.entry)}?",
    )


async def apply(
    session: Session,
    pages: Pages | JournalStore,
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


__all__ = [
    "NAMED",
    "SCAN_LIMIT",
    "ChangedSince",
    "RowUndo",
    "apply",
    "kind_of",
    "newer_changes",
    "plan_latest",
    "plan_row",
    "refusal",
]
