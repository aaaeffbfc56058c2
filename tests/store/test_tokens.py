"""Tests of bottui.store.keyring_tokens with real keyring backend classes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from bottui.api.tokens import AccessToken, ProjectToken
from bottui.store.keyring_tokens import (
    DEFAULT_TIMEOUT,
    ENV_ACCESS_TOKEN,
    ENV_API_KEY,
    REMEDIES,
    TokenState,
    TokenStore,
)
from bottui.store.store_errors import KeyringUnavailable, StoreError
from bottui.store.token_sources import (
    SERVICE,
    normalize_base_url,
    personal_username,
    project_username,
)
from tests.fixtures.keyrings import BlockingKeyring, InMemoryKeyring, LockedKeyring, installed

ROOT = Path(__file__).resolve().parents[2]
URL = "https://api.example.com"
CANARY = "canary-7f3a9c-SECRET-TOKEN-do-not-print"
PROJECT_CANARY = "canary-project-51e0-SECRET"


@pytest.fixture
def memory() -> Iterator[InMemoryKeyring]:
    with installed(InMemoryKeyring()) as backend:
        assert isinstance(backend, InMemoryKeyring)
        yield backend


@pytest.fixture
def blocking() -> Iterator[BlockingKeyring]:
    backend = BlockingKeyring()
    with installed(backend):
        yield backend
    backend.release.set()  # let the stuck daemon threads end


def store(env: dict[str, str] | None = None, *, timeout: float = 4.0) -> TokenStore:
    return TokenStore({} if env is None else env, timeout=timeout)


def assert_remedies(error: StoreError) -> None:
    assert "\n" not in error.title
    assert ENV_ACCESS_TOKEN in error.details
    assert ENV_API_KEY in error.details
    assert "dbus-run-session -- sh -c" in error.details
    assert "gnome-keyring-daemon --unlock" in error.details
    assert "keyring --list-backends" in error.details
    assert "PYTHON_KEYRING_BACKEND" in error.details
    assert "keyringrc.cfg" in error.details


def assert_no_traceback(error: BaseException) -> None:
    assert error.__cause__ is None
    assert error.__context__ is None
    rendered = "".join(traceback.format_exception(error))
    assert "keyring/" not in rendered  # no frame of the keyring library
    assert "NoKeyringError" not in rendered.splitlines()[-1]


# -- keys ---------------------------------------------------------------------------


def test_round_trip_both_kinds(memory: InMemoryKeyring) -> None:
    tokens = store()
    assert tokens.personal(URL, "acc") is None
    assert tokens.project(URL, "acc", "web") is None
    tokens.set_personal(URL, "acc", AccessToken(CANARY))
    tokens.set_project(URL, "acc", "web", ProjectToken(PROJECT_CANARY))
    assert tokens.personal(URL, "acc") == AccessToken(CANARY)
    assert tokens.project(URL, "acc", "web") == ProjectToken(PROJECT_CANARY)
    assert isinstance(tokens.personal(URL, "acc"), AccessToken)
    assert isinstance(tokens.project(URL, "acc", "web"), ProjectToken)
    assert set(memory.passwords) == {
        (SERVICE, json.dumps(["personal", URL, "acc"])),
        (SERVICE, json.dumps(["project", URL, "acc", "web"])),
    }


def test_a_new_store_reads_what_another_wrote(memory: InMemoryKeyring) -> None:
    store().set_personal(URL, "acc", AccessToken(CANARY))
    assert store().personal(URL, "acc") == AccessToken(CANARY)


def test_set_replaces(memory: InMemoryKeyring) -> None:
    tokens = store()
    tokens.set_personal(URL, "acc", AccessToken("first"))
    tokens.set_personal(URL, "acc", AccessToken("second"))
    assert tokens.personal(URL, "acc") == AccessToken("second")
    assert len(memory.passwords) == 1


def test_wrong_token_type_is_refused(memory: InMemoryKeyring) -> None:
    tokens = store()
    with pytest.raises(TypeError):
        tokens.set_personal(URL, "acc", ProjectToken(CANARY))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tokens.set_project(URL, "acc", "p", AccessToken(CANARY))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tokens.set_personal(URL, "acc", CANARY)  # type: ignore[arg-type]
    assert memory.passwords == {}


HOSTILE = ['a"b', "a/b", '["x"]', "ünï€😀", "a:b", "a\\b", "", " ", "a\x1bb", '", "']


def test_hostile_ids_do_not_collide(memory: InMemoryKeyring) -> None:
    tokens = store()
    written: dict[tuple[str, ...], str] = {}
    for i, account in enumerate(HOSTILE):
        for j, project in enumerate(HOSTILE):
            value = f"project-{i}-{j}"
            tokens.set_project(URL, account, project, ProjectToken(value))
            written[("project", account, project)] = value
        tokens.set_personal(URL, account, AccessToken(f"personal-{i}"))
        written[("personal", account)] = f"personal-{i}"
    assert len(memory.passwords) == len(written)
    for key, value in written.items():
        if key[0] == "personal":
            assert tokens.personal(URL, key[1]) == AccessToken(value)
        else:
            assert tokens.project(URL, key[1], key[2]) == ProjectToken(value)


def test_keys_that_would_collide_if_joined() -> None:
    # "a/b" + "c" vs "a" + "b/c", and quotes that would close a naive string
    assert project_username(URL, "a/b", "c") != project_username(URL, "a", "b/c")
    assert project_username(URL, 'a", "b', "c") != project_username(URL, "a", 'b", "c')
    assert personal_username(URL, "x") != project_username(URL, "x", "")
    assert json.loads(project_username(URL, 'a"b', "ü")) == ["project", URL, 'a"b', "ü"]


def test_base_urls_are_separate(memory: InMemoryKeyring) -> None:
    tokens = store()
    tokens.set_personal("https://one.example", "acc", AccessToken("one"))
    tokens.set_personal("https://two.example", "acc", AccessToken("two"))
    tokens.set_personal("https://one.example/api", "acc", AccessToken("one-api"))
    tokens.set_personal("http://one.example", "acc", AccessToken("one-http"))
    assert tokens.personal("https://one.example", "acc") == AccessToken("one")
    assert tokens.personal("https://two.example", "acc") == AccessToken("two")
    assert tokens.personal("https://one.example/api", "acc") == AccessToken("one-api")
    assert tokens.personal("http://one.example", "acc") == AccessToken("one-http")
    assert tokens.personal("https://three.example", "acc") is None


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://x", "https://x"),
        ("https://X/", "https://x"),
        ("HTTPS://Api.Example.COM//", "https://api.example.com"),
        ("https://x:443/", "https://x"),
        ("http://x:80", "http://x"),
        ("http://x:8080/", "http://x:8080"),
        ("https://x:8443", "https://x:8443"),
        ("https://X/Base/Path/", "https://x/Base/Path"),
        ("  https://x/  ", "https://x"),
        ("http://[::1]:443/", "http://[::1]:443"),
        ("https://[::1]:443/", "https://[::1]"),
        ("not a url/", "not a url"),
        ("https://x:notaport/", "https://x:notaport"),
    ],
)
def test_normalize_base_url(given: str, expected: str) -> None:
    assert normalize_base_url(given) == expected


def test_normalised_urls_share_tokens(memory: InMemoryKeyring) -> None:
    tokens = store()
    tokens.set_personal("https://X/", "acc", AccessToken(CANARY))
    tokens.set_project("HTTPS://x:443", "acc", "p", ProjectToken(PROJECT_CANARY))
    assert tokens.personal("https://x", "acc") == AccessToken(CANARY)
    assert tokens.project("https://x/", "acc", "p") == ProjectToken(PROJECT_CANARY)
    assert tokens.delete_personal("https://x", "acc") is True
    assert tokens.personal("https://X/", "acc") is None


# -- environment --------------------------------------------------------------------


def test_environment_wins_over_keyring(memory: InMemoryKeyring) -> None:
    tokens = store({ENV_ACCESS_TOKEN: "from-env-personal", ENV_API_KEY: "from-env-project"})
    tokens.set_personal(URL, "acc", AccessToken("stored-personal"))
    tokens.set_project(URL, "acc", "p", ProjectToken("stored-project"))
    assert tokens.personal(URL, "acc") == AccessToken("from-env-personal")
    assert tokens.project(URL, "acc", "p") == ProjectToken("from-env-project")
    # The bare names are not tied to an account or a project (#27 item 7), and say so.
    assert tokens.personal_state(URL, "acc") is TokenState.ENVIRONMENT_ANY_ACCOUNT
    assert tokens.project_state(URL, "acc", "p") is TokenState.ENVIRONMENT_ANY_PROJECT
    # every slot, not only stored ones
    assert tokens.personal("https://other", "x") == AccessToken("from-env-personal")


def test_environment_kinds_are_not_mixed(memory: InMemoryKeyring) -> None:
    tokens = store({ENV_API_KEY: "project-only"})
    assert tokens.personal(URL, "acc") is None
    assert tokens.project(URL, "acc", "p") == ProjectToken("project-only")
    tokens = store({ENV_ACCESS_TOKEN: "personal-only"})
    assert tokens.project(URL, "acc", "p") is None
    assert tokens.personal(URL, "acc") == AccessToken("personal-only")


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_empty_environment_counts_as_unset(memory: InMemoryKeyring, blank: str) -> None:
    tokens = store({ENV_ACCESS_TOKEN: blank, ENV_API_KEY: blank})
    assert tokens.personal(URL, "acc") is None
    assert tokens.personal_state(URL, "acc") is TokenState.MISSING
    tokens.set_personal(URL, "acc", AccessToken("stored"))
    assert tokens.personal(URL, "acc") == AccessToken("stored")
    assert tokens.project_state(URL, "acc", "p") is TokenState.MISSING


def test_environment_works_without_a_keyring() -> None:
    with installed(fail.Keyring()):
        tokens = store({ENV_ACCESS_TOKEN: CANARY, ENV_API_KEY: PROJECT_CANARY})
        assert tokens.personal(URL, "acc") == AccessToken(CANARY)
        assert tokens.project(URL, "acc", "p") == ProjectToken(PROJECT_CANARY)
        assert tokens.personal_state(URL, "acc") is TokenState.ENVIRONMENT_ANY_ACCOUNT


def test_default_environment_is_os_environ(
    memory: InMemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_ACCESS_TOKEN, "from-os-environ")
    assert TokenStore().personal(URL, "acc") == AccessToken("from-os-environ")
    monkeypatch.delenv(ENV_ACCESS_TOKEN)
    assert TokenStore().personal(URL, "acc") is None


# -- states and delete --------------------------------------------------------------


def test_states(memory: InMemoryKeyring) -> None:
    tokens = store()
    assert tokens.personal_state(URL, "acc") is TokenState.MISSING
    assert tokens.project_state(URL, "acc", "p") is TokenState.MISSING
    tokens.set_personal(URL, "acc", AccessToken(CANARY))
    tokens.set_project(URL, "acc", "p", ProjectToken(PROJECT_CANARY))
    assert tokens.personal_state(URL, "acc") is TokenState.STORED
    assert tokens.project_state(URL, "acc", "p") is TokenState.STORED
    assert tokens.project_state(URL, "acc", "other") is TokenState.MISSING


def test_state_labels() -> None:
    assert TokenState.STORED.label == "stored"
    assert TokenState.MISSING.label == "missing"
    assert TokenState.ENVIRONMENT.label == "from environment"
    assert str(TokenState.ENVIRONMENT) == "from environment"


def test_blank_keyring_entry_is_missing(memory: InMemoryKeyring) -> None:
    memory.passwords[(SERVICE, personal_username(URL, "acc"))] = "   "
    tokens = store()
    assert tokens.personal(URL, "acc") is None
    assert tokens.personal_state(URL, "acc") is TokenState.MISSING


def test_delete(memory: InMemoryKeyring) -> None:
    tokens = store()
    assert tokens.delete_personal(URL, "acc") is False
    assert tokens.delete_project(URL, "acc", "p") is False
    tokens.set_personal(URL, "acc", AccessToken(CANARY))
    tokens.set_project(URL, "acc", "p", ProjectToken(PROJECT_CANARY))
    tokens.set_project(URL, "acc", "q", ProjectToken("other"))
    assert tokens.delete_project(URL, "acc", "p") is True
    assert tokens.project(URL, "acc", "p") is None
    assert tokens.project(URL, "acc", "q") == ProjectToken("other")
    assert tokens.personal(URL, "acc") == AccessToken(CANARY)
    assert tokens.delete_personal(URL, "acc") is True
    assert tokens.delete_personal(URL, "acc") is False
    assert tokens.personal_state(URL, "acc") is TokenState.MISSING


def test_delete_leaves_environment_alone(memory: InMemoryKeyring) -> None:
    env = {ENV_ACCESS_TOKEN: "env"}
    tokens = store(env)
    tokens.set_personal(URL, "acc", AccessToken("stored"))
    assert tokens.delete_personal(URL, "acc") is True
    assert tokens.personal(URL, "acc") == AccessToken("env")
    assert env == {ENV_ACCESS_TOKEN: "env"}


def test_backend_argument_bypasses_global_keyring(memory: InMemoryKeyring) -> None:
    own = InMemoryKeyring()
    tokens = TokenStore({}, backend=own)
    tokens.set_personal(URL, "acc", AccessToken(CANARY))
    assert memory.passwords == {}
    assert tokens.personal(URL, "acc") == AccessToken(CANARY)
    assert store().personal(URL, "acc") is None


class _ThreadRecordingKeyring(InMemoryKeyring):
    """Remembers the thread each call ran in."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[threading.Thread] = []

    def set_password(self, service: str, username: str, password: str) -> None:
        self.threads.append(threading.current_thread())
        super().set_password(service, username, password)


