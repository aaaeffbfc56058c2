"""Tokens in the OS keyring: read and written with a timeout, probed for doctor, and the demo's.

* :class:`TokenStore`: the environment first (:mod:`bottui.store.token_sources`),
  then the keyring, every keyring call on a daemon thread with a timeout;
* :func:`probe_keyring`: which backend is in use and whether it answers (``bottui doctor``);
* :class:`MemoryKeyring`: the demo's keyring, so nothing reaches the user's real one.
"""

from __future__ import annotations

import enum
import json
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Final, TypeVar

import msgspec

from bottui.api.tokens import TOKEN_ENV, AccessToken, ProjectToken, Secret, StorePassword
from bottui.plaintext import clean
from bottui.store.store_errors import KeyringUnavailable, reason_text
from bottui.store.token_sources import (
    SERVICE,
    EnvScope,
    EnvToken,
    TokenKind,
    find,
    personal_username,
    project_username,
)

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend


# The one place that reads and writes tokens: the environment, then the OS keyring.
#
# Personal access tokens are kept per (base URL, account), project API tokens
# per (base URL, account, project), in the keyring under the service
# ``"bottui"``. The keyring username is a JSON array, so hostile ids (quotes,
# slashes, colons, brackets) cannot make two keys collide.
#
# ``BOTTUI_ACCESS_TOKEN`` and ``BOTTUI_API_KEY`` in the environment win over the
# keyring (an empty value counts as unset), and a profile's own
# ``BOTTUI_API_KEY_<PROFILE>`` / ``BOTTUI_ACCESS_TOKEN_<PROFILE>`` win over
# those for that profile's slot alone (:mod:`bottui.store.token_sources`): the
# bare names are *not tied* to a project and their state says so.
#
# Every keyring call runs in a *daemon* thread and is waited for with a
# timeout: a Secret Service that never answers (a D-Bus activation was seen to
# hang for 120 s) turns into :class:`KeyringUnavailable` within seconds, and the
# stuck thread cannot hold up interpreter exit. On an event loop, await the
# ``*_async`` methods: the keyring call runs on one daemon thread of the store
# executor (:mod:`bottui.store.executor`) and the loop waits out the timeout,
# so a read takes one thread, not a waiting worker plus a keyring thread.
# ``keyring`` itself is imported
# lazily, on the first call that needs it, because importing it is slow.

ENV_ACCESS_TOKEN: Final = TOKEN_ENV["personal"]
ENV_API_KEY: Final = TOKEN_ENV["project"]
DEFAULT_TIMEOUT: Final = 4.0


REMEDIES: Final = (
    "What you can do:\n"
    f"  - set {ENV_ACCESS_TOKEN} (personal access token) or {ENV_API_KEY} (project API token)"
    " in the environment; the environment wins over the keyring;\n"
    "  - run under a Secret Service: dbus-run-session -- sh -c"
    " 'echo -n PASSWORD | gnome-keyring-daemon --unlock; bottui ...';\n"
    "  - or choose a keyring backend through keyring's own configuration:"
    " keyring --list-backends, PYTHON_KEYRING_BACKEND, keyringrc.cfg."
)


S = TypeVar("S", bound=Secret)


class TokenState(enum.Enum):
    """Where the token of one slot comes from; never the token itself."""

    STORED = "stored"
    MISSING = "missing"
    #: A profile's own variable, tied to this very slot (``BOTTUI_API_KEY_<PROFILE>``).
    ENVIRONMENT = "from environment"
    #: ``BOTTUI_API_KEY``: used for this project, but nothing says it is this project's.
    ENVIRONMENT_ANY_PROJECT = "from the environment: not tied to a project"
    #: ``BOTTUI_ACCESS_TOKEN``: used for this account, but nothing says it is this account's.
    ENVIRONMENT_ANY_ACCOUNT = "from the environment: not tied to an account"

    @property
    def label(self) -> str:
        """Human label: ``"stored"``, ``"missing"``, ``"from environment"``, ..."""
        return self.value

    @property
    def from_environment(self) -> bool:
        """The environment holds the token used for the slot (tied or not)."""
        return self in _FROM_ENVIRONMENT

    @property
    def usable(self) -> bool:
        """A token would be sent for the slot (which may still be another project's
        when it is not tied)."""
        return self is not TokenState.MISSING

    @classmethod
    def of_env(cls, found: EnvToken, kind: TokenKind) -> TokenState:
        """The state an environment token gives its slot."""
        if found.tied:
            return cls.ENVIRONMENT
        return cls.ENVIRONMENT_ANY_PROJECT if kind == "project" else cls.ENVIRONMENT_ANY_ACCOUNT

    def __str__(self) -> str:
        return self.value


