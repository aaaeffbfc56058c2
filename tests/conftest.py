"""Every test runs isolated from the developer's machine.

XDG directories point into ``tmp_path``, the ``BOTTUI_*`` variables are
cleared, and keyring uses an in-memory backend (a real ``KeyringBackend``
class) unless a test installs another.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from textual.app import App
from textual.widgets import Input, TextArea

from tests.fixtures.keyrings import InMemoryKeyring, installed

#: Property tests never race the clock: no per-example deadline (the default 200 ms fails
#: on a busy machine without a bug) and no health check that depends on speed. A test's own
#: ``@settings`` changes only what it names and inherits the rest from here.
settings.register_profile(
    "bottui",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("bottui")

pytest_plugins = ["tests.fixtures.sandbox", "tests.fixtures.plan_spy", "tests.fixtures.postgres"]


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Config, data and state directories of this test only."""
    home = tmp_path / "home"
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setenv("HOME", str(home))
    for var in (
        "BOTTUI_BASE_URL",
        "BOTTUI_ACCESS_TOKEN",
        "BOTTUI_API_KEY",
        "BOTTUI_PROFILE",
        "BOTTUI_OPERATOR",
        "PYTHON_KEYRING_BACKEND",
        "BOTTUI_STORE_URL",
        # libpq settings that would change how a team store is judged or reached
        "PGSSLMODE",
        "PGREQUIRESSL",
        "PGSERVICE",
        "PGSERVICEFILE",
        "PGSYSCONFDIR",
    ):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(autouse=True)
def no_typeahead_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process apps take every key: a test presses a screen's key right after a dialog
    closes, faster than a person could. The window itself is tested on its own clock
    (tests/tui/test_confirm_form.py sets ``app.typeahead.window`` and ``clock``)."""
    monkeypatch.setattr("bottui.tui.ui_rules.WINDOW", 0.0)


@pytest.fixture(autouse=True)
def toasts_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    """A toast stays until the test has looked: on a busy machine a snapshot or a check
    may come later than a toast's 5-10 s. How long toasts last is the app's choice,
    not something a test can see without a clock of its own."""
    notify = App.notify

    def staying(self: App[Any], message: str, **options: Any) -> None:
        options["timeout"] = 3600.0
        notify(self, message, **options)

    monkeypatch.setattr(App, "notify", staying)


@pytest.fixture(autouse=True)
def cursor_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """A focused field's cursor does not blink in tests: it blinks every 0.5 s, so a
    snapshot taken later than that on a busy machine caught it off (the snapshots show
    it on, as a screen does the moment a field takes focus)."""
    for widget, toggle in ((Input, "_toggle_cursor"), (TextArea, "_toggle_cursor_blink_visible")):
        assert callable(getattr(widget, toggle, None)), f"Textual renamed {widget}.{toggle}"
        monkeypatch.setattr(widget, toggle, lambda self: None)


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[InMemoryKeyring]:
    """A real in-memory keyring backend for this test."""
    with installed(InMemoryKeyring()) as backend:
        assert isinstance(backend, InMemoryKeyring)
        yield backend


def pytest_configure(config: pytest.Config) -> None:
    """Child processes get SIGINT as a terminal gives it.

    A pytest-xdist worker ignores SIGINT (the controller takes Ctrl-C), and an ignored
    signal is inherited through exec: a ``bottui`` the test starts would then ignore the
    SIGINT the test sends it (Python keeps SIG_IGN rather than raising KeyboardInterrupt).
    A handler, unlike SIG_IGN, is reset to the default in the child."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: Tests that were skipped in this run (node ids): the run fails if there is one.
_SKIPPED: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Note a skip (on the controller too, under pytest-xdist)."""
    if report.skipped and not hasattr(report, "wasxfail"):
        _SKIPPED.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """No test skips here: a skipped test is one that says nothing, so the run fails.

    What a test needs (PostgreSQL, zsh, fish) is brought by the test extra or ``.ci/run``;
    where it is missing the test fails with the remedy."""
    if _SKIPPED and exitstatus == pytest.ExitCode.OK:
        names = "\n  ".join(sorted(_SKIPPED)[:20])
        print(f"\n{len(_SKIPPED)} test(s) skipped; no test may skip:\n  {names}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