class _AtOnceKeyring(_ThreadRecordingKeyring):
    answers_at_once = True


def test_a_keyring_that_may_hang_is_called_in_a_watched_thread() -> None:
    backend = _ThreadRecordingKeyring()
    TokenStore({}, backend=backend).set_personal(URL, "acc", AccessToken(CANARY))
    assert [t.name for t in backend.threads] == ["bottui-keyring"]


def test_an_in_process_keyring_is_called_in_the_callers_thread() -> None:
    # The demo's MemoryKeyring says it answers at once: no thread per call.
    from bottui.store.keyring_tokens import MemoryKeyring

    assert MemoryKeyring.answers_at_once is True
    backend = _AtOnceKeyring()
    tokens = TokenStore({}, backend=backend)
    tokens.set_personal(URL, "acc", AccessToken(CANARY))
    assert backend.threads == [threading.current_thread()]
    assert tokens.personal(URL, "acc") == AccessToken(CANARY)


# -- keyring failures ---------------------------------------------------------------


def test_no_backend() -> None:
    with installed(fail.Keyring()):
        tokens = store()
        calls = [
            lambda: tokens.personal(URL, "acc"),
            lambda: tokens.project(URL, "acc", "p"),
            lambda: tokens.personal_state(URL, "acc"),
            lambda: tokens.project_state(URL, "acc", "p"),
            lambda: tokens.delete_personal(URL, "acc"),
            lambda: tokens.delete_project(URL, "acc", "p"),
            lambda: tokens.set_personal(URL, "acc", AccessToken(CANARY)),
            lambda: tokens.set_project(URL, "acc", "p", ProjectToken(CANARY)),
        ]
        for call in calls:
            with pytest.raises(KeyringUnavailable) as caught:
                call()
            error = caught.value
            assert isinstance(error, StoreError)
            assert error.title == "No keyring backend is available"
            assert_remedies(error)
            assert_no_traceback(error)
            assert CANARY not in f"{error!s}{error!r}{error.details}{error.args}"