_FROM_ENVIRONMENT: Final = frozenset(
    {TokenState.ENVIRONMENT, TokenState.ENVIRONMENT_ANY_PROJECT, TokenState.ENVIRONMENT_ANY_ACCOUNT}
)


class _Outcome:
    """What a keyring worker thread hands back: a value or a failure text."""

    __slots__ = ("failure", "value")

    def __init__(self) -> None:
        self.value: object = None
        self.failure: tuple[str, str] | None = None


def _unavailable(title: str, reason: str) -> KeyringUnavailable:
    details = f"{reason}\n{REMEDIES}" if reason else REMEDIES
    return KeyringUnavailable(title, details)


def _no_backend_reason(backend: KeyringBackend) -> str | None:
    """Why ``backend`` cannot hold tokens, or ``None`` when it can."""
    name = f"{type(backend).__module__}.{type(backend).__qualname__}"
    # Only keyring's own backends can be its fail or chainer backend; for our
    # duck-typed one (the demo's in-memory keyring), importing keyring
    # (~115 ms) to learn that would cost the demo its start-up time.
    if type(backend).__module__.startswith("keyring."):
        from keyring.backends import chainer, fail

        if isinstance(backend, fail.Keyring):
            return "The keyring library found no usable backend on this system."
        if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
            return "Keyring's chainer backend has no backend to chain."
    try:
        priority = float(getattr(backend, "priority", 1))
    except Exception:
        return clean(f"The keyring backend {name} is not viable here.")
    if priority <= 0:
        return clean(f"The keyring backend {name} does not store anything (priority {priority:g}).")
    return None


def _describe(exc: BaseException, secret: str | None) -> tuple[str, str]:
    """Title and one-line reason for a keyring failure, with no token in them."""
    from keyring import errors

    try:
        text = reason_text(str(exc), secret)
    except Exception:
        text = ""
    kind = clean(type(exc).__name__)
    reason = f"{kind}: {text}" if text else kind
    if isinstance(exc, errors.NoKeyringError):
        return "No keyring backend is available", reason
    if isinstance(exc, errors.KeyringLocked):
        return "The keyring is locked", reason
    if isinstance(exc, errors.InitError):
        return "The keyring could not be opened", reason
    return "The keyring failed", reason


