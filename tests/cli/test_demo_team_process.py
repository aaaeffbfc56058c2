"""``bottui demo --team`` as a newcomer runs it: a real process in a pseudo-terminal.

Its PostgreSQL is a child of the demo, its teammate bob a thread in it. The
walk-through waits for bob's first change to arrive as a toast, finds it in
the shared Journal, and opens the confirmation of the limiter bob just
changed to see the collision warning; ``q`` then ends it with nothing left:
no PostgreSQL, no directory. SIGHUP (an SSH drop) and SIGTERM leave nothing
either. When PostgreSQL
or its driver is missing (import blocked by a ``sitecustomize`` of the
test's, the machine's binaries hidden), the demo says what to install.

Generous waits: a busy 2-core machine runs initdb in seconds, not tenths.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_demo_process import _wait_exit
from tests.pty_terminal import Terminal, children, wait_gone


@pytest.fixture(autouse=True)
def _can_watch_the_demo() -> None:
    """A PostgreSQL test never skips: where it cannot run, it fails and says why."""
    if sys.platform == "win32":
        pytest.fail("bottui demo --team is checked in a pseudo-terminal, which Windows lacks")
    if not Path("/proc").is_dir():
        pytest.fail("the demo's PostgreSQL child is found through /proc, absent here")


#: initdb, the server's start and the migration, on a busy machine.
STARTED = 90.0


@pytest.fixture
def short_tmpdir() -> Iterator[Path]:
    """A TMPDIR of the demo's own, short (a Unix socket's path must fit in 108 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="bt-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _env(tmpdir: Path) -> dict[str, str]:
    return dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30", TMPDIR=str(tmpdir))


def _postgres(pid: int) -> int:
    """The demo's PostgreSQL server: a child of the demo."""
    found = [c for c, cmd in children(pid) if "postgres" in cmd and " -D " in cmd]
    assert len(found) == 1, children(pid)
    return found[0]


def test_demo_team_shows_bobs_change_live_in_the_journal_and_the_confirmation(
    short_tmpdir: Path,
) -> None:
    term = Terminal([sys.executable, "-m", "bottui", "demo", "--team"], env=_env(short_tmpdir))
    try:
        term.wait_for("team: live", timeout=STARTED)  # the header: a team store, heard
        server = _postgres(term.pid)
        term.wait_for("scripted teammate", timeout=120)  # the first toast says who bob is
        # Bob's first change, a few seconds after the first frame, arrives as a toast.
        term.wait_for("disabled rl-login", timeout=120)
        term.send("5")  # the shared Journal: his entry, with his reason
        term.wait_for("rl-login -> OFF", timeout=120)
        term.send("2")
        term.wait_for("Rate limiters", timeout=120)
        term.send("\x1b[B\x1b[B")  # down to rl-login (rl-api, rl-checkout, rl-login)
        term.send("t")
        term.wait_for("Changed by someone else", timeout=120)
        term.send("\x1b")  # cancel: nothing sent
        # The screen's key bar is back: escape was read alone (a q right behind it
        # would be read with it as one key, alt+q).
        term.wait_for("Mark")
        assert term.quit() == 0
        assert wait_gone(server, 15), "the demo's PostgreSQL survived it"
        assert list(short_tmpdir.iterdir()) == []
    finally:
        term.kill()


@pytest.mark.parametrize("how", ["hangup", "sigterm"])
def test_demo_team_hangup_or_sigterm_stops_its_postgresql_and_removes_its_directory(
    short_tmpdir: Path, how: str
) -> None:
    term = Terminal([sys.executable, "-m", "bottui", "demo", "--team"], env=_env(short_tmpdir))
    closed = False
    try:
        term.wait_for("team: live", timeout=STARTED)
        server = _postgres(term.pid)
        if how == "hangup":  # an SSH drop: the terminal goes away, the kernel sends SIGHUP
            os.close(term.fd)
            closed = True
            expected = 128 + signal.SIGHUP
        else:
            os.kill(term.pid, signal.SIGTERM)
            expected = 128 + signal.SIGTERM
        assert _wait_exit(term.pid, timeout=120) == expected
        assert wait_gone(server, 15), f"the demo's PostgreSQL survived {how}"
        assert list(short_tmpdir.iterdir()) == []
    finally:
        if closed:
            try:
                os.kill(term.pid, signal.SIGKILL)
                os.waitpid(term.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        else:
            term.kill()


_BLOCKER = """
import glob
import sys

BLOCKED = {blocked!r}


class _Missing:
    # As on a machine where these are not installed.
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _Missing())
if {hide_system}:
    _glob = glob.glob
    glob.glob = lambda pattern, *a, **k: (
        [] if pattern.startswith("/usr/lib/postgresql") else _glob(pattern, *a, **k)
    )
"""


@pytest.mark.parametrize(
    ("blocked", "says"),
    [
        (("psycopg",), "needs the PostgreSQL driver (psycopg), which is not installed"),
        (("pgserver",), "needs PostgreSQL, which was not found"),
    ],
    ids=["no-driver", "no-postgresql"],
)
def test_demo_team_without_postgresql_says_what_to_install(
    tmp_path: Path, short_tmpdir: Path, blocked: tuple[str, ...], says: str
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    hide_system = "pgserver" in blocked  # and the machine's PostgreSQL with it
    (site / "sitecustomize.py").write_text(
        textwrap.dedent(_BLOCKER).format(blocked=set(blocked), hide_system=hide_system)
    )
    env = _env(short_tmpdir)
    env["PYTHONPATH"] = str(site)
    if hide_system:
        env["PATH"] = str(tmp_path / "empty")  # no initdb on PATH
    done = subprocess.run(
        [sys.executable, "-m", "bottui", "demo", "--team"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert says in done.stderr
    assert "pip install 'bottui[demo]'" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert list(short_tmpdir.iterdir()) == []  # nothing was started