def test_null_backend_counts_as_none() -> None:
    from keyring.backends import null

    with installed(null.Keyring()):
        with pytest.raises(KeyringUnavailable) as caught:
            store().set_personal(URL, "acc", AccessToken(CANARY))
        assert caught.value.title == "No keyring backend is available"
        assert "priority" in caught.value.details


def test_empty_chainer_counts_as_none(monkeypatch: pytest.MonkeyPatch) -> None:
    from keyring.backends import chainer

    monkeypatch.setattr(chainer.ChainerBackend, "backends", [])
    with installed(chainer.ChainerBackend()):
        with pytest.raises(KeyringUnavailable) as caught:
            store().personal(URL, "acc")
        assert caught.value.title == "No keyring backend is available"
        assert "chainer" in caught.value.details


def test_locked() -> None:
    with installed(LockedKeyring()):
        tokens = store()
        with pytest.raises(KeyringUnavailable) as caught:
            tokens.personal(URL, "acc")
        assert caught.value.title == "The keyring is locked"
        assert "KeyringLocked: Failed to unlock the collection!" in caught.value.details
        assert_remedies(caught.value)
        assert_no_traceback(caught.value)
        with pytest.raises(KeyringUnavailable):
            tokens.set_project(URL, "acc", "p", ProjectToken(CANARY))
        # not a timeout: the next call still asks the keyring
        with pytest.raises(KeyringUnavailable) as again:
            tokens.personal(URL, "acc")
        assert again.value.title == "The keyring is locked"