class TokenStore:
    """Reads and writes tokens: environment first, then the OS keyring.

    Args:
        environ: Where ``BOTTUI_ACCESS_TOKEN`` / ``BOTTUI_API_KEY`` are looked up;
            ``os.environ`` unless given.
        timeout: Seconds to wait for one keyring call before giving up.
        backend: A keyring backend to use instead of ``keyring.get_keyring()``
            (the demo passes an in-memory one).
        scopes: The profiles whose own variables (``BOTTUI_API_KEY_<PROFILE>``)
            may fill a slot; none: only the bare, untied names are read.

    Thread-safe. The plain methods block (call them from a worker thread);
    on an event loop await their ``*_async`` twins. Raises
    :class:`KeyringUnavailable` whenever the keyring is needed but absent,
    locked, failing or too slow. After a call has timed
    out, calls fail fast for as long as the stuck call has not returned.
    """

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        backend: KeyringBackend | None = None,
        scopes: Sequence[EnvScope] = (),
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self._environ: Mapping[str, str] = os.environ if environ is None else environ
        self.scopes: tuple[EnvScope, ...] = tuple(scopes)
        self._timeout = float(timeout)
        self._backend = backend
        self._lock = threading.Lock()
        # Set once a call that timed out has returned; until then calls fail fast.
        self._stuck: threading.Event | None = None
        # Its own executor lane: one stuck keyring must not hold up another store's.
        self._lane = f"keyring:{id(self)}"
        # The last backend found usable: its (possibly D-Bus) priority is not asked again.
        self._usable: KeyringBackend | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(timeout={self._timeout:g})"

    # -- personal access tokens -------------------------------------------------

    def personal(self, base_url: str, account: str) -> AccessToken | None:
        """The personal access token for ``account``: environment, else keyring."""
        from_env = self._env("personal", base_url, account, None)
        if from_env is not None:
            return AccessToken(from_env.value)
        return self._read(personal_username(base_url, account), AccessToken)

    def set_personal(self, base_url: str, account: str, token: AccessToken) -> None:
        """Store the personal access token of ``account`` in the keyring."""
        if not isinstance(token, AccessToken):
            raise TypeError("set_personal takes an AccessToken")
        self._write(personal_username(base_url, account), token.reveal())

    def delete_personal(self, base_url: str, account: str) -> bool:
        """Remove the stored personal token; ``False`` when none was stored."""
        return self._delete(personal_username(base_url, account))

    def personal_state(self, base_url: str, account: str) -> TokenState:
        """Where the personal access token would come from."""
        from_env = self._env("personal", base_url, account, None)
        if from_env is not None:
            return TokenState.of_env(from_env, "personal")
        return self._state(personal_username(base_url, account), AccessToken)

    # -- project API tokens -------------------------------------------------------

    def project(self, base_url: str, account: str, project: str) -> ProjectToken | None:
        """The project API token for ``account``/``project``: environment, else keyring."""
        from_env = self._env("project", base_url, account, project)
        if from_env is not None:
            return ProjectToken(from_env.value)
        return self._read(project_username(base_url, account, project), ProjectToken)

    def set_project(self, base_url: str, account: str, project: str, token: ProjectToken) -> None:
        """Store the project API token of ``account``/``project`` in the keyring."""
        if not isinstance(token, ProjectToken):
            raise TypeError("set_project takes a ProjectToken")
        self._write(project_username(base_url, account, project), token.reveal())

    def delete_project(self, base_url: str, account: str, project: str) -> bool:
        """Remove the stored project token; ``False`` when none was stored."""
        return self._delete(project_username(base_url, account, project))

    def project_state(self, base_url: str, account: str, project: str) -> TokenState:
        """Where the project API token would come from."""
        from_env = self._env("project", base_url, account, project)
        if from_env is not None:
            return TokenState.of_env(from_env, "project")
        return self._state(project_username(base_url, account, project), ProjectToken)

    def environment_state(
        self, base_url: str, account: str, project: str | None = None
    ) -> TokenState | None:
        """Where the environment puts this slot's token (None: it does not); no keyring.

        ``project`` None: the personal access token of ``account``.

        Raises:
            EnvTokenAmbiguous: two environment tokens claim the slot.
        """
        kind: TokenKind = "personal" if project is None else "project"
        found = self._env(kind, base_url, account, project)
        return None if found is None else TokenState.of_env(found, kind)

    # -- the same, awaited on an event loop ---------------------------------------

    async def personal_async(self, base_url: str, account: str) -> AccessToken | None:
        """:meth:`personal`, awaited: the keyring call runs on one daemon thread."""
        from_env = self._env("personal", base_url, account, None)
        if from_env is not None:
            return AccessToken(from_env.value)
        username = personal_username(base_url, account)
        return _token(await self._acall(_getter(username), None), AccessToken)

    async def project_async(self, base_url: str, account: str, project: str) -> ProjectToken | None:
        """:meth:`project`, awaited."""
        from_env = self._env("project", base_url, account, project)
        if from_env is not None:
            return ProjectToken(from_env.value)
        username = project_username(base_url, account, project)
        return _token(await self._acall(_getter(username), None), ProjectToken)

    async def personal_state_async(self, base_url: str, account: str) -> TokenState:
        """:meth:`personal_state`, awaited."""
        from_env = self._env("personal", base_url, account, None)
        if from_env is not None:
            return TokenState.of_env(from_env, "personal")
        found = await self.personal_async(base_url, account)
        return TokenState.MISSING if found is None else TokenState.STORED

    async def project_state_async(self, base_url: str, account: str, project: str) -> TokenState:
        """:meth:`project_state`, awaited."""
        from_env = self._env("project", base_url, account, project)
        if from_env is not None:
            return TokenState.of_env(from_env, "project")
        found = await self.project_async(base_url, account, project)
        return TokenState.MISSING if found is None else TokenState.STORED

    async def states_async(
        self, entries: Sequence[tuple[str, type[AccessToken] | type[ProjectToken]]]
    ) -> dict[str, TokenState]:
        """The state of each keyring ``(username, kind)``, in one trip to the store thread.

        Thousands of slots read one call each meant thousands of hand-overs to
        the thread; one batch is one. A kind whose token is in the environment
        is "from environment" (tied to it or not) without asking the keyring. Raises
        :class:`KeyringUnavailable` for the whole batch when the keyring fails,
        :class:`~bottui.store.token_sources.EnvTokenAmbiguous` when two
        environment tokens claim one of the slots.
        """
        out: dict[str, TokenState] = {}
        wanted: list[tuple[str, type[AccessToken] | type[ProjectToken]]] = []
        for name, kind in entries:
            found = self._env_of_username(name)
            if found is None:
                wanted.append((name, kind))
            else:
                out[name] = TokenState.of_env(
                    found, "personal" if kind is AccessToken else "project"
                )
        if not wanted:
            return out

        def operation(backend: KeyringBackend) -> object:
            return {
                name: TokenState.MISSING
                if _token(backend.get_password(SERVICE, name), kind) is None
                else TokenState.STORED
                for name, kind in wanted
            }

        stored = await self._acall(operation, None)
        assert isinstance(stored, dict)
        out.update(stored)
        return out

    async def set_personal_async(self, base_url: str, account: str, token: AccessToken) -> None:
        """:meth:`set_personal`, awaited."""
        if not isinstance(token, AccessToken):
            raise TypeError("set_personal takes an AccessToken")
        secret = token.reveal()
        await self._acall(_setter(personal_username(base_url, account), secret), secret)

    async def set_project_async(
        self, base_url: str, account: str, project: str, token: ProjectToken
    ) -> None:
        """:meth:`set_project`, awaited."""
        if not isinstance(token, ProjectToken):
            raise TypeError("set_project takes a ProjectToken")
        secret = token.reveal()
        username = project_username(base_url, account, project)
        await self._acall(_setter(username, secret), secret)

    async def delete_personal_async(self, base_url: str, account: str) -> bool:
        """:meth:`delete_personal`, awaited."""
        return bool(await self._acall(_deleter(personal_username(base_url, account)), None))

    async def delete_project_async(self, base_url: str, account: str, project: str) -> bool:
        """:meth:`delete_project`, awaited."""
        username = project_username(base_url, account, project)
        return bool(await self._acall(_deleter(username), None))

    # -- the team store's password (keyring username: token_names.store_username) --

    async def store_password_async(self, username: str) -> StorePassword | None:
        """The team store's password kept under ``username``, or ``None``."""
        return _token(await self._acall(_getter(username), None), StorePassword)

    async def set_store_password_async(self, username: str, password: StorePassword) -> None:
        """Keep the team store's password under ``username``."""
        secret = password.reveal()
        await self._acall(_setter(username, secret), secret)

    async def delete_store_password_async(self, username: str) -> bool:
        """Forget the team store's password; ``False`` when none was kept."""
        return bool(await self._acall(_deleter(username), None))

    # -- internals ----------------------------------------------------------------

    def _env(
        self, kind: TokenKind, base_url: str, account: str, project: str | None
    ) -> EnvToken | None:
        """The environment's token for one slot (tied first); raises when ambiguous."""
        return find(self._environ, self.scopes, kind, base_url, account, project)

    def _env_of_username(self, username: str) -> EnvToken | None:
        """:meth:`_env` for a slot named by its keyring username."""
        parts = json.loads(username)
        if parts[0] == "personal":
            return self._env("personal", parts[1], parts[2], None)
        return self._env("project", parts[1], parts[2], parts[3])

    def _read(self, username: str, kind: type[S]) -> S | None:
        return _token(self._call(_getter(username), None), kind)

    def _state(self, username: str, kind: type[S]) -> TokenState:
        found = self._read(username, kind)
        return TokenState.MISSING if found is None else TokenState.STORED

    def _write(self, username: str, secret: str) -> None:
        self._call(_setter(username, secret), secret)

    def _delete(self, username: str) -> bool:
        return bool(self._call(_deleter(username), None))

    def _timed_out(self) -> KeyringUnavailable:
        return _unavailable(
            f"The keyring did not answer within {self._timeout:g} s",
            "A keyring call is still waiting (a Secret Service that is being activated,"
            " or waiting for an unlock prompt).",
        )

    def _check_not_stuck(self) -> None:
        """Fail fast while an earlier call that timed out still waits on the keyring."""
        with self._lock:
            if self._stuck is not None:
                if not self._stuck.is_set():
                    raise self._timed_out()
                self._stuck = None

    def _work(
        self, operation: Callable[[KeyringBackend], object], secret: str | None
    ) -> tuple[Callable[[], None], _Outcome, threading.Event]:
        """The keyring call to run in a worker, where its outcome goes, and its done flag.

        ``secret`` is scrubbed from any backend error text. The backend's
        exception object never leaves the worker, so nothing raised later
        chains to it (its frames hold the secret).
        """
        if self._backend is None:
            import keyring  # lazily: ~115 ms

            get_backend: Callable[[], KeyringBackend] = keyring.get_keyring
        else:
            chosen = self._backend

            def get_backend() -> KeyringBackend:
                return chosen

        outcome = _Outcome()
        done = threading.Event()

        def work() -> None:
            try:
                backend = get_backend()
                problem = None if backend is self._usable else _no_backend_reason(backend)
                if problem is not None:
                    outcome.failure = ("No keyring backend is available", problem)
                else:
                    self._usable = backend
                    outcome.value = operation(backend)
            except Exception as exc:
                outcome.failure = _describe(exc, secret)
            finally:
                done.set()

        return work, outcome, done

    @staticmethod
    def _result(outcome: _Outcome) -> object:
        if outcome.failure is not None:
            title, reason = outcome.failure
            raise _unavailable(title, reason)
        return outcome.value

    def _call(self, operation: Callable[[KeyringBackend], object], secret: str | None) -> object:
        """Run ``operation`` on the keyring backend in a daemon thread, with a timeout.

        For callers in a worker thread (the CLI); the event loop awaits
        :meth:`_acall` instead, which needs no second thread.
        """
        self._check_not_stuck()
        work, outcome, done = self._work(operation, secret)
        if getattr(self._backend, "answers_at_once", False):
            # An in-process keyring (the demo's) cannot hang: no thread to wait on.
            work()
        else:
            worker = threading.Thread(target=work, name="bottui-keyring", daemon=True)
            worker.start()
            if not done.wait(self._timeout):
                with self._lock:
                    self._stuck = done
                raise self._timed_out()
        return self._result(outcome)

    async def _acall(
        self, operation: Callable[[KeyringBackend], object], secret: str | None
    ) -> object:
        """:meth:`_call` for the event loop: one daemon thread of the store executor
        runs the keyring call and the loop itself waits out the timeout."""
        from bottui.store.executor import shared_executor

        self._check_not_stuck()
        work, outcome, done = self._work(operation, secret)
        if getattr(self._backend, "answers_at_once", False):
            work()
        else:
            try:
                await shared_executor().call(work, lane=self._lane, timeout=self._timeout)
            except TimeoutError:
                with self._lock:
                    self._stuck = done
                raise self._timed_out() from None
        return self._result(outcome)


