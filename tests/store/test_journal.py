"""Tests of bottui.store.journal: records, redaction, append-only, queries, exports."""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from bottui.api.errors import ApiError, ErrorObject
from bottui.api.models import Revocation, RevocationOutcome
from bottui.api.tokens import AccessToken, ProjectToken
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal, file_sha256
from bottui.store.journal.journal_records import (
    Operation,
    Outcome,
    dimension_target,
    limiter_target,
    target_key,
)
from bottui.store.utc import normalize, parse_time, stamp

T0 = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def ticking_clock(start: datetime = T0, step: float = 1.0) -> Any:
    counter = itertools.count()
    return lambda: start + timedelta(seconds=step * next(counter))


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal.at(Locations.under(tmp_path), operator="ops@box", host="box", clock=ticking_clock())
    yield j
    j.close()


def start(journal: Journal, **overrides: Any) -> int:
    fields: dict[str, Any] = {
        "profile": "prod",
        "base_url": "https://api.example.com",
        "operation": Operation.SET_LIMITER_ACTIVE,
        "account": "acc",
        "project": "p1",
        "target": limiter_target("rl-1"),
        "request_body": {"isActive": False},
        "previous": {"isActive": True},
    }
    fields.update(overrides)
    return journal.start(**fields)


# -- records ----------------------------------------------------------------------------------


def test_nothing_is_created_until_a_write(tmp_path: Path) -> None:
    journal = Journal.at(Locations.under(tmp_path))
    assert journal.entries() == []
    assert journal.entry(1) is None
    assert not journal.last_undoable("prod", "limiter").possible
    assert list(tmp_path.iterdir()) == []


def test_a_success_is_a_started_and_an_outcome_record(journal: Journal) -> None:
    entry_id = start(journal)
    (pending,) = journal.entries()
    assert pending.unfinished and pending.outcome_label == "unfinished"
    journal.finish(
        entry_id,
        outcome=Outcome.OK,
        status=200,
        result={"isActive": False, "source": "response"},
        duration_ms=12.5,
    )
    (entry,) = journal.entries()
    assert not entry.unfinished
    assert entry.to_json() == {
        "id": entry_id,
        "event_id": f"{entry.origin}:{entry_id}",
        "started_at": "2025-06-01T12:00:00.000000Z",
        "operator": "ops@box",
        "host": "box",
        "reason": None,
        "pid": entry.pid,
        "profile": "prod",
        "base_url": "https://api.example.com",
        "operation": "limiter.set-active",
        "account": "acc",
        "project": "p1",
        "target": {"rate_limiter_id": "rl-1"},
        "request_body": {"isActive": False},
        "previous": {"isActive": True},
        "undo_of": None,
        "run_id": None,
        "item_key": None,
        "unfinished": False,
        "finished_at": "2025-06-01T12:00:01.000000Z",
        "outcome": "ok",
        "status": 200,
        "result": {"isActive": False, "source": "response"},
        "error": None,
        "duration_ms": 12.5,
    }


def test_an_api_error_is_recorded_with_its_error_object(journal: Journal) -> None:
    error = ApiError(500, ErrorObject("boom", "E_INTERNAL", "server_error", {"serverKey": "sk"}))
    entry_id = start(journal)
    journal.finish(
        entry_id,
        outcome=Outcome.API_ERROR,
        status=500,
        error=error.to_json()["error"],
        duration_ms=3,
    )
    entry = journal.entry(entry_id)
    assert entry is not None
    assert (entry.outcome, entry.status) == ("api-error", 500)
    assert entry.error == {
        "status": 500,
        "message": "boom",
        "code": "E_INTERNAL",
        "type": "server_error",
        "context": {"serverKey": "***"},
    }