class LeakyKeyring(InMemoryKeyring):
    """Fails with an error text that holds the password and control characters."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise RuntimeError(f"cannot store \x1b[31m{password}\x1b[0m\nfor {username}")


LeakyKeyring._classes.discard(LeakyKeyring)


def test_backend_error_text_is_cleaned_and_scrubbed() -> None:
    with installed(LeakyKeyring()), pytest.raises(KeyringUnavailable) as caught:
        store().set_personal(URL, "acc", AccessToken(CANARY))
    error = caught.value
    assert error.title == "The keyring failed"
    assert CANARY not in error.details
    assert "\x1b" not in error.details
    assert "RuntimeError: cannot store" in error.details
    assert error.details.splitlines()[0].startswith("RuntimeError")
    assert_no_traceback(error)
    assert CANARY not in "".join(traceback.format_exception(error))


def guarded(call: Callable[[], object]) -> BaseException | None:
    """Run ``call`` on a thread; what it raised. Joined for 120 s: a hang guard only."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            raised.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(120)
    assert not worker.is_alive(), "hung"
    return raised[0] if raised else None


def test_blocking_backend_times_out_then_fails_fast(blocking: BlockingKeyring) -> None:
    tokens = store(timeout=1.0)
    start = time.monotonic()
    caught = guarded(lambda: tokens.personal(URL, "acc"))
    assert time.monotonic() - start >= 0.9  # it did wait for the keyring first
    assert isinstance(caught, KeyringUnavailable)
    assert caught.title == "The keyring did not answer within 1 s"
    assert_remedies(caught)
    assert_no_traceback(caught)
    # The threads alive now: another test's may end meanwhile (a count would see it).
    threads = set(threading.enumerate())
    # Fast: the next calls do not wait at all. With an hour's timeout, a call that
    # waited for the stuck keyring would trip the hang guard.
    tokens._timeout = 3600.0
    for _ in range(5):
        again = guarded(lambda: tokens.set_personal(URL, "acc", AccessToken(CANARY)))
        assert isinstance(again, KeyringUnavailable)
        assert again.title.startswith("The keyring did not answer within")
    assert blocking.calls == 1  # no pile of threads
    assert set(threading.enumerate()) <= threads  # none started