def _getter(username: str) -> Callable[[KeyringBackend], object]:
    return lambda backend: backend.get_password(SERVICE, username)


def _setter(username: str, secret: str) -> Callable[[KeyringBackend], object]:
    return lambda backend: backend.set_password(SERVICE, username, secret)


def _deleter(username: str) -> Callable[[KeyringBackend], object]:
    def delete(backend: KeyringBackend) -> bool:
        if backend.get_password(SERVICE, username) is None:
            return False
        backend.delete_password(SERVICE, username)
        return True

    return delete


def _token(value: object, kind: type[S]) -> S | None:
    """The token a keyring answer holds (a blank entry is none)."""
    if not isinstance(value, str):
        return None
    try:
        return kind(value)
    except ValueError:
        return None


# Which keyring backend is in use, and does it answer? (``bottui doctor``)
#
# The probe is one read of a name bottui never stores under, through
# :class:`~bottui.store.keyring_tokens.TokenStore` and so with its timeout: a keyring
# that hangs (a Secret Service being activated, an unlock prompt nobody sees)
# becomes an answer in seconds, and a daemon thread that never returns holds
# nothing up. No token is read or written.


#: Not a JSON array naming a kind, as every username bottui stores under is.
PROBE_USERNAME: Final = "bottui-doctor-probe"

