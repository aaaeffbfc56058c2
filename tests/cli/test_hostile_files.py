"""Files bottui writes for people hold no control characters (#10.3).

The bulk results CSV and the journal exports are read back as bytes after a
run against the sandbox's ``escapes`` mode; a results CSV fed back as bulk
input sends exactly the ids of the first run (the sandbox's request log
tells what arrived).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from bottui.sandbox.server import SandboxServer
from bottui.store.safe_export import cell
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope

# Ids a spreadsheet or a CSV reader could take for something else.
TRICKY_IDS = (
    "-dash",
    "=1+2",
    "@at",
    "+plus",
    "has,comma",
    'has "quotes"',
    "semi;colon",
    "tab\u00a0nbsp",
    "ünï-cödé",
    "zero\u200bwidth",
    "'quote-start",
)
CONTROL_BYTES = bytes([*range(0x00, 0x20), 0x7F])


def _sent_ids(sandbox: SandboxServer) -> list[str]:
    return [
        entry.json["subject"]["visitorId"]
        for entry in sandbox.state.recorder.log
        if isinstance(entry.json, dict) and "subject" in entry.json
    ]


def _assert_printable(data: bytes, *, allowed: bytes = b"\r\n") -> None:
    bad = sorted({b for b in data if b in CONTROL_BYTES and b not in allowed})
    assert not bad, bad
    text = data.decode("utf-8")
    assert not [ch for ch in text if 0x80 <= ord(ch) <= 0x9F]


@pytest.mark.parametrize("status", [0, 400])
def test_results_csv_holds_no_escapes_and_defuses_formulas(
    env: SandboxServer, tmp_path: Path, status: int
) -> None:
    env.faults.configure(hostile="escapes", hostile_status=status)
    ids = tmp_path / "ids.txt"
    ids.write_text("vis_7Hq2kP9xLm\nvis_other\n", encoding="utf-8")
    results = tmp_path / "results.csv"
    r = cli("revoke", *scope(), "--from-file", str(ids), "--output", str(results))
    assert r.code == (0 if status == 0 else 1), r.err
    data = results.read_bytes()
    _assert_printable(data)
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert len(rows) == 2
    server_cells = [row[name] for row in rows for name in ("reportId", "error", "outcome")]
    assert not [text for text in server_cells if text.startswith(("=", "+", "-", "@"))]
    if status == 0:  # the reportIds start with a formula prefix, defused
        assert all(row["reportId"][0] == "'" and row["reportId"][1] in "=+-@" for row in rows)
    jsonl = tmp_path / "results.jsonl"
    cli("revoke", *scope(), "--from-file", str(ids), "--output", str(jsonl))
    assert b"\x1b" not in jsonl.read_bytes() and b"\x07" not in jsonl.read_bytes()


@pytest.mark.parametrize("kind", ["escapes", "c1"])
def test_journal_exports_hold_no_escapes(env: SandboxServer, tmp_path: Path, kind: str) -> None:
    env.faults.configure(hostile=kind)
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0
    env.faults.configure(hostile_status=400)
    assert cli("revoke", *scope(), "--visitor-id", "v1").code == 1
    for name in ("j.csv", "j.jsonl"):
        assert cli("journal", "--export", str(tmp_path / name)).code == 0
        data = (tmp_path / name).read_bytes()
        _assert_printable(data)
        assert b"\\u00" in data or "\ufffd".encode() in data  # the escapes were there
    rows = list(csv.DictReader(io.StringIO((tmp_path / "j.csv").read_text(encoding="utf-8"))))
    assert all(not row["error"] or row["error"].startswith("{") for row in rows)


def test_a_results_csv_fed_back_sends_exactly_the_same_ids(
    env: SandboxServer, tmp_path: Path
) -> None:
    env.faults.configure(hostile="escapes")  # server text is hostile; ids are ours
    ids = tmp_path / "ids.csv"
    with ids.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["visitorId"])
        writer.writerows([[value] for value in TRICKY_IDS])
    first = tmp_path / "results.csv"
    r = cli("revoke", *scope(), "--from-file", str(ids), "--output", str(first))
    assert r.code == 0, r.err
    sent_first = _sent_ids(env)
    assert sorted(sent_first) == sorted(TRICKY_IDS)
    env.state.recorder.reset()
    again = tmp_path / "again.jsonl"
    r = cli("revoke", *scope(), "--from-file", str(first), "--output", str(again), "--json")
    assert r.code == 0, r.err
    assert sorted(_sent_ids(env)) == sorted(sent_first)
    rows = [json.loads(line) for line in again.read_text(encoding="utf-8").splitlines()]
    assert sorted(row["visitorId"] for row in rows) == sorted(TRICKY_IDS)


def test_one_cell_rule() -> None:
    assert cell("=SUM(A1)") == "'=SUM(A1)"
    assert cell("-1", exact=True) == "-1"
    assert cell("a\x1b[2Jb\x07\x00\x08\n") == "a\ufffd[2Jb\ufffd\ufffd\ufffd\ufffd"
    assert cell("\u202eabc\x9b") == "\ufffdabc\ufffd"
    assert cell({"m": "\x1b\x9b"}) == '{"m":"\\u001b\\u009b"}'
    assert cell(None) == "" and cell(3) == 3 and cell(True) == "true"