def test_default_timeout_is_under_five_seconds(blocking: BlockingKeyring) -> None:
    assert DEFAULT_TIMEOUT < 5
    caught = guarded(lambda: TokenStore({}).personal_state(URL, "acc"))
    assert isinstance(caught, KeyringUnavailable)
    assert caught.title == f"The keyring did not answer within {DEFAULT_TIMEOUT:g} s"


def test_stuck_thread_is_a_daemon(blocking: BlockingKeyring) -> None:
    with pytest.raises(KeyringUnavailable):
        store(timeout=0.2).personal(URL, "acc")
    stuck = [t for t in threading.enumerate() if t.name == "bottui-keyring" and t.is_alive()]
    assert stuck
    assert all(t.daemon for t in stuck)


def test_calls_resume_once_the_stuck_call_returns(blocking: BlockingKeyring) -> None:
    tokens = store(timeout=0.2)
    with pytest.raises(KeyringUnavailable):
        tokens.personal(URL, "acc")
    blocking.release.set()
    deadline = time.monotonic() + 120  # a hang guard
    while any(t.name == "bottui-keyring" and t.is_alive() for t in threading.enumerate()):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert tokens.personal(URL, "acc") is None  # BlockingKeyring answers None once released


def test_timeout_is_per_store(blocking: BlockingKeyring) -> None:
    with pytest.raises(KeyringUnavailable):
        store(timeout=0.2).personal(URL, "acc")
    with pytest.raises(KeyringUnavailable):
        store(timeout=0.2).personal(URL, "acc")
    assert blocking.calls == 2


