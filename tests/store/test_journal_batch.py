"""Tests of the batched journal writer of bulk runs."""

from __future__ import annotations

import itertools
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bottui.api.tokens import AccessToken
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import Operation, StartRecord
from bottui.store.store_errors import JournalUnavailable

T0 = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def record(n: int, **overrides: Any) -> StartRecord:
    fields: dict[str, Any] = {
        "profile": "prod",
        "base_url": "https://api.example.com",
        "operation": Operation.REVOKE_GRANT,
        "account": "acc",
        "project": "p1",
        "target": {"visitorId": f"v-{n}"},
        "request_body": {"subject": {"visitorId": f"v-{n}"}},
    }
    fields.update(overrides)
    return StartRecord(**fields)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal(tmp_path / "journal.sqlite3", operator="ops@box")
    yield j
    j.close()


def others_view(journal: Journal) -> Journal:
    """A second reader, as another process would see the file."""
    return Journal(journal.path)


def test_started_records_now_outcomes_per_batch(journal: Journal) -> None:
    reader = others_view(journal)
    with journal.batch(batch_size=3, interval=0) as batch:
        ids = batch.start_many([record(n) for n in range(5)])
        assert ids == sorted(ids) and len(set(ids)) == 5
        assert len(reader.entries(unfinished=True)) == 5  # written before "sending"
        batch.finish(ids[0], outcome="withdrawn", status=200, duration_ms=5)
        batch.finish(ids[1], outcome="nothing-standing", status=200)
        assert batch.pending == 2
        assert len(reader.entries(unfinished=True)) == 5  # still in memory
        batch.finish(ids[2], outcome="api-error", status=400, error={"message": "bad"})
        assert batch.pending == 0  # the third filled the batch
        assert len(reader.entries(unfinished=True)) == 2
        batch.finish(ids[3], outcome="withdrawn")
        batch.flush()
        assert len(reader.entries(unfinished=True)) == 1
        batch.finish(ids[4], outcome="withdrawn")
    # close() flushed the rest.
    assert reader.entries(unfinished=True) == []
    outcomes = {e.id: e.outcome for e in reader.entries()}
    assert [outcomes[i] for i in ids] == [
        "withdrawn",
        "nothing-standing",
        "api-error",
        "withdrawn",
        "withdrawn",
    ]
    assert reader.entry(ids[2]).error == {"message": "bad"}  # type: ignore[union-attr]


def test_the_interval_flushes_without_further_calls(journal: Journal) -> None:
    reader = others_view(journal)
    with journal.batch(batch_size=1000, interval=0.1) as batch:
        (entry_id,) = batch.start_many([record(1)])
        batch.finish(entry_id, outcome="withdrawn")
        deadline = time.monotonic() + 60
        while reader.entries(unfinished=True) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert reader.entries(unfinished=True) == []
        assert batch.pending == 0


def test_whole_entries_in_one_go(tmp_path: Path) -> None:
    counter = itertools.count()
    journal = Journal(
        tmp_path / "j.sqlite3", clock=lambda: T0 + timedelta(seconds=10 * next(counter))
    )
    with journal.batch(interval=0) as batch:
        batch.record(record(1), outcome="withdrawn", status=200, duration_ms=1500)
        batch.record(record(2), outcome="network-error", error={"message": "reset"})
    second, first = journal.entries()
    assert first.finished_at == "2025-06-01T12:00:00.000000Z"
    assert first.started_at == "2025-06-01T11:59:58.500000Z"  # finished - duration
    assert (first.outcome, first.duration_ms) == ("withdrawn", 1500.0)
    assert second.started_at == second.finished_at and second.outcome == "network-error"


def test_a_refused_outcome_never_costs_the_rest(journal: Journal) -> None:
    with journal.batch(interval=0) as batch:
        ids = batch.start_many([record(n) for n in range(3)])
        batch.finish(ids[0], outcome="withdrawn")
        batch.finish(ids[0], outcome="withdrawn")  # twice
        batch.finish(99999, outcome="withdrawn")  # no such entry
        batch.finish(ids[1], outcome="withdrawn")
        with pytest.raises(ValueError, match="99999"):
            batch.flush()
        assert batch.pending == 0
    assert {e.id: e.outcome for e in journal.entries()} == {
        ids[0]: "withdrawn",
        ids[1]: "withdrawn",
        ids[2]: None,
    }


def test_a_refused_whole_entry_keeps_no_reason_its_neighbour_needs(journal: Journal) -> None:
    """A whole entry refused (its run names nothing) rolls back the reason it added;
    the next entry giving that reason is still written, with it."""
    with journal.batch(interval=0) as batch:
        batch.record(record(1, run_id=4242, reason="INC-9"), outcome="withdrawn")
        batch.record(record(2, reason="INC-9"), outcome="withdrawn")
        with pytest.raises(ValueError, match="refused"):
            batch.flush()
    found = [(e.target, e.reason, e.outcome) for e in journal.entries()]
    assert found == [({"visitorId": "v-2"}, "INC-9", "withdrawn")]


def test_refusals_are_reported_at_close_and_bad_runs_at_once(journal: Journal) -> None:
    batch = journal.batch(interval=0)
    (entry_id,) = batch.start_many([record(1)])
    with pytest.raises(ValueError, match="does not exist"):
        batch.start_many([record(2, run_id=4242)])
    batch.finish(entry_id, outcome="withdrawn")
    batch.finish(entry_id, outcome="withdrawn")
    with pytest.raises(ValueError, match=f"#{entry_id}"):
        batch.close()
    assert [(e.id, e.outcome) for e in journal.entries()] == [(entry_id, "withdrawn")]


def test_tokens_and_bad_values_are_refused_at_the_call(journal: Journal) -> None:
    with journal.batch(interval=0) as batch:
        with pytest.raises(TypeError):
            batch.start_many([record(1, request_body={"t": AccessToken("tok")})])
        with pytest.raises(TypeError):
            batch.record(record(1), outcome="ok", result={"t": AccessToken("tok")})
        with pytest.raises(ValueError):
            batch.finish(1, outcome="Not A Word")
        assert batch.pending == 0


def test_an_unavailable_journal_keeps_the_batch_for_later(journal: Journal) -> None:
    batch = Journal(journal.path, busy_timeout=0.1).batch(interval=0)
    ids = batch.start_many([record(n) for n in range(2)])
    batch.finish(ids[0], outcome="withdrawn")
    other = sqlite3.connect(journal.path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(JournalUnavailable, match="locked"):
            batch.flush()
        assert batch.pending == 1  # kept
        batch.finish(ids[1], outcome="withdrawn")
        assert batch.pending == 2
    finally:
        other.execute("ROLLBACK")
        other.close()
    batch.close()
    assert journal.entries(unfinished=True) == []
    assert len(journal.entries()) == 2


def test_close_reports_what_it_could_not_write(journal: Journal) -> None:
    batch = Journal(journal.path, busy_timeout=0.1).batch(interval=0)
    ids = batch.start_many([record(n) for n in range(3)])
    for entry_id in ids:
        batch.finish(entry_id, outcome="withdrawn")
    other = sqlite3.connect(journal.path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(JournalUnavailable) as caught:
            batch.close()
        assert "3 outcome(s) were not journaled" in caught.value.details
    finally:
        other.execute("ROLLBACK")
        other.close()
    batch.close()  # closing twice is harmless
    with pytest.raises(ValueError):
        batch.start_many([record(9)])
    assert len(journal.entries(unfinished=True)) == 3


def test_batch_size_must_be_positive(journal: Journal) -> None:
    with pytest.raises(ValueError):
        journal.batch(batch_size=0)
