"""What a journal record holds: its vocabulary, its dataclasses, its rows.

A mutation attempt is journaled as a :class:`StartRecord` (before the request)
and an outcome (after it); read back, the two are one :class:`JournalEntry`.
Everything that reaches a row passes through :func:`bottui.store.redact.redact`
(``serverKey`` becomes ``"***"``, a token object is refused).
"""

from __future__ import annotations

import getpass
import json
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any, Final

from bottui.api.models import RevocationOutcome
from bottui.api.requests import JSON_NUMBER
from bottui.api.tokens import Secret
from bottui.store.redact import JsonValue, redacted_json


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
        """The journal word for a revocation's outcome."""
        return _REVOCATION_OUTCOMES[outcome]


_REVOCATION_OUTCOMES: Final = {
    RevocationOutcome.WITHDRAWN: Outcome.WITHDRAWN,
    RevocationOutcome.NOTHING_STANDING: Outcome.NOTHING_STANDING,
    RevocationOutcome.UNKNOWN: Outcome.UNKNOWN,
    RevocationOutcome.UNKNOWN_RETRIED: Outcome.UNKNOWN_RETRIED,
}

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
def local_operator() -> str:
    """``user@host`` of the person running bottui."""
    try:
        user = getpass.getuser()
    except Exception:  # no login name and no passwd entry
        user = f"uid{os.getuid()}" if hasattr(os, "getuid") else "unknown"
    host = socket.gethostname() or "localhost"
    return f"{user}@{host}"


@cache
def local_host() -> str:
    """This machine's host name, as journaled with every entry."""
    return socket.gethostname() or "localhost"


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


@dataclass(frozen=True)
class StartRecord:
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

    def reason_text(self) -> str | None:
        """The reason to store: None when none or blank, else exactly as given."""
        return reason_or_none(self.reason)

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
            _object_json("request_body", self.request_body),
            _object_json("previous", self.previous),
            _optional_int("undo_of", self.undo_of),
            _optional_int("run_id", self.run_id),
            None if key is None else text("item_key", key),
        )


def outcome_row(
    entry_id: int,
    finished_at: str,
    *,
    outcome: str,
    status: int | None,
    result: Mapping[str, Any] | None,
    error: Mapping[str, Any] | None,
    duration_ms: float | None,
) -> tuple[object, ...]:
    """The ``outcomes`` row (redacted)."""
    if duration_ms is not None and (
        isinstance(duration_ms, bool) or not isinstance(duration_ms, int | float)
    ):
        raise TypeError("duration_ms must be a number")
    return (
        entry_id,
        finished_at,
        outcome_word(outcome),
        _optional_int("status", status),
        _object_json("result", result),
        _object_json("error", error),
        None if duration_ms is None else float(duration_ms),
    )


def _object_json(field: str, value: Mapping[str, Any] | None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict | Mapping):
        if isinstance(value, Secret):
            raise TypeError("a token must never be journaled or stored")
        raise TypeError(f"{field} must be a JSON object, not {type(value).__name__}")
    return redacted_json(value)


def _optional_int(field: str, value: object) -> int | None:
    if value is None or type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{field} must be an integer")
    return value


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


def _load(value: str | None) -> JsonValue:
    if value is None:
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value  # never lose what is there, even if it no longer parses


@dataclass(frozen=True)
class JournalEntry:
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

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> JournalEntry:
        """Build from a row of :data:`~bottui.store.journal.schema.SELECT_ENTRIES`."""
        (
            entry_id,
            started_at,
            operator,
            pid,
            profile,
            base_url,
            operation,
            account,
            project,
            target,
            request_body,
            previous,
            undo_of,
            run_id,
            item_key,
            finished_at,
            outcome,
            status,
            result,
            error,
            duration_ms,
        ) = row
        return cls(
            id=entry_id,
            started_at=started_at,
            operator=operator,
            pid=pid,
            profile=profile,
            base_url=base_url,
            operation=operation,
            account=account,
            project=project,
            target=_load(target),
            request_body=_load(request_body),
            previous=_load(previous),
            undo_of=undo_of,
            run_id=run_id,
            item_key=item_key,
            finished_at=finished_at,
            outcome=outcome,
            status=status,
            result=_load(result),
            error=_load(error),
            duration_ms=duration_ms,
        )

    @property
    def unfinished(self) -> bool:
        """True when no outcome was recorded: still running, or cut off by a crash."""
        return self.outcome is None

    @property
    def outcome_label(self) -> str:
        """The outcome, or ``unfinished``."""
        return self.outcome if self.outcome is not None else "unfinished"

    def to_json(self) -> dict[str, Any]:
        """The entry as one JSON object (``--json``, JSONL export)."""
        return {
            "id": self.id,
            "started_at": self.started_at,
            "operator": self.operator,
            "pid": self.pid,
            "profile": self.profile,
            "base_url": self.base_url,
            "operation": self.operation,
            "account": self.account,
            "project": self.project,
            "target": self.target,
            "request_body": self.request_body,
            "previous": previous_json(self.previous),
            "undo_of": self.undo_of,
            "run_id": self.run_id,
            "item_key": self.item_key,
            "unfinished": self.unfinished,
            "finished_at": self.finished_at,
            "outcome": self.outcome,
            "status": self.status,
            "result": self.result,
            "error": self.error,
            "duration_ms": self.duration_ms,
            # Issue #13, after the older fields: a CSV reader's columns stay where they were.
            "event_id": self.event_id,
            "host": self.host,
            "reason": self.reason,
            # Only with a team store (a local journal's JSON is what it was).
            **({} if self.shared is None else {"shared": self.shared}),
        }


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
    "event_id",
    "host",
    "reason",
)


__all__ = [
    "FIELDS",
    "SETTLED_OUTCOMES",
    "JournalEntry",
    "Operation",
    "Outcome",
    "StartRecord",
    "dimension_target",
    "limiter_target",
    "local_host",
    "local_operator",
    "number_of",
    "outcome_row",
    "outcome_word",
    "previous_json",
    "reason_or_none",
    "target_key",
    "text",
]
