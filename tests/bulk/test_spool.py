"""The TUI's per-id results spool: rows in order, exported as ``--output`` writes them."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from bottui.api.errors import RefusedError
from bottui.ops.bulk.input import Subject
from bottui.ops.bulk.report import ItemResult, ItemStatus
from bottui.ops.bulk.results import COLUMNS, ResultsFile, ResultsSpool


def result(n: int, status: ItemStatus, error: str | None = None) -> ItemResult:
    subject = Subject(n, f"vis_{n}", None, n.to_bytes(16, "big"))
    return ItemResult(subject, status, http_status=500 if error else 200, error=error)


HOSTILE = '=HYPERLINK("x")\x1b[2J\u202e'


async def test_rows_in_order_and_export_matches_output(tmp_path: Path) -> None:
    spool = ResultsSpool(batch=3)  # several batches, written in order
    results = [result(n, ItemStatus.WITHDRAWN) for n in range(1, 8)]
    results[2] = result(3, ItemStatus.FAILED, HOSTILE)
    results[5] = result(6, ItemStatus.UNKNOWN, "no answer")
    for item in results:
        spool.add(item)
    assert spool.problem_count == 2
    assert [r.subject.line for r in spool.problems] == [3, 6]
    for name in ("spooled.csv", "spooled.jsonl"):
        written = await spool.export(tmp_path / name)
        # The CLI's writer on the same results, for comparison.
        direct = ResultsFile.open(tmp_path / f"direct{Path(name).suffix}")
        for item in results:
            direct.write(item)
        direct.close()
        assert written.read_bytes() == direct.path.read_bytes()
    rows = list(csv.DictReader((tmp_path / "spooled.csv").open(encoding="utf-8")))
    assert tuple(rows[0]) == COLUMNS and [r["line"] for r in rows] == [str(n) for n in range(1, 8)]
    assert "\x1b" not in rows[2]["error"] and not rows[2]["error"].startswith("=")
    lines = (tmp_path / "spooled.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["outcome"] for line in lines][2] == "failed"


async def test_existing_file_not_replaced_without_asking(tmp_path: Path) -> None:
    spool = ResultsSpool()
    spool.add(result(1, ItemStatus.NOTHING_STANDING))
    target = tmp_path / "r.csv"
    target.write_text("mine\n", encoding="utf-8")
    with pytest.raises(RefusedError, match="exists"):
        await spool.export(target)
    assert target.read_text(encoding="utf-8") == "mine\n"
    await spool.export(target, replace=True)
    assert target.read_text(encoding="utf-8").startswith("line,visitorId")
    with pytest.raises(RefusedError):
        await spool.export(tmp_path / "r.txt")  # not a format --output writes
