"""Which keyring backend is in use, and does it answer? (``bottui doctor``)

The probe is one read of a name bottui never stores under, through
:class:`~bottui.store.tokens.TokenStore` and so with its timeout: a keyring
that hangs (a Secret Service being activated, an unlock prompt nobody sees)
becomes an answer in seconds, and a daemon thread that never returns holds
nothing up. No token is read or written.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Final

from bottui.plaintext import clean
from bottui.store.errors import KeyringUnavailable
from bottui.store.tokens import TokenStore

#: Not a JSON array naming a kind, as every username bottui stores under is.
PROBE_USERNAME: Final = "bottui-doctor-probe"
#: How long naming the backend may take once the probe is over (it is loaded by then).
_NAME_TIMEOUT: Final = 0.5


@dataclass(frozen=True)
class KeyringReport:
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


__all__ = ["PROBE_USERNAME", "KeyringReport", "probe_keyring"]