def test_revocation_outcomes_and_results(journal: Journal) -> None:
    subject = {"visitorId": "v-1"}
    revocation = Revocation(revoked=False, report_id="r-1", retried_ambiguous=True, attempts=2)
    entry_id = start(
        journal,
        operation=Operation.REVOKE_GRANT,
        target=subject,
        request_body={"subject": subject},
        previous=None,
    )
    journal.finish(
        entry_id,
        outcome=Outcome.of_revocation(revocation.outcome),
        status=200,
        result=revocation.to_json(),
        duration_ms=800.0,
    )
    entry = journal.entry(entry_id)
    assert entry is not None and entry.outcome == "unknown-retried"
    assert entry.result["reportId"] == "r-1"
    assert {Outcome.of_revocation(o) for o in RevocationOutcome} == {
        "withdrawn",
        "nothing-standing",
        "unknown",
        "unknown-retried",
    }


def test_time_is_utc_and_operator_defaults_to_user_at_host(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    entry_id = start(journal)
    journal.finish(entry_id, outcome="ok")
    entry = journal.entry(entry_id)
    assert entry is not None
    assert STAMP.fullmatch(entry.started_at) and STAMP.fullmatch(entry.finished_at or "")
    started = datetime.fromisoformat(entry.started_at)
    assert abs(started - datetime.now(UTC)) < timedelta(minutes=1)
    user, _, host = entry.operator.partition("@")
    assert user and host


def test_server_key_is_masked_at_any_depth(journal: Journal) -> None:
    entry_id = start(
        journal,
        target={"rate_limiter_id": "rl", "serverKey": "sk-1"},
        request_body={"isActive": True, "nested": [{"serverKey": "sk-2"}], "server_key": "sk-3"},
        previous={"deep": {"deeper": {"ServerKey": "sk-4"}}},
    )
    journal.finish(
        entry_id,
        outcome="ok",
        result={"project": {"serverKey": "sk-5", "siteKey": "public"}},
        error={"context": {"serverKey": "sk-6"}},
    )
    journal.close()
    raw = b"".join(p.read_bytes() for p in journal.path.parent.iterdir())
    for n in range(1, 7):
        assert f"sk-{n}".encode() not in raw
    entry = journal.entry(entry_id)
    assert entry is not None
    assert entry.request_body["nested"] == [{"serverKey": "***"}]
    assert entry.result["project"] == {"serverKey": "***", "siteKey": "public"}


@pytest.mark.parametrize("where", ["target", "request_body", "previous", "profile", "account"])
def test_tokens_are_refused_anywhere(journal: Journal, where: str) -> None:
    token = AccessToken("never-in-the-journal")
    value: Any = token if where in ("profile", "account") else {"nested": [{"token": token}]}
    with pytest.raises(TypeError, match="token"):
        start(journal, **{where: value})
    entry_id = start(journal)
    with pytest.raises(TypeError, match="token"):
        journal.finish(entry_id, outcome="ok", result={"x": ProjectToken("tok")})
    with pytest.raises(TypeError):
        journal.finish(entry_id, outcome="ok", error=token)  # type: ignore[arg-type]


def test_values_that_are_not_json_are_refused(journal: Journal) -> None:
    with pytest.raises(TypeError):
        start(journal, request_body={"when": datetime.now(UTC)})
    for value in ({(1, 2): "tuple key"}, {"set": {1, 2}}, {"bytes": b"raw"}, {"obj": object()}):
        with pytest.raises(TypeError):
            start(journal, request_body=value)
    # Number keys become strings, as JSON writes them.
    entry = journal.entry(start(journal, request_body={1: "one"}))
    assert entry is not None and entry.request_body == {"1": "one"}
    with pytest.raises(ValueError):
        start(journal, request_body={"x": float("nan")})
    with pytest.raises(TypeError):
        start(journal, target=["not", "an", "object"])
    entry_id = start(journal)
    with pytest.raises(ValueError, match="lowercase word"):
        journal.finish(entry_id, outcome="nothing was standing")
    with pytest.raises(TypeError):
        journal.finish(entry_id, outcome="ok", duration_ms="5")  # type: ignore[arg-type]
    assert journal.entry(entry_id).unfinished  # type: ignore[union-attr]


def test_lone_surrogates_and_unicode_survive(journal: Journal) -> None:
    entry_id = start(journal, account="ünï ✓", request_body={"name": "bad\udc80surrogate"})
    entry = journal.entry(entry_id)
    assert entry is not None
    assert entry.account == "ünï ✓"
    assert entry.request_body == {"name": "bad\udc80surrogate"}


# -- append-only -------------------------------------------------------------------------------


def test_history_cannot_be_rewritten(journal: Journal) -> None:
    entry_id = start(journal)
    journal.finish(entry_id, outcome="ok")
    with pytest.raises(ValueError, match="already has an outcome"):
        journal.finish(entry_id, outcome="api-error")
    with pytest.raises(ValueError):
        journal.finish(9999, outcome="ok")
    journal.close()
    conn = sqlite3.connect(journal.path)
    for sql in (
        "UPDATE segments SET profile = 'x'",
        "DELETE FROM segments",
        "UPDATE items SET target = '{}'",
        "DELETE FROM items",
        "UPDATE results SET word = word + 1",
        "DELETE FROM results",
        "UPDATE words SET word = 'ok2'",
        "DELETE FROM words",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)
    conn.close()
    (entry,) = journal.entries()
    assert entry.outcome == "ok"


def test_undo_of_must_name_an_entry(journal: Journal) -> None:
    with pytest.raises(ValueError):
        start(journal, undo_of=42)
    first = start(journal)
    assert journal.entry(start(journal, undo_of=first)).undo_of == first  # type: ignore[union-attr]


# -- queries ----------------------------------------------------------------------------------


def test_filters(journal: Journal) -> None:
    a = start(journal)  # 12:00:00
    journal.finish(a, outcome="ok")  # 12:00:01
    b = start(journal, project="p2", operation=Operation.SET_THRESHOLDS)  # 12:00:02
    journal.finish(b, outcome="api-error", status=500)
    c = start(journal, profile="staging")  # 12:00:04, unfinished
    d = start(journal, account="acc-2")  # 12:00:05, unfinished

    def ids(**filters: Any) -> list[int]:
        return [e.id for e in journal.entries(**filters)]

    assert ids() == [d, c, b, a]
    assert ids(limit=2) == [d, c]
    assert ids(unfinished=True) == [d, c]
    assert ids(outcome="unfinished") == [d, c]
    assert ids(outcome="ok") == [a]
    assert ids(project="p2") == [b]
    assert ids(profile="staging") == [c]
    assert ids(account="acc-2") == [d]
    assert ids(operation="thresholds.set") == [b]
    assert ids(since="2025-06-01T12:00:02") == [d, c, b]
    assert ids(since="2025-06-01T14:00:02+02:00") == [d, c, b]
    assert ids(since=datetime(2025, 6, 1, 12, 0, 4, tzinfo=UTC)) == [d, c]
    assert ids(since="2025-06-02") == []
    with pytest.raises(ValueError, match="ISO 8601"):
        journal.entries(since="last tuesday")


def test_hostile_filter_values_are_just_values(journal: Journal) -> None:
    start(journal, project="p' OR '1'='1")
    assert journal.entries(project="p' OR 1=1 --") == []
    assert len(journal.entries(project="p' OR '1'='1")) == 1


# -- runs --------------------------------------------------------------------------------------


def test_runs_and_resume(journal: Journal, tmp_path: Path) -> None:
    ids_file = tmp_path / "ids.txt"
    ids_file.write_text("v-1\nv-2\nv-3\n")
    digest = file_sha256(ids_file)
    assert digest == hashlib.sha256(ids_file.read_bytes()).hexdigest()
    run = journal.run(
        profile="prod",
        account="acc",
        project="p1",
        input_sha256=digest,
        operation=Operation.REVOKE_GRANT,
    )
    again = journal.run(
        profile="prod",
        account="acc",
        project="p1",
        input_sha256=digest.upper(),
        operation=Operation.REVOKE_GRANT,
    )
    assert again == run
    other = journal.run(
        profile="prod",
        account="acc",
        project="p2",
        input_sha256=digest,
        operation=Operation.REVOKE_GRANT,
    )
    assert other != run
    with pytest.raises(ValueError):
        journal.run(profile="p", account="a", project="p", input_sha256="xyz", operation="o")

    outcomes = ["withdrawn", "nothing-standing", "network-error"]
    for visitor, outcome in zip(["v-1", "v-2", "v-3"], outcomes, strict=True):
        target = {"visitorId": visitor}
        entry_id = start(
            journal,
            operation=Operation.REVOKE_GRANT,
            target=target,
            request_body={"subject": target},
            run_id=run,
        )
        journal.finish(entry_id, outcome=outcome)
    start(journal, operation=Operation.REVOKE_GRANT, target={"visitorId": "v-4"}, run_id=run)
    start(journal, operation=Operation.REVOKE_GRANT, target={"visitorId": "v-9"}, run_id=other)

    settled = journal.settled_items(run)
    assert settled == {target_key({"visitorId": "v-1"}), target_key({"visitorId": "v-2"})}
    assert json.loads(sorted(settled)[0]) == {"visitorId": "v-1"}
    assert journal.settled_items(run, outcomes=["network-error"]) == {
        target_key({"visitorId": "v-3"})
    }
    assert len(journal.entries(run_id=run)) == 4
    with pytest.raises(ValueError):
        start(journal, run_id=run + 100)


def test_explicit_item_keys(journal: Journal, tmp_path: Path) -> None:
    run = journal.run(
        profile="prod", account="a", project="p", input_sha256="0" * 64, operation="grant.revoke"
    )
    entry_id = start(journal, target={"visitorId": "v"}, run_id=run, item_key="line 7")
    journal.finish(entry_id, outcome="withdrawn")
    assert journal.settled_items(run) == {"line 7"}


# -- export ------------------------------------------------------------------------------------


def test_export_jsonl_and_csv(journal: Journal, tmp_path: Path) -> None:
    a = start(journal, account='=HYPERLINK("http://evil")', request_body={"n": 'a,b\n"c"'})
    journal.finish(a, outcome="ok", status=200, duration_ms=1.5)
    start(journal, target=dimension_target("-dim"))
    entries = journal.entries()

    jsonl = tmp_path / "out.jsonl"
    assert journal.export_jsonl(jsonl, entries) == 2
    lines = jsonl.read_text("utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [e.to_json() for e in entries]

    out = tmp_path / "out.csv"
    assert journal.export_csv(out, entries) == 2
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["id"]) for r in rows] == [e.id for e in entries]
    unfinished, finished = rows
    assert unfinished["unfinished"] == "true" and unfinished["outcome"] == ""
    assert json.loads(unfinished["target"]) == {"dimension_id": "-dim"}
    assert finished["account"] == '\'=HYPERLINK("http://evil")'  # not a formula
    assert json.loads(finished["request_body"]) == {"n": 'a,b\n"c"'}
    assert (finished["status"], finished["duration_ms"]) == ("200", "1.5")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_file_is_private_and_in_wal_mode(journal: Journal) -> None:
    start(journal)
    assert (journal.path.stat().st_mode & 0o777) == 0o600
    conn = sqlite3.connect(journal.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_stored_times_are_one_utc_shape() -> None:
    plus_two = timezone(timedelta(hours=2))
    assert (
        stamp(datetime(2025, 6, 1, 14, 0, 0, 5, tzinfo=plus_two)) == "2025-06-01T12:00:00.000005Z"
    )
    assert stamp(datetime(2025, 6, 1, 12, 0)) == "2025-06-01T12:00:00.000000Z"  # naive = UTC
    assert stamp(datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC)) == "0999-01-02T03:04:05.000000Z"
    assert normalize("2025-06-01") == "2025-06-01T00:00:00.000000Z"
    assert normalize("2025-06-01T12:00:00Z") == "2025-06-01T12:00:00.000000Z"
    assert parse_time(" 2025-06-01 14:00+02:00 ") == datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
    with pytest.raises(ValueError, match="not an ISO 8601 time"):
        parse_time("yesterday")
