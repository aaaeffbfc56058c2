"""Files bottui writes for a person (#25): never through a symlink, never over a file
unless ``--overwrite``, written whole (a temporary file next to it, then put in place).

Real files in the test's directory: a symlink to a file that must stay as it is, an
existing file, and the bulk ``--output`` checked before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bottui.api.errors import EXIT_OK, EXIT_REFUSED
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import Result, cli
from tests.fixtures.sandbox import scope

PRECIOUS = "precious: must never be touched\n"


def revoke_output(tmp_path: Path) -> Callable[..., Result]:
    ids = tmp_path / "ids.txt"

    def run(target: Path, *more: str) -> Result:
        ids.write_text("vis_1\nvis_2\n", encoding="utf-8")
        return cli("revoke", "--from-file", str(ids), *scope(), "--output", str(target), *more)

    return run


def writers(tmp_path: Path) -> dict[str, tuple[str, Callable[..., Result]]]:
    """Each writer: the file name it writes and how to run it against a target."""
    return {
        "revoke --output csv": ("r.csv", revoke_output(tmp_path)),
        "revoke --output jsonl": ("r.jsonl", revoke_output(tmp_path)),
        "journal --export": (
            "j.jsonl",
            lambda target, *more: cli("journal", "--export", str(target), *more),
        ),
        "journal --export csv": (
            "j.csv",
            lambda target, *more: cli("journal", "--export", str(target), *more),
        ),
        "inventory export": (
            "inv.toml",
            lambda target, *more: cli("inventory", "export", str(target), *more),
        ),
    }


WRITERS = list(writers(Path(".")))


@pytest.fixture
def made_changes(env: SandboxServer) -> SandboxServer:
    """A journal and an inventory with something in them."""
    assert cli("limiter", "disable", "rl-login", *scope()).code == EXIT_OK
    return env


def sent(sandbox: SandboxServer) -> int:
    return len(sandbox.state.recorder.log)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_symlink_is_never_followed(
    made_changes: SandboxServer, tmp_path: Path, writer: str
) -> None:
    name, run = writers(tmp_path)[writer]
    victim = tmp_path / "victim.txt"
    victim.write_text(PRECIOUS, encoding="utf-8")
    link = tmp_path / name
    link.symlink_to(victim)
    before = sent(made_changes)
    for more in ((), ("--overwrite",)):
        done = run(link, *more)
        assert done.code == EXIT_REFUSED, (more, done.err)
        assert "symbolic link" in done.err
    assert victim.read_text(encoding="utf-8") == PRECIOUS
    assert link.is_symlink()
    assert sent(made_changes) == before  # a bulk run refused before sending anything
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("writer", WRITERS)
def test_an_existing_file_is_replaced_only_with_overwrite(
    made_changes: SandboxServer, tmp_path: Path, writer: str
) -> None:
    name, run = writers(tmp_path)[writer]
    target = tmp_path / name
    target.write_text(PRECIOUS, encoding="utf-8")
    before = sent(made_changes)
    refused = run(target)
    assert refused.code == EXIT_REFUSED, refused.err
    assert "exists" in refused.err and "--overwrite" in refused.err
    assert target.read_text(encoding="utf-8") == PRECIOUS
    assert sent(made_changes) == before
    done = run(target, "--overwrite")
    assert done.code == EXIT_OK, done.err
    assert target.read_text(encoding="utf-8") != PRECIOUS
    assert target.is_file() and not target.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_new_file_is_written_whole_and_a_directory_refused(
    made_changes: SandboxServer, tmp_path: Path
) -> None:
    run = revoke_output(tmp_path)
    done = run(tmp_path / "r.csv")
    assert done.code == EXIT_OK, done.err
    lines = (tmp_path / "r.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("line,visitorId") and len(lines) == 3
    (tmp_path / "d.csv").mkdir()
    refused = run(tmp_path / "d.csv", "--overwrite")
    assert refused.code == EXIT_REFUSED and "not a regular file" in refused.err


def test_overwrite_needs_a_file_to_write() -> None:
    assert cli("journal", "--overwrite").code == EXIT_REFUSED
    assert cli("revoke", "--visitor-id", "v", *scope(), "--overwrite").code == EXIT_REFUSED