def test_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError):
        TokenStore({}, timeout=0)


HUNG_PROCESS = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {root!r})
    import keyring
    from tests.fixtures.keyrings import BlockingKeyring
    from bottui.store.keyring_tokens import TokenStore
    from bottui.store.store_errors import KeyringUnavailable
    keyring.set_keyring(BlockingKeyring())
    start = time.monotonic()
    try:
        TokenStore({{}}, timeout=1).personal("https://x", "acc")
    except KeyringUnavailable as error:
        print(error.title, flush=True)
        print(round(time.monotonic() - start, 1), flush=True)
    """
)


def test_process_with_hung_keyring_exits_promptly() -> None:
    """The stuck keyring thread never holds up the interpreter's exit: had it, the child
    would wait for a keyring that never answers, and the hang guard would fail the test.
    The figure: ``python -m tests.bench.keyring_promise``."""
    done = subprocess.run(
        [sys.executable, "-c", HUNG_PROCESS.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "The keyring did not answer within 1 s"
    assert done.stderr == ""


# -- nothing shows a token ----------------------------------------------------------


def test_nothing_shows_a_token(memory: InMemoryKeyring) -> None:
    env = {ENV_ACCESS_TOKEN: CANARY, ENV_API_KEY: PROJECT_CANARY}
    tokens = TokenStore(env)
    tokens.set_personal(URL, "acc", AccessToken(CANARY))
    shown = [
        repr(tokens),
        str(tokens),
        repr(tokens.personal(URL, "acc")),
        str(tokens.project(URL, "acc", "p")),
        f"{tokens.personal(URL, 'acc')}",
        repr(tokens.personal_state(URL, "acc")),
        str(tokens.project_state(URL, "acc", "p")),
        *(repr(state) + str(state) + state.label for state in TokenState),
        REMEDIES,
    ]
    for failing in (fail.Keyring(), LockedKeyring(), LeakyKeyring()):
        with installed(failing), pytest.raises(KeyringUnavailable) as caught:
            store().set_personal(URL, "acc", AccessToken(CANARY))
        error = caught.value
        shown += [repr(error), str(error), error.title, error.details, repr(error.args)]
        shown.append("".join(traceback.format_exception(error)))
    for text in shown:
        assert CANARY not in text
        assert PROJECT_CANARY not in text


def test_import_is_lazy() -> None:
    code = (
        "import sys; import bottui.store.keyring_tokens, bottui.store.config.config_file;"
        "import bottui.store.files;"
        "print(sorted(m for m in ('keyring', 'tomlkit', 'textual', 'httpx') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "[]"


def test_keyring_module_default_is_restored() -> None:
    # the fixtures restore whatever was there, without triggering detection
    before = keyring.core._keyring_backend
    with installed(InMemoryKeyring()):
        pass
    assert keyring.core._keyring_backend is before


@pytest.mark.parametrize(
    ("backend", "title", "reason"),
    [
        ("keyring.backends.fail.Keyring", "No keyring backend is available", "no usable backend"),
        ("keyring.backends.null.Keyring", "No keyring backend is available", "priority -1"),
        ("no_such_module.Keyring", "The keyring failed", "ModuleNotFoundError"),
    ],
)
def test_backend_chosen_by_keyrings_own_config(
    tmp_path: Path, backend: str, title: str, reason: str
) -> None:
    code = (
        "from bottui.store.keyring_tokens import TokenStore\n"
        "from bottui.store.store_errors import KeyringUnavailable\n"
        "try:\n"
        "    TokenStore({}).personal('https://x', 'acc')\n"
        "except KeyringUnavailable as error:\n"
        "    print(error.title); print(error.details)\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path),
        "PYTHON_KEYRING_BACKEND": backend,
    }
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == title
    assert reason in lines[1]
    assert "Traceback" not in done.stdout + done.stderr


def test_usable_backend_is_checked_once(
    memory: InMemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = 0

    def priority(self: object) -> float:
        nonlocal asked
        asked += 1
        return 1.0

    monkeypatch.setattr(InMemoryKeyring, "priority", property(priority))
    tokens = store()
    for _ in range(3):
        tokens.personal(URL, "acc")
    assert asked == 1
