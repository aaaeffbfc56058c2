"""#10.9: a reader that stops early (``| head -1``) ends a command quietly.

Real processes with a real pipe whose read end the test closes after one
line (or before any): no traceback, no "Exception ignored", and the exit
code the command would otherwise have had. A bulk run whose stdout closed
still journals every outcome.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import StartRecord
from tests.fixtures.sandbox import scope

ENTRIES = 3000  # far more than a pipe holds (64 KiB on Linux)


def fill_journal(count: int = ENTRIES, *, unfinished_every: int = 3) -> None:
    """``count`` entries; every ``unfinished_every``-th one has no outcome."""
    with Journal.at(Locations.default()) as journal:
        writer = journal.batch(interval=0)
        records = [
            StartRecord(
                profile="default",
                base_url="http://127.0.0.1:1",
                operation="grant.revoke",
                account="acc",
                project="proj",
                target={"visitorId": f"vis_{n:06d}_" + "x" * 40},
                request_body={"subject": {"visitorId": f"vis_{n:06d}"}},
            )
            for n in range(count)
        ]
        ids = writer.start_many(records)
        for n, entry_id in enumerate(ids):
            if n % unfinished_every:
                writer.finish(
                    entry_id,
                    outcome="nothing-standing",
                    status=200,
                    result=None,
                    error=None,
                    duration_ms=1.0,
                )
        writer.flush()
        writer.close()


def read_one_line_then_close(*argv: str, timeout: float = 120) -> tuple[int, bytes, str]:
    """Start ``bottui argv``, read one line of stdout, close the pipe, wait."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bottui", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader stops, as head -1 does
    err = proc.stderr.read().decode("utf-8", "replace")
    return proc.wait(timeout=timeout), first, err


def assert_quiet(err: str) -> None:
    assert "Traceback" not in err, err
    assert "BrokenPipe" not in err, err
    assert "Exception ignored" not in err, err


@pytest.mark.parametrize(
    "argv", [["journal"], ["journal", "--json"], ["journal", "--unfinished"]], ids=" ".join
)
def test_journal_into_a_closed_pipe_exits_quietly(argv: list[str]) -> None:
    fill_journal()
    code, first, err = read_one_line_then_close(*argv)
    assert first.strip()
    assert code == 0
    assert_quiet(err)


def test_short_output_flushed_at_exit_into_a_closed_pipe() -> None:
    fill_journal(5, unfinished_every=1)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bottui", "journal"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # gone before the first byte: the flush at exit meets it
    err = proc.stderr.read().decode("utf-8", "replace")
    assert proc.wait(timeout=300) == 0
    assert_quiet(err)


def test_a_refusal_keeps_its_exit_code_into_a_closed_pipe() -> None:
    code, _, err = read_one_line_then_close("journal", "--since", "not-a-time", "--json")
    assert code == 2
    assert_quiet(err)


def test_bulk_run_into_a_closed_pipe_journals_every_outcome(
    env: SandboxServer, tmp_path: Path
) -> None:
    env.faults.configure(latency=0.01)
    path = tmp_path / "ids.txt"
    path.write_text("".join(f"vis_p{n:04d}\n" for n in range(300)), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "bottui", "revoke", "--from-file", str(path), *scope()],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # nobody reads the summary
    err = proc.stderr.read().decode("utf-8", "replace")
    assert proc.wait(timeout=120) == 0  # every id answered "nothing standing"
    assert_quiet(err)
    with Journal.at(Locations.default()) as journal:
        entries = journal.entries()
    assert len(entries) == 300
    assert {e.outcome for e in entries} == {"nothing-standing"}
    assert env.stats.requests == 300


def run_with_stdout(how: str, *argv: str) -> tuple[int, str]:
    """``bottui argv`` with stdout closed (``>&-``) or on ``/dev/full``: exit code, stderr."""
    redirect = ">&-" if how == "closed" else ">/dev/full"
    proc = subprocess.run(
        ["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-m", "bottui", *argv],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("how", ["closed", "full"])
def test_a_change_made_with_a_closed_or_full_stdout_keeps_its_exit_code(
    env: SandboxServer, tmp_path: Path, how: str
) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("vis_1\nvis_2\n", encoding="utf-8")
    runs = [
        ("limiter", "disable", "rl-login", *scope()),
        ("limiter", "enable", "rl-login", *scope(), "--json"),
        ("revoke", "--visitor-id", "vis_7Hq2kP9xLm", *scope()),
        ("revoke", "--from-file", str(path), *scope(), "--json"),
        ("--version",),
    ]
    for argv in runs:
        code, err = run_with_stdout(how, *argv)
        assert code == 0, (argv, err)
        assert_quiet(err)
    env.faults.configure(hostile_status=500)
    code, err = run_with_stdout(how, "limiter", "disable", "rl-login", *scope())
    assert code == 1 and "error:" in err  # a failure stays a failure, said on stderr
    assert_quiet(err)
    with Journal.at(Locations.default()) as journal:
        entries = journal.entries()
    assert [e.outcome for e in entries].count("api-error") == 1
    assert len(entries) == 6 and all(e.outcome for e in entries)
