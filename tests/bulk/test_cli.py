"""``bottui revoke --from-file``: output, exit codes, refusals, files, stdin, dry run."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bottui.cli.revoke import ProgressLine
from bottui.ops.bulk.report import BulkProgress, ItemStatus
from bottui.sandbox.server import SandboxServer
from tests.bulk.conftest import logged, visitor_ids
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope

SUMMARY_KEYS = {
    "total",
    "withdrawn",
    "nothingStanding",
    "unknown",
    "failed",
    "invalid",
    "elapsedSeconds",
}


def test_json_summary_and_exit_2_for_invalid_lines(
    env: SandboxServer, ids_file: Callable[..., Path]
) -> None:
    path = ids_file(["vis_7Hq2kP9xLm", "vis_a", "", "vis_a", "x" * 300, "vis_b"])
    r = cli("revoke", "--from-file", str(path), *scope(), "--json")
    assert r.code == 2, r.err
    doc = r.json()
    assert set(doc) >= SUMMARY_KEYS
    assert (doc["total"], doc["withdrawn"], doc["nothingStanding"]) == (3, 1, 2)
    assert (doc["unknown"], doc["failed"], doc["duplicates"]) == (0, 0, 1)
    assert doc["invalid"] == [
        {"line": 5, "reason": "visitor id: is 300 characters long; at most 256 are allowed"}
    ]
    assert isinstance(doc["elapsedSeconds"], float)
    assert sorted(visitor_ids(logged(env))) == ["vis_7Hq2kP9xLm", "vis_a", "vis_b"]


def test_text_summary_exit_0(env: SandboxServer, ids_file: Callable[..., Path]) -> None:
    r = cli("revoke", "--from-file", str(ids_file(["vis_a", "vis_b"])), *scope())
    assert r.code == 0, r.err
    assert "2 ids" in r.out
    counts = {k.strip(): v.strip() for k, _, v in (ln.partition(":") for ln in r.out.splitlines())}
    assert counts["nothing was standing"] == "2" and counts["failed"] == "0"
    assert "\r" not in r.err  # stderr is not a terminal: no progress line


def test_failures_exit_1_and_network_exit_4(
    env: SandboxServer, ids_file: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = ids_file(["vis_a", "vis_b", "vis_c"])
    env.faults.configure(fail_next=1, error_status=500)
    r = cli("revoke", "--from-file", str(path), *scope(), "--json", "--concurrency", "1")
    assert r.code == 1
    assert r.json()["failed"] == 1 and r.json()["errors"][0]["count"] == 1
    with SandboxServer() as gone:
        url = gone.base_url
    monkeypatch.setenv("BOTTUI_BASE_URL", url)
    r = cli("revoke", "--from-file", str(ids_file(["vis_a"])), *scope(), "--json")
    assert r.code == 4 and r.json()["failed"] == 1


@pytest.mark.parametrize("name", ["results.csv", "results.jsonl"])
def test_output_file(
    env: SandboxServer, ids_file: Callable[..., Path], tmp_path: Path, name: str
) -> None:
    path = ids_file(["visitorId,userAccountId", "vis_7Hq2kP9xLm,", 'vis "q",u/1', "bad\x01,"])
    target = tmp_path / name
    r = cli("revoke", "--from-file", str(path), *scope(), "--output", str(target))
    assert r.code == 2  # one invalid line
    text = target.read_text(encoding="utf-8")
    if name.endswith(".csv"):
        rows = list(csv.DictReader(io.StringIO(text)))
    else:
        rows = [json.loads(line) for line in text.splitlines()]
    assert len(rows) == 2
    by_line = {int(row["line"]): row for row in rows}
    assert by_line[2]["outcome"] == "withdrawn" and by_line[2]["reportId"]
    assert by_line[3]["visitorId"] == 'vis "q"' and by_line[3]["userAccountId"] == "u/1"
    assert by_line[3]["outcome"] == "nothing was standing"
    assert "2 rows written" in r.err


def test_stdin_and_resume_with_the_same_bytes(env: SandboxServer) -> None:
    data = "vis_s1\r\nvis_s2\r\nvis_s3\r\n"
    r = cli("revoke", "--from-file", "-", *scope(), "--json", stdin=data)
    assert r.code == 0, r.err
    assert r.json()["nothingStanding"] == 3
    r = cli("revoke", "--from-file", "-", *scope(), "--json", "--resume", stdin=data)
    assert r.code == 0
    assert (r.json()["skipped"], r.json()["nothingStanding"]) == (3, 0)
    r = cli("revoke", "--from-file", "-", *scope(), "--json", "--resume", stdin=data + "vis_s4\n")
    assert r.json()["skipped"] == 0  # other bytes, another run
    assert "nothing to resume" in r.err
    assert env.stats.requests == 3 + 4


@pytest.mark.parametrize(
    "setup, extra",
    [
        (["profile", "add", "ro", "--read-only"], ["--profile", "ro"]),
        (["profile", "add", "prod", "--protected"], ["--profile", "prod"]),
        ([], ["--read-only"]),
    ],
)
def test_read_only_and_protected_refused_nothing_sent(
    env: SandboxServer, ids_file: Callable[..., Path], setup: list[str], extra: list[str]
) -> None:
    if setup:
        assert cli(*setup, "--base-url", env.base_url).code == 0
    path = ids_file(["vis_a", "vis_b"])
    r = cli("revoke", "--from-file", str(path), *scope(), *extra, "--json")
    assert r.code == 2
    assert r.json()["error"]["code"] == "RefusedError"
    assert "nothing was sent" in r.err
    assert env.stats.requests == 0
    if "prod" in extra:  # confirmed, it goes ahead
        assert cli("revoke", "--from-file", str(path), *scope(), *extra, "--yes").code == 0
        assert env.stats.requests == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["--visitor-id", "v"],
        ["--concurrency", "0"],
        ["--concurrency", "513"],
        ["--output", "results.xlsx"],
    ],
)
def test_bad_options_refused_nothing_sent(
    env: SandboxServer, ids_file: Callable[..., Path], argv: list[str]
) -> None:
    r = cli("revoke", "--from-file", str(ids_file(["vis_a"])), *scope(), *argv)
    assert r.code == 2, r.err
    assert env.stats.requests == 0


def test_bulk_options_need_from_file(env: SandboxServer) -> None:
    assert cli("revoke", "--visitor-id", "v", *scope(), "--resume").code == 2
    assert cli("revoke", "--visitor-id", "v", *scope(), "--output", "r.csv").code == 2
    assert env.stats.requests == 0


def test_missing_input_file(env: SandboxServer, tmp_path: Path) -> None:
    r = cli("revoke", "--from-file", str(tmp_path / "nope.txt"), *scope())
    assert r.code == 2 and "Cannot read the input file" in r.err


def test_dry_run_prints_the_first_requests_and_a_count(
    env: SandboxServer, ids_file: Callable[..., Path]
) -> None:
    lines = [f"vis_{n}" for n in range(25)] + ["bad\x02"]
    r = cli("revoke", "--from-file", str(ids_file(lines)), *scope(), "--dry-run")
    assert r.code == 0, r.err
    assert r.out.count("curl ") == 20
    assert "… and 5 more requests like these" in r.out
    assert "25 requests in all" in r.out and "1 invalid lines" in r.out
    assert "$BOTTUI_ACCESS_TOKEN" in r.out
    assert "dry run: nothing was sent" in r.err
    r = cli("revoke", "--from-file", str(ids_file(lines)), *scope(), "--dry-run", "--json")
    doc = r.json()
    assert (doc["count"], doc["shown"], doc["invalidCount"]) == (25, 20, 1)
    assert doc["requests"][0]["method"] == "POST"
    assert json.loads(doc["requests"][0]["body"]) == {"subject": {"visitorId": "vis_0"}}
    assert env.stats.requests == 0


def test_progress_line_only_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    progress = BulkProgress(
        done=1234,
        total=10_000,
        total_exact=True,
        sent=1234,
        in_flight=64,
        counts={ItemStatus.FAILED: 2},
        invalid=1,
        duplicates=0,
        elapsed=1.0,
        rate=1150.0,
        eta=7.6,
        paused_for=0.0,
        stopping=False,
    )
    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        line = ProgressLine(stream)
        line.update(progress)
        line.clear()
    assert pipe.getvalue() == ""
    shown = tty.getvalue()
    assert "revoking 1,234/10,000 · 1,150/s · ETA 8s · 2 failed · 1 invalid" in shown
    assert shown.startswith("\r\x1b[K") and shown.endswith("\r\x1b[K")
