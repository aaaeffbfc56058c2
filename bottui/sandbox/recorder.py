"""Counters and the request log of the API requests the sandbox served.

Thread-safe: the server's thread writes, a test reads. Token values are
never recorded: an entry names the token kind, owner and label only, and the
headers that carry credentials are left out.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any, Final

#: Request headers never recorded (they carry credentials).
SECRET_HEADERS: Final = frozenset({"x-api-key", "authorization", "cookie", "proxy-authorization"})


@dataclass(frozen=True)
class AuthInfo:
    """Who a request authenticated as: token kind, owner, label. Not the token."""

    kind: str
    account_id: str
    project_id: str | None
    label: str


@dataclass(frozen=True)
class RequestRecord:
    """One API request as received and answered.

    ``segments`` are the percent-decoded path segments (empty when a segment
    was not UTF-8); ``json`` is the parsed body or ``None`` when the body was
    empty or not JSON; ``status`` is ``None`` until answered; ``fault`` names
    the injected fault that shaped the answer, if any.
    """

    method: str
    raw_path: str
    segments: tuple[str, ...]
    query_string: str
    body: bytes
    json: Any
    content_type: str | None
    headers: tuple[tuple[str, str], ...]
    auth: AuthInfo | None = None
    status: int | None = None
    fault: str | None = None
    dropped: bool = False


@dataclass(frozen=True)
class Stats:
    """A snapshot of the counters."""

    requests: int
    in_flight: int
    peak_in_flight: int

    def to_json(self) -> dict[str, int]:
        """The counters as served by ``GET /_sandbox/stats``."""
        return {
            "requests": self.requests,
            "inFlight": self.in_flight,
            "peakInFlight": self.peak_in_flight,
        }


class Recorder:
    """Counts API requests (total, in flight, peak in flight) and logs them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests = 0
        self._in_flight = 0
        self._peak = 0
        self._log: list[RequestRecord] = []

    def begin(self) -> None:
        """A request arrived."""
        with self._lock:
            self._requests += 1
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)

    def end(self, record: RequestRecord) -> None:
        """A request was answered (or dropped): log it."""
        with self._lock:
            self._in_flight -= 1
            self._log.append(record)

    def stats(self) -> Stats:
        """The counters now."""
        with self._lock:
            return Stats(self._requests, self._in_flight, self._peak)

    @property
    def log(self) -> list[RequestRecord]:
        """A copy of the request log, oldest first."""
        with self._lock:
            return list(self._log)

    def last(self) -> RequestRecord:
        """The latest logged request; ``LookupError`` when none."""
        with self._lock:
            if not self._log:
                raise LookupError("no request logged yet")
            return self._log[-1]

    def reset(self) -> None:
        """Zero the total and the peak (to what is in flight now) and clear the log."""
        with self._lock:
            self._requests = 0
            self._peak = self._in_flight
            self._log.clear()


def safe_headers(headers: list[tuple[bytes, bytes]]) -> tuple[tuple[str, str], ...]:
    """Request headers as text, without the ones that carry credentials."""
    kept: list[tuple[str, str]] = []
    for name, value in headers:
        key = name.decode("latin-1").lower()
        if key not in SECRET_HEADERS:
            kept.append((key, value.decode("latin-1")))
    return tuple(kept)


def finished(record: RequestRecord, status: int | None, **changes: Any) -> RequestRecord:
    """``record`` with its answer filled in."""
    return replace(record, status=status, **changes)
