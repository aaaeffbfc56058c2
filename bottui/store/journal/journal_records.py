"""What a journal record holds, what a read asks and gets, and what undo would do.

A mutation attempt is journaled as a :class:`StartRecord` (before the request)
and an outcome (after it); read back, the two are one :class:`JournalEntry`
(``started_at``/``finished_at`` are ISO 8601 UTC text; :func:`entry_started`
gives the ``datetime``). Everything that reaches a row passes through
:func:`bottui.store.redact.redact` (``serverKey`` becomes ``"***"``, a token
object is refused).

Reads: ids are :data:`EntryId`/:data:`RunId`; an :class:`EntryQuery` says
which entries, and a read returns an :class:`EntryPage`, newest first, with a
:class:`~bottui.store.paging.Cursor` the store made (opaque to callers).
:class:`JournalReader` is the one shape two stores share: this machine's
SQLite journal (:class:`~bottui.store.journal.journal_store.SqliteJournalStore`) and
the team's shared journal on PostgreSQL, merged with this machine's entries
not yet in it (:class:`~bottui.ops.shared_journal.SharedJournal`). Every other
journal call has one implementation, so it is that class's, not a Protocol's.

Which change ``bottui undo`` would reverse, and with what value, or why not:
:func:`undo_candidate` looks at the newest attempt of one kind (rate limiter
or thresholds) of a profile, as :meth:`Journal.last_undoable
<bottui.store.journal.journal_file.Journal.last_undoable>` found it, and decides. An
attempt that surely changed nothing (``api-error``, ``refused``) is skipped
by that query. The newest remaining attempt must have succeeded (``ok``) and
carry the value before it (``previous``); an attempt without a known outcome
(unfinished, network error, unknown) makes the current value uncertain, so
undo refuses rather than guess. An undo is itself a change of its kind with
``undo_of`` set: undoing it again is a redo.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import socket
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from operator import attrgetter
from typing import Any, Final, Literal, NewType, Protocol, Required, TypedDict

import msgspec

from bottui.api.errors import ValidationError
from bottui.api.models import DimensionThresholds, RevocationOutcome
from bottui.api.requests import JSON_NUMBER, threshold_literal
from bottui.api.tokens import Secret
from bottui.store.paging import Cursor
from bottui.store.redact import JsonValue, redacted_json
from bottui.store.utc import parse_time


class Operation(StrEnum):
    """The journaled operations (an undo uses its kind's operation and ``undo_of``)."""

    SET_LIMITER_ACTIVE = "limiter.set-active"
    REVOKE_GRANT = "grant.revoke"
    SET_THRESHOLDS = "thresholds.set"


class Outcome(StrEnum):
    """How an attempt ended, as one short word."""

    OK = "ok"
    WITHDRAWN = "withdrawn"
    NOTHING_STANDING = "nothing-standing"
    UNKNOWN = "unknown"
    UNKNOWN_RETRIED = "unknown-retried"
    API_ERROR = "api-error"
    NETWORK_ERROR = "network-error"
    UNUSABLE_BODY = "unusable-body"
    REFUSED = "refused"
    INTERRUPTED = "interrupted"
    #: A bulk run stopped before sending this id (``--resume`` sends it).
    NOT_SENT = "not-sent"
    #: The closing record of a bulk entry a crash left unfinished: a later
    #: attempt of the same run settled its id (``result.supersededBy`` names
    #: that entry; null when an earlier attempt had). Appended, never an edit.
    SUPERSEDED = "superseded"

    @classmethod
    def of_revocation(cls, outcome: RevocationOutcome) -> Outcome:
        """The journal word for a revocation's outcome (the member of the same name)."""
        return cls[outcome.name]


#: Outcomes of a bulk run's ids that ``--resume`` does not send again.
SETTLED_OUTCOMES: Final = (Outcome.WITHDRAWN, Outcome.NOTHING_STANDING)

_OUTCOME_WORD: Final = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")

_KNOWN_OUTCOMES: Final = frozenset(o.value for o in Outcome)


def limiter_target(rate_limiter_id: str) -> dict[str, str]:
    """The ``target`` of a rate limiter change."""
    return {"rate_limiter_id": rate_limiter_id}


def dimension_target(dimension_id: str) -> dict[str, str]:
    """The ``target`` of a threshold change."""
    return {"dimension_id": dimension_id}


def target_key(target: Mapping[str, Any]) -> str:
    """Canonical text of a target (sorted compact JSON): a bulk item's default key."""
    text = redacted_json(target, sort_keys=True)
    assert text is not None
    return text


@cache
def local_host() -> str:
    """This machine's host name, as journaled with every entry."""
    return socket.gethostname() or "localhost"


@cache
def local_operator() -> str:
    """``user@host`` of the person running bottui."""
    try:
        user = getpass.getuser()
    except Exception:  # no login name and no passwd entry
        user = f"uid{os.getuid()}" if hasattr(os, "getuid") else "unknown"
    return f"{user}@{local_host()}"


def reason_or_none(value: object) -> str | None:
    """A reason as stored: None for none or blank (spaces only), else exactly as given."""
    if value is None:
        return None
    reason = text("reason", value)
    return reason if reason.strip() else None


def text(field: str, value: object) -> str:
    """A string field of a row; refuses tokens and non-strings, repairs lone surrogates."""
    if type(value) is str and value.isascii():
        return value
    if isinstance(value, Secret):
        raise TypeError("a token must never be journaled or stored")
    if not isinstance(value, str):
        raise TypeError(f"{field} must be a string, not {type(value).__name__}")
    if value.isascii():
        return value
    return value.encode("utf-8", "replace").decode("utf-8")


def outcome_word(value: str) -> str:
    """Check an outcome: a short lowercase word such as ``ok`` or ``api-error``."""
    if value in _KNOWN_OUTCOMES:
        return str(value)
    word = text("outcome", value)
    if not _OUTCOME_WORD.fullmatch(word):
        raise ValueError(f"an outcome is a short lowercase word like 'api-error', not {word!r}")
    return str(word)


class OutcomeFields(TypedDict, total=False):
    """The outcome of an entry, as the writers take it (``**outcome``).

    ``outcome`` (required): a word of :class:`Outcome` (``ok``, ``api-error``,
    ...); ``status``: the HTTP status, when there was an answer; ``result``:
    what the answer said (redacted), e.g. ``{"revoked": true, "reportId":
    ...}``; ``error``: the error object, e.g. ``ApiError.to_json()["error"]``;
    ``duration_ms``: time from sending to the answer (retries included).
    """

    outcome: Required[str]
    status: int | None
    result: Mapping[str, Any] | None
    error: Mapping[str, Any] | None
    duration_ms: float | None


class StartRecord(msgspec.Struct, frozen=True):
    """The *started* half of a journal entry, as the caller describes it.

    ``previous`` is the value before the change as the inventory knew it
    (``{"isActive": true}``, or ``{"name", "blockThreshold",
    "challengeThreshold"}`` with the numbers as literal strings), None when
    unknown. ``item_key`` identifies a bulk item for ``--resume`` (default:
    the canonical target). ``operator`` is who makes the change (None: the
    journal's own, ``user@host``); ``reason`` why, as given (None or blank:
    none). Both are untrusted text, stored exactly as given.
    """

    profile: str
    base_url: str
    operation: str
    account: str
    project: str
    target: Mapping[str, Any]
    request_body: Mapping[str, Any] | None = None
    previous: Mapping[str, Any] | None = None
    undo_of: int | None = None
    run_id: int | None = None
    item_key: str | None = None
    operator: str | None = None
    reason: str | None = None

    def row(self, started_at: str, operator: str, pid: int) -> tuple[object, ...]:
        """The ``entries`` row (redacted); raises TypeError on a token or bad type.

        ``operator`` is the journal's, used when the record names none.
        """
        if not isinstance(self.target, dict | Mapping):
            raise TypeError("target must be a JSON object")
        # Canonical (sorted keys): the stored target is also a bulk item's default key.
        target = redacted_json(self.target, sort_keys=True)
        key = self.item_key
        if key is None and self.run_id is not None:
            key = target
        who = operator if self.operator is None else text("operator", self.operator)
        return (
            started_at,
            who,
            pid,
            text("profile", self.profile),
            text("base_url", self.base_url),
            text("operation", self.operation),
            text("account", self.account),
            text("project", self.project),
            target,
            object_json("request_body", self.request_body),
            object_json("previous", self.previous),
            optional_int("undo_of", self.undo_of),
            optional_int("run_id", self.run_id),
            None if key is None else text("item_key", key),
        )


def json_object(field: str, value: object) -> None:
    """Refuse what is neither None nor a JSON object (a token said as such)."""
    if value is not None and not isinstance(value, dict | Mapping):
        if isinstance(value, Secret):
            raise TypeError("a token must never be journaled or stored")
        raise TypeError(f"{field} must be a JSON object, not {type(value).__name__}")


def object_json(
    field: str, value: Mapping[str, Any] | None, *, sort_keys: bool = False
) -> str | None:
    """A JSON object field as redacted compact text (None stays None)."""
    json_object(field, value)
    return None if value is None else redacted_json(value, sort_keys=sort_keys)


def optional_int(field: str, value: object) -> int | None:
    """An integer field (None stays None); a bool or anything else is refused."""
    if value is None or type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{field} must be an integer")
    return value


def duration(value: object) -> float | None:
    """``duration_ms`` as stored: a float, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("duration_ms must be a number")
    return float(value)


_THRESHOLD_KEYS: Final = ("blockThreshold", "challengeThreshold")


def previous_json(previous: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``previous`` as ``--json`` shows it: the thresholds as numbers, like ``request_body``.

    The journal keeps a threshold as the exact literal the server or the user
    gave (undo sends that text back); a script reading ``--json`` should not
    have to know that one field of three holds numbers as strings. Rows of
    every age and of the team store go through here, so old ones read the same.
    """
    if previous is None:
        return None
    if not isinstance(previous, Mapping):
        return previous  # a damaged row's text, kept as it is
    shown = dict(previous)
    for key in _THRESHOLD_KEYS:
        if key in shown:
            shown[key] = number_of(shown[key])
    return shown


def number_of(value: object) -> object:
    """A kept JSON number literal (``"0.80"``, the exact text) as the number; else as it is."""
    if isinstance(value, str) and JSON_NUMBER.fullmatch(value):
        return json.loads(value)
    return value


class JournalEntry(msgspec.Struct, frozen=True):
    """One mutation attempt: the started record joined with its outcome, if any."""

    id: int
    started_at: str
    operator: str
    pid: int
    profile: str
    base_url: str
    operation: str
    account: str
    project: str
    target: JsonValue
    request_body: JsonValue
    previous: JsonValue
    undo_of: int | None
    run_id: int | None
    item_key: str | None
    finished_at: str | None
    outcome: str | None
    status: int | None
    result: JsonValue
    error: JsonValue
    duration_ms: float | None
    #: The machine that wrote it (None: journaled before bottui recorded it).
    host: str | None = None
    #: Why, as the operator gave it (None: no reason given).
    reason: str | None = None
    #: The origin UUID of the journal file that wrote it (see :attr:`event_id`).
    origin: str | None = None
    #: With a team store: True when the shared journal holds it, False for a
    #: local entry not yet shared; None without a team store.
    shared: bool | None = None
    #: An entry read from the shared journal: its id in the journal that wrote it
    #: (``id`` is then the shared journal's own). None for this machine's own
    #: entries, which keep their local number as ``id`` in every view (#27).
    local_id: int | None = None
    #: With a team store: journaled here before the store was configured, and
    #: not shared (``bottui store sync --backfill`` shares it). ``shared`` is False.
    before_store: bool = False

    @property
    def event_id(self) -> str | None:
        """``ORIGIN:ID``: unique across every journal file (None without an origin)."""
        own = self.id if self.local_id is None else self.local_id
        return None if self.origin is None else f"{self.origin}:{own}"

    @property
    def unfinished(self) -> bool:
        """True when no outcome was recorded: still running, or cut off by a crash."""
        return self.outcome is None

    @property
    def outcome_label(self) -> str:
        """The outcome, or ``unfinished``."""
        return self.outcome if self.outcome is not None else "unfinished"

    def to_json(self) -> dict[str, Any]:
        """The entry as one JSON object (``--json``, JSONL export): :data:`FIELDS`, in order."""
        found = dict(zip(FIELDS, _FIELD_VALUES(self), strict=True))
        found["previous"] = previous_json(self.previous)
        if self.shared is not None:
            # Only with a team store (a local journal's JSON is what it was).
            found["shared"] = self.shared
        return found


#: Field order of :meth:`JournalEntry.to_json`, used as the CSV header.
FIELDS: Final = (
    "id",
    "started_at",
    "operator",
    "pid",
    "profile",
    "base_url",
    "operation",
    "account",
    "project",
    "target",
    "request_body",
    "previous",
    "undo_of",
    "run_id",
    "item_key",
    "unfinished",
    "finished_at",
    "outcome",
    "status",
    "result",
    "error",
    "duration_ms",
    # Issue #13, after the older fields: a CSV reader's columns stay where they were.
    "event_id",
    "host",
    "reason",
)
#: The values of :data:`FIELDS` of an entry, read at C speed (a stream writes millions).
_FIELD_VALUES: Final = attrgetter(*FIELDS)


#: A journal entry's id, given by the store; shown as ``#<id>``, compared for equality.
EntryId = NewType("EntryId", int)

#: A bulk run's id, given by the store.
RunId = NewType("RunId", int)

#: How many entries a page holds unless the caller says.
DEFAULT_PAGE: int = 200

#: Seconds a *started* record may wait for the journal before the change goes
#: ahead unjournaled (:class:`~bottui.store.store_errors.JournalUnavailable`).
START_BOUND: float = 15.0


class Filters(msgspec.Struct, frozen=True):
    """The filters of a journal read, this machine's or the team's; every one given must match.

    ``outcomes`` matches any of its words; ``unfinished`` only entries without
    an outcome. ``since``/``until`` are aware ``datetime`` (a naive one is
    taken as UTC): started at or after ``since``, before ``until``.
    ``operator`` matches exactly; ``reason`` is a case-insensitive substring
    of the reason.
    """

    since: datetime | None = None
    until: datetime | None = None
    profile: str | None = None
    account: str | None = None
    project: str | None = None
    operation: str | None = None
    outcomes: frozenset[str] | None = None
    unfinished: bool = False
    operator: str | None = None
    reason: str | None = None


class EntryQuery(Filters, frozen=True):
    """Which entries of this machine's journal to read (:class:`Filters`, and its ids).

    ``before`` keeps entries older than that id (``--before ID``); ``run_id``
    those of one bulk run. ``skip_runs`` leaves out the entries of those bulk
    runs of this machine's journal (the Journal screen, once it counted the
    rest of a run it shows as one row:
    :meth:`~bottui.store.journal.journal_file.Journal.run_rest`); a shared journal may
    ignore it (the run's entries then come again, counted once).
    """

    before: EntryId | None = None
    run_id: RunId | None = None
    skip_runs: frozenset[RunId] = frozenset()


class RunRest(msgspec.Struct, frozen=True):
    """The entries of a bulk run older than those read, counted, not read.

    ``outcomes``: outcome word (None: unfinished) -> how many; ``reasons``:
    the distinct reasons given (a resume may have given another).
    """

    outcomes: dict[str | None, int]
    reasons: frozenset[str]


class EntryPage(msgspec.Struct, frozen=True):
    """One page of entries, newest first, and the cursor of the next (``None``: the end)."""

    entries: tuple[JournalEntry, ...]
    next: Cursor | None


class ItemState(msgspec.Struct, frozen=True):
    """What a bulk run's journal knows of one item key (``--resume``).

    ``settled``: some attempt ended withdrawn or nothing-standing.
    ``last_outcome``: the outcome of its newest finished attempt (``None``: none).
    ``unfinished``: its attempts without an outcome (a crash lost their answer).
    """

    settled: bool
    last_outcome: str | None
    unfinished: tuple[EntryId, ...]


def entry_started(entry: JournalEntry) -> datetime:
    """When ``entry`` was started, as an aware UTC ``datetime``."""
    return parse_time(entry.started_at).astimezone(UTC)


class JournalReader(Protocol):
    """What reads the journal page by page: this machine's, or the team's shared one."""

    async def page(
        self,
        query: EntryQuery | None = None,
        *,
        limit: int = DEFAULT_PAGE,
        cursor: Cursor | None = None,
    ) -> EntryPage:
        """Up to ``limit`` entries matching ``query``, newest first, after ``cursor``.

        Raises:
            JournalUnavailable: the journal cannot be read.
        """
        ...


UndoKind = Literal["limiter", "thresholds"]

#: The operations each undo kind covers.
KIND_OPERATIONS: Final[dict[str, tuple[str, ...]]] = {
    "limiter": (Operation.SET_LIMITER_ACTIVE,),
    "thresholds": (Operation.SET_THRESHOLDS,),
}

#: Outcomes of attempts that changed nothing for sure; undo looks past them.
NO_CHANGE_OUTCOMES: Final = (Outcome.API_ERROR, Outcome.REFUSED)

_WORDS: Final = {"limiter": "rate limiter change", "thresholds": "threshold change"}

_TARGET_KEYS: Final = {"limiter": "rate_limiter_id", "thresholds": "dimension_id"}


class UndoCandidate(msgspec.Struct, frozen=True):
    """The change undo would reverse, or the reason it cannot.

    When :attr:`possible`, send :attr:`restore` (the value before
    :attr:`entry`) with a new request and journal it with
    ``previous=self.current`` and ``undo_of=self.entry.id``
    (:meth:`journal_fields` gives exactly those).
    """

    kind: UndoKind
    #: The newest attempt of this kind, or None when there is none.
    entry: JournalEntry | None
    #: The body that restores the previous value: ``{"isActive": bool}`` or
    #: ``{"name", "blockThreshold", "challengeThreshold"}`` (numbers as literal strings).
    restore: dict[str, Any] | None
    #: The value the entry set, in the same shape (``previous`` of the undo), if known.
    current: dict[str, Any] | None
    #: Why undo is refused; None when it is possible.
    reason: str | None

    @property
    def possible(self) -> bool:
        """True when there is a change to undo and its previous value is known."""
        return self.reason is None and self.entry is not None and self.restore is not None

    @property
    def target_id(self) -> str | None:
        """The rate limiter id or dimension id the entry changed."""
        if self.entry is None or not isinstance(self.entry.target, dict):
            return None
        value = self.entry.target.get(_TARGET_KEYS[self.kind])
        return value if isinstance(value, str) else None

    def restore_active(self) -> bool:
        """The active flag to send (kind ``limiter``)."""
        if self.kind != "limiter" or self.restore is None:
            raise ValueError(self.reason or "not a rate limiter undo")
        return bool(self.restore["isActive"])

    def restore_thresholds(self) -> DimensionThresholds:
        """The thresholds to send (kind ``thresholds``), literals as recorded."""
        if self.kind != "thresholds" or self.restore is None:
            raise ValueError(self.reason or "not a threshold undo")
        return DimensionThresholds.from_record(self.restore)

    def journal_fields(self) -> dict[str, Any]:
        """Keyword arguments for ``Journal.start`` (add ``profile`` and ``base_url``)."""
        if not self.possible or self.entry is None:
            raise ValueError(self.reason or "nothing to undo")
        return {
            "operation": self.entry.operation,
            "account": self.entry.account,
            "project": self.entry.project,
            "target": self.entry.target,
            "request_body": self.restore,
            "previous": self.current,
            "undo_of": self.entry.id,
        }


def undo_candidate(kind: UndoKind, profile: str, entry: JournalEntry | None) -> UndoCandidate:
    """Decide whether ``entry`` (the newest attempt of ``kind`` that may have changed
    something) can be undone."""
    word = _WORDS[kind]
    if entry is None:
        reason = f"no {word} of profile {profile!r} is in the journal"
        return UndoCandidate(kind, None, None, None, reason)
    ref = f"the last {word} (journal entry #{entry.id}, {entry.started_at})"
    current = value_of(kind, entry.request_body)
    if entry.unfinished:
        reason = (
            f"{ref} has no outcome: it is still running or was cut off, "
            "so the current value is not known"
        )
        return UndoCandidate(kind, entry, None, current, reason)
    if entry.outcome != Outcome.OK:
        reason = (
            f"{ref} ended as {entry.outcome!r}: whether it changed anything is not known, "
            "so the current value is not known"
        )
        return UndoCandidate(kind, entry, None, current, reason)
    if entry.previous is None:
        reason = (
            f"{ref} was sent when the value before it was not known, so there is nothing to restore"
        )
        return UndoCandidate(kind, entry, None, current, reason)
    restore = value_of(kind, entry.previous)
    if restore is None:
        reason = f"{ref} recorded a previous value bottui cannot use: {entry.previous!r}"
        return UndoCandidate(kind, entry, None, current, reason)
    return UndoCandidate(kind, entry, restore, current, None)


def value_of(kind: UndoKind, value: object) -> dict[str, Any] | None:
    """``value`` in the canonical shape of ``kind``, or None if it is not one.

    ``{"isActive": bool}`` for a limiter; for thresholds ``{"name": str,
    "blockThreshold": str, "challengeThreshold": str}`` with each number a JSON
    literal (a recorded number is turned into its shortest literal).
    """
    if not isinstance(value, Mapping):
        return None
    if kind == "limiter":
        active = value.get("isActive")
        return {"isActive": active} if isinstance(active, bool) else None
    name = value.get("name")
    if not isinstance(name, str):
        return None
    block_value, challenge_value = value.get("blockThreshold"), value.get("challengeThreshold")
    if block_value is None or challenge_value is None:
        return None
    try:
        block = threshold_literal("blockThreshold", block_value)
        challenge = threshold_literal("challengeThreshold", challenge_value)
    except ValidationError:
        return None
    return DimensionThresholds(name=name, block=block, challenge=challenge).record()