#: How long naming the backend may take once the probe is over (it is loaded by then).
_NAME_TIMEOUT: Final = 0.5


class KeyringReport(msgspec.Struct, frozen=True):
    """The backend's name (``None``: it could not be named) and why it failed, if it did."""

    backend: str | None
    failure: KeyringUnavailable | None = None


async def probe_keyring(tokens: TokenStore) -> KeyringReport:
    """Read one unused name from the keyring; name the backend that answered or failed."""
    failure: KeyringUnavailable | None = None
    try:
        await tokens.store_password_async(PROBE_USERNAME)
    except KeyringUnavailable as exc:
        failure = exc
    return KeyringReport(_backend_name(), failure)


def _backend_name() -> str | None:
    """keyring's backend, named in a daemon thread: its first load can hang as a call can."""
    found: list[str] = []

    def name() -> None:
        import keyring

        backend = keyring.get_keyring()
        text = f"{type(backend).__module__}.{type(backend).__qualname__}"
        chained = getattr(backend, "backends", None)
        if isinstance(chained, list | tuple) and chained:
            inner = ", ".join(f"{type(b).__module__}.{type(b).__qualname__}" for b in chained)
            text += f" ({inner})"
        found.append(clean(text))

    worker = threading.Thread(target=name, name="bottui-keyring-name", daemon=True)
    worker.start()
    worker.join(_NAME_TIMEOUT)
    return found[0] if found else None


# An in-memory keyring for ``bottui demo``: nothing reaches the user's real keyring.
#
# Duck-typed like a ``keyring`` backend (``get_password``, ``set_password``,
# ``delete_password``, ``priority``) so the demo need not import keyring at all.


class MemoryKeyring:
    """A keyring that forgets everything when the process ends."""

    priority = 1.0
    #: Never blocks, so :class:`~bottui.store.keyring_tokens.TokenStore` calls it in the
    #: caller's thread instead of a watched worker thread.
    answers_at_once = True

    def __init__(self) -> None:
        self._items: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MemoryKeyring({len(self._items)} items)"

    def get_password(self, service: str, username: str) -> str | None:
        """The stored secret, or None."""
        with self._lock:
            return self._items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        """Store a secret."""
        with self._lock:
            self._items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        """Forget a secret (KeyError-free: deleting nothing is fine here)."""
        with self._lock:
            self._items.pop((service, username), None)


__all__ = [
    "DEFAULT_TIMEOUT",
    "ENV_ACCESS_TOKEN",
    "ENV_API_KEY",
    "PROBE_USERNAME",
    "REMEDIES",
    "KeyringReport",
    "TokenState",
    "TokenStore",
    "probe_keyring",
]
