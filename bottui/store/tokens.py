"""The one place that reads and writes tokens: the environment, then the OS keyring.

Personal access tokens are kept per (base URL, account), project API tokens
per (base URL, account, project), in the keyring under the service
``"bottui"``. The keyring username is a JSON array, so hostile ids (quotes,
slashes, colons, brackets) cannot make two keys collide.

``BOTTUI_ACCESS_TOKEN`` and ``BOTTUI_API_KEY`` in the environment win over the
keyring (an empty value counts as unset).

Every keyring call runs in a *daemon* thread and is waited for with a
timeout: a Secret Service that never answers (a D-Bus activation was seen to
hang for 120 s) turns into :class:`KeyringUnavailable` within seconds, and the
stuck thread cannot hold up interpreter exit. ``keyring`` itself is imported
lazily, on the first call that needs it, because importing it is slow.
"""

from __future__ import annotations

import enum
import json
import os
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final, TypeVar
from urllib.parse import urlsplit, urlunsplit

from bottui.api.tokens import TOKEN_ENV, AccessToken, ProjectToken, Secret
from bottui.plaintext import clean
from bottui.store.errors import KeyringUnavailable

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

SERVICE: Final = "bottui"
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

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_MAX_REASON: Final = 300

S = TypeVar("S", bound=Secret)


def normalize_base_url(base_url: str) -> str:
    """Canonical form of a base URL, so ``https://X/`` and ``https://x`` share tokens.

    Lower-cases the scheme and host, drops the scheme's default port and any
    trailing ``/``. The path keeps its case. Never raises: a string that is
    not a URL comes back stripped of surrounding blanks and trailing slashes.
    """
    text = base_url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text.rstrip("/")
    if not parts.scheme or not parts.netloc:
        return text.rstrip("/")
    scheme = parts.scheme.lower()
    userinfo, at, hostport = parts.netloc.rpartition("@")
    hostport = hostport.lower()
    if port is not None and _DEFAULT_PORTS.get(scheme) == port:
        hostport = hostport[: hostport.rindex(":")]
    netloc = f"{userinfo}{at}{hostport}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, parts.fragment))


def personal_username(base_url: str, account: str) -> str:
    """The keyring username of the personal access token of ``account``."""
    return json.dumps(["personal", normalize_base_url(base_url), account])


def project_username(base_url: str, account: str, project: str) -> str:
    """The keyring username of the project API token of ``account``/``project``."""
    return json.dumps(["project", normalize_base_url(base_url), account, project])


class TokenState(enum.Enum):
    """Where the token of one slot comes from; never the token itself."""

    STORED = "stored"
    MISSING = "missing"
    ENVIRONMENT = "from environment"

    @property
    def label(self) -> str:
        """Human label: ``"stored"``, ``"missing"`` or ``"from environment"``."""
        return self.value

    def __str__(self) -> str:
        return self.value


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
        text = str(exc)
    except Exception:
        text = ""
    if secret:
        text = text.replace(secret, "***")
    text = clean(" ".join(text.split()))
    if len(text) > _MAX_REASON:
        text = text[: _MAX_REASON - 1] + "…"
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

    Thread-safe; meant to be called from worker threads, never from an
    event loop. Raises :class:`KeyringUnavailable` whenever the keyring is
    needed but absent, locked, failing or too slow. After a call has timed
    out, calls fail fast for as long as the stuck call has not returned.
    """

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        backend: KeyringBackend | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self._environ: Mapping[str, str] = os.environ if environ is None else environ
        self._timeout = float(timeout)
        self._backend = backend
        self._lock = threading.Lock()
        self._stuck: threading.Thread | None = None
        # The last backend found usable: its (possibly D-Bus) priority is not asked again.
        self._usable: KeyringBackend | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(timeout={self._timeout:g})"

    # -- personal access tokens -------------------------------------------------

    def personal(self, base_url: str, account: str) -> AccessToken | None:
        """The personal access token for ``account``: environment, else keyring."""
        from_env = self._from_env(ENV_ACCESS_TOKEN, AccessToken)
        if from_env is not None:
            return from_env
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
        if self._from_env(ENV_ACCESS_TOKEN, AccessToken) is not None:
            return TokenState.ENVIRONMENT
        return self._state(personal_username(base_url, account), AccessToken)

    # -- project API tokens -------------------------------------------------------

    def project(self, base_url: str, account: str, project: str) -> ProjectToken | None:
        """The project API token for ``account``/``project``: environment, else keyring."""
        from_env = self._from_env(ENV_API_KEY, ProjectToken)
        if from_env is not None:
            return from_env
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
        if self._from_env(ENV_API_KEY, ProjectToken) is not None:
            return TokenState.ENVIRONMENT
        return self._state(project_username(base_url, account, project), ProjectToken)

    # -- internals ----------------------------------------------------------------

    def _from_env(self, name: str, kind: type[S]) -> S | None:
        value = self._environ.get(name)
        if not value:
            return None
        try:
            return kind(value)
        except (TypeError, ValueError):  # blank: counts as unset
            return None

    def _read(self, username: str, kind: type[S]) -> S | None:
        value = self._call(lambda backend: backend.get_password(SERVICE, username), None)
        if not isinstance(value, str):
            return None
        try:
            return kind(value)
        except ValueError:  # a blank entry is no token
            return None

    def _state(self, username: str, kind: type[S]) -> TokenState:
        found = self._read(username, kind)
        return TokenState.MISSING if found is None else TokenState.STORED

    def _write(self, username: str, secret: str) -> None:
        self._call(lambda backend: backend.set_password(SERVICE, username, secret), secret)

    def _delete(self, username: str) -> bool:
        def delete(backend: KeyringBackend) -> bool:
            if backend.get_password(SERVICE, username) is None:
                return False
            backend.delete_password(SERVICE, username)
            return True

        return bool(self._call(delete, None))

    def _timed_out(self) -> KeyringUnavailable:
        return _unavailable(
            f"The keyring did not answer within {self._timeout:g} s",
            "A keyring call is still waiting (a Secret Service that is being activated,"
            " or waiting for an unlock prompt).",
        )

    def _call(self, operation: Callable[[KeyringBackend], object], secret: str | None) -> object:
        """Run ``operation`` on the keyring backend in a daemon thread, with a timeout.

        ``secret`` is scrubbed from any backend error text. The backend's
        exception object never leaves the worker thread, so nothing raised
        here chains to it (its frames hold the secret).
        """
        with self._lock:
            if self._stuck is not None:
                if self._stuck.is_alive():
                    raise self._timed_out()
                self._stuck = None
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

        if getattr(self._backend, "answers_at_once", False):
            # An in-process keyring (the demo's) cannot hang: no thread to wait on.
            work()
        else:
            worker = threading.Thread(target=work, name="bottui-keyring", daemon=True)
            worker.start()
            if not done.wait(self._timeout):
                with self._lock:
                    self._stuck = worker
                raise self._timed_out()
        if outcome.failure is not None:
            title, reason = outcome.failure
            raise _unavailable(title, reason)
        return outcome.value


__all__ = [
    "DEFAULT_TIMEOUT",
    "ENV_ACCESS_TOKEN",
    "ENV_API_KEY",
    "REMEDIES",
    "SERVICE",
    "KeyringUnavailable",
    "TokenState",
    "TokenStore",
    "normalize_base_url",
    "personal_username",
    "project_username",
]
