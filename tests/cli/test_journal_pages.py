"""``bottui journal`` reads pages, never the whole journal (#12): bounds, hints, streams.

No timing here: each test counts what the command asked the store for
(:meth:`SqliteJournalStore.page` wrapped) or checks the shape of what it
printed. The journals are real SQLite files in ``tmp_path``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bottui.cli import run
from bottui.cli.output import Output
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import EntryPage, Operation, StartRecord
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.store_errors import JournalUnavailable
from tests.cli.helpers import Result, cli, cli_process


def fill(
    n: int, *, project: str = "shop-prod", finished: bool = True, run: int | None = None
) -> list[int]:
    """``n`` revocations in the default journal, newest last; every other one finished."""
    path = Locations.default().journal_file
    path.parent.mkdir(parents=True, exist_ok=True)
    journal = Journal(path)
    try:
        run_id = (
            journal.run(
                profile="default",
                account="acme",
                project=project,
                input_sha256="ab" * 32,
                operation=Operation.REVOKE_GRANT,
            )
            if run
            else None
        )
        writer = journal.batch(interval=0)
        ids = writer.start_many(
            [
                StartRecord(
                    profile="default",
                    base_url="https://api.example.com",
                    operation=Operation.REVOKE_GRANT,
                    account="acme",
                    project=project,
                    target={"visitorId": f"vis_{i}"},
                    run_id=run_id,
                )
                for i in range(n)
            ]
        )
        if finished:
            for entry_id in ids[::2]:
                writer.finish(entry_id, outcome="withdrawn", status=200)
        writer.close()
    finally:
        journal.close()
    return ids


@dataclass
class Reads:
    """Every page the command asked the store for: (limit asked, entries given)."""

    pages: list[tuple[int, int]] = field(default_factory=list)
    fail_after: int | None = None
    #: Called before each read, with the reads so far.
    before_read: Callable[[int], None] | None = None

    @property
    def entries(self) -> int:
        return sum(given for _limit, given in self.pages)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Reads]:
    """Count the pages the CLI reads (and make the n-th fail when asked)."""
    seen = Reads()
    real = SqliteJournalStore.page

    async def page(self: SqliteJournalStore, *args: Any, **kwargs: Any) -> EntryPage:
        if seen.before_read is not None:
            seen.before_read(len(seen.pages))
        if seen.fail_after is not None and len(seen.pages) >= seen.fail_after:
            raise JournalUnavailable("The journal cannot be read", "disk I/O error")
        found = await real(self, *args, **kwargs)
        seen.pages.append((int(kwargs.get("limit", 0)), len(found.entries)))
        return found

    monkeypatch.setattr(SqliteJournalStore, "page", page)
    yield seen


def ids_of(result: Result) -> list[int]:
    return [int(line.rsplit("#", 1)[1]) for line in result.out.splitlines()]


def test_fifty_newest_then_the_command_of_the_next_page(reads: Reads) -> None:
    ids = fill(75)
    r = cli("journal")
    assert r.code == 0, r.err
    assert ids_of(r) == ids[::-1][:50]
    oldest_shown = ids[-50]
    assert r.err.splitlines()[-1] == f"older: bottui journal --before {oldest_shown}"
    assert reads.pages == [(50, 50)]
    r = cli("journal", "--before", str(oldest_shown))
    assert ids_of(r) == ids[::-1][50:]
    assert "older:" not in r.err  # the last page says nothing of a next one
    # The hint repeats the filters, shell-quoted; "#ID" is accepted as shown.
    r = cli("journal", "--project", "shop prod", "--limit", "2", "--before", f"#{ids[-1]}")
    assert r.code == 0 and r.out.strip() == "no journal entries match"
    fill(3, project="shop prod")
    r = cli("journal", "--project", "shop prod", "--limit", "2")
    assert "older: bottui journal --project 'shop prod' --limit 2 --before " in r.err


def test_a_big_journal_is_read_a_bounded_page_at_a_time(reads: Reads) -> None:
    fill(5000, finished=False)
    assert len(cli("journal").out.splitlines()) == 50
    assert reads.entries == 50 and all(limit <= 51 for limit, _ in reads.pages)
    reads.pages.clear()
    r = cli("journal", "--limit", "120", "--unfinished", "--json")
    assert r.json()["count"] == 120 and reads.entries == 120
    reads.pages.clear()
    assert cli("journal", "--outcome", "failed").out.strip() == "no journal entries match"
    assert reads.entries == 0 and len(reads.pages) == 1


def test_all_streams_in_pages_and_json_is_one_document(reads: Reads) -> None:
    ids = fill(2100)
    r = cli("journal", "--all", "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)  # exactly one document: json.loads refuses trailing text
    assert doc["count"] == 2100 and doc["next_before"] is None
    assert [e["id"] for e in doc["entries"]] == ids[::-1]
    assert len(reads.pages) >= 3 and max(given for _, given in reads.pages) <= 1000
    r = cli("journal", "--all", "--jsonl")
    lines = r.out.splitlines()
    assert len(lines) == 2100 and [json.loads(line)["id"] for line in lines] == ids[::-1]
    assert all(line.startswith("{") and line.endswith("}") for line in lines)
    # A page of --json says where the next starts; so does --jsonl, on stderr.
    doc = cli("journal", "--json", "--limit", "3").json()
    assert doc["count"] == 3 and doc["next_before"] == ids[-3]
    assert cli("journal", "--jsonl", "--limit", "3").err.endswith(f"--before {ids[-3]}\n")
    empty = cli("journal", "--json", "--project", "none").json()
    assert empty == {"entries": [], "count": 0, "next_before": None}


def test_a_read_failing_half_way_still_ends_the_json_document(reads: Reads) -> None:
    fill(2500)
    reads.fail_after = 2
    r = cli("journal", "--all", "--json")
    assert r.code == 2  # the journal's error code, as when it fails at once
    doc = json.loads(r.out)
    assert doc["count"] == 2000 and len(doc["entries"]) == 2000
    assert doc["error"]["code"] == "JournalUnavailable" and doc["next_before"] is not None
    assert "error: The journal cannot be read" in r.err
    reads.pages.clear()
    reads.fail_after = 0  # at once: the usual error document
    r = cli("journal", "--json")
    assert set(json.loads(r.out)) == {"error"}


def test_a_reader_that_stops_early_stops_the_reading(reads: Reads) -> None:
    fill(5000)

    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    code = run(["journal", "--all"], Output(False, Closed(), io.StringIO()))
    # The first page, and at most the one read ahead while it was written.
    assert code == 0 and 1 <= len(reads.pages) <= 2


def test_every_filter_and_the_refused_combinations(reads: Reads) -> None:
    older = fill(4, project="docs-site")
    newer = fill(3, run=1)
    r = cli("journal", "--run", "1", "--json")
    assert [e["id"] for e in r.json()["entries"]] == newer[::-1]
    assert [
        e["project"] for e in cli("journal", "--json", "--project", "docs-site").json()["entries"]
    ] == ["docs-site"] * 4
    assert cli("journal", "--json", "--until", "2000-01-01").json()["count"] == 0
    assert (
        cli("journal", "--json", "--since", "2000-01-01", "--until", "2999-01-01").json()["count"]
        == 7
    )
    assert (
        cli("journal", "--json", "--operation", "revoke", "--outcome", "withdrawn").json()["count"]
        == 4
    )
    assert cli("journal", "--json", "--unfinished", "--before", str(newer[0])).json()["count"] == 2
    assert older[0] < newer[0]
    reads.pages.clear()
    for argv in (
        ["--all", "--limit", "5"],
        ["--json", "--jsonl"],
        ["--jsonl", "--export", "x.jsonl"],
        ["--unfinished", "--outcome", "ok"],
        ["--since", "2030-01-01", "--until", "2020-01-01"],
        ["--until", "next week"],
        ["--since", "yesterday"],
        ["--limit", "0"],
        ["--limit", "-3"],
        ["--limit", "10001"],
        ["--before", "abc"],
        ["--run", "0"],
        ["--format", "csv"],
    ):
        r = cli("journal", *argv)
        assert r.code == 2, argv
        # Nothing printed but the error (under --json, its one document).
        assert r.out == "" or set(json.loads(r.out)) == {"error"}, argv
        assert "error:" in r.err and "Traceback" not in r.err, argv
    assert reads.pages == []  # refused before anything was read


def test_export_streams_the_whole_journal(reads: Reads, tmp_path: Path) -> None:
    ids = fill(2300)
    out = tmp_path / "all.jsonl"
    written: list[int] = []

    def file_so_far(pages_read: int) -> None:
        # Each page is written before the next is read: nothing holds the whole journal.
        if pages_read >= 2:
            (tmp,) = tmp_path.glob(".all.jsonl.*.tmp")
            written.append(tmp.stat().st_size)

    reads.before_read = file_so_far
    r = cli("journal", "--export", str(out))
    assert r.code == 0 and "exported 2300 entries" in r.out
    assert written and written[0] > 0
    reads.before_read = None
    assert [json.loads(x)["id"] for x in out.read_text(encoding="utf-8").splitlines()] == ids[::-1]
    assert len(reads.pages) >= 3 and max(given for _, given in reads.pages) <= 1000
    r = cli("journal", "--export", str(tmp_path / "some.csv"), "--limit", "10")
    assert "exported 10 entries" in r.out and f"--before {ids[-10]}" in r.err
    # A journal that fails half-way leaves no file behind, and the old one as it was.
    reads.fail_after = len(reads.pages) + 1
    r = cli("journal", "--export", str(out))
    assert r.code == 2 and not list(tmp_path.glob(".all.jsonl.*"))
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2300


def test_a_real_process_pages_and_streams() -> None:
    ids = fill(60)
    env = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    r = cli_process("journal", "--jsonl", "--all", env=env)
    assert r.code == 0 and len(r.out.splitlines()) == 60
    r = cli_process("journal", env=env)
    assert len(r.out.splitlines()) == 50 and f"--before {ids[-50]}" in r.err


def test_json_encodes_a_page_at_once_with_the_same_text(
    reads: Reads, monkeypatch: pytest.MonkeyPatch
) -> None:
    """json's indenting encoder is pure Python and costly to set up: once per page
    (not per entry: 0.5 s for 1,000 entries), and the text is what encoding each
    entry on its own and indenting it gives."""
    from bottui.store import safe_export

    fill(2100)  # pages of 1,000
    calls: list[int] = []
    real = safe_export.dumps

    def dumps(value: Any, **kwargs: Any) -> str:
        calls.append(1)
        return real(value, **kwargs)

    monkeypatch.setattr(safe_export, "dumps", dumps)
    r = cli("journal", "--all", "--json")
    assert r.code == 0, r.err
    assert len(reads.pages) == 3 and len(calls) <= 3 + 1  # the pages, and the closing
    document = json.loads(r.out)
    entries = document["entries"]
    assert len(entries) == 2100 and document["count"] == 2100
    each = ",".join("\n    " + real(e, indent=2).replace("\n", "\n    ") for e in entries)
    assert r.out.startswith('{\n  "entries": [' + each + "\n  ],\n")
