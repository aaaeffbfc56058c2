"""Two bulk runs of one file are two runs; ``--resume`` continues one (#27 item 5).

Seen: a TUI run of a file (reason "INC-3107 stuffing…") and a later CLI run
of the same file (reason "INC-3107 second pass") shared run #1; the Journal
showed one row "400 ids, run #1" with the second reason only. A run without
``--resume`` is now a run of its own (its own id, row, reason, counts and
outcome words); ``--resume`` continues the input's newest run.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_file import Journal, run_identity
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope

IDS = 12


@pytest.fixture
def ids_path(tmp_path: Path) -> Path:
    path = tmp_path / "ids.txt"
    path.write_text("".join(f"vis_r{n:03d}\n" for n in range(IDS)), encoding="utf-8")
    return path


def _entries() -> list[dict[str, Any]]:
    done = cli("journal", "--json", "--all")
    assert done.code == 0, done.err
    entries: list[dict[str, Any]] = done.json()["entries"]
    return entries


def test_a_second_run_of_one_file_is_a_run_of_its_own(env: SandboxServer, ids_path: Path) -> None:
    first = cli("revoke", *scope(), "--from-file", str(ids_path), "--reason", "INC-3107 stuffing")
    assert first.code == 0, first.err
    second = cli(
        "revoke", *scope(), "--from-file", str(ids_path), "--reason", "INC-3107 second pass"
    )
    assert second.code == 0, second.err
    runs = Counter(e["run_id"] for e in _entries())
    assert len(runs) == 2 and set(runs.values()) == {IDS}, runs
    reasons = {e["run_id"]: e["reason"] for e in _entries()}
    assert sorted(reasons.values()) == ["INC-3107 second pass", "INC-3107 stuffing"]
    # --resume continues the newest run: no third run, nothing sent again.
    resumed = cli(
        "revoke", *scope(), "--from-file", str(ids_path), "--resume", "--reason", "INC-3107 resume"
    )
    assert resumed.code == 0, resumed.err
    assert Counter(e["run_id"] for e in _entries()) == runs


def test_the_store_keys_each_run_of_an_input_apart(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    key = {"profile": "p", "account": "a", "project": "x", "operation": "revoke-grant"}
    digest = "ab" * 32
    # --resume with no run yet makes the first; again it takes the same.
    one = journal.run(**key, input_sha256=digest, resume=True)
    assert journal.run(**key, input_sha256=digest, resume=True) == one
    two = journal.run(**key, input_sha256=digest, resume=False)
    three = journal.run(**key, input_sha256=digest, resume=False)
    assert len({one, two, three}) == 3
    assert journal.run(**key, input_sha256=digest, resume=True) == three
    # The first run keeps the input's own digest: journals of earlier bottuis resume as before.
    assert run_identity(digest, 1) == digest
    assert run_identity(digest, 2) != digest
    journal.close()
