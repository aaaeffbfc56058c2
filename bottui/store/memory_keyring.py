"""An in-memory keyring for ``bottui demo``: nothing reaches the user's real keyring.

Duck-typed like a ``keyring`` backend (``get_password``, ``set_password``,
``delete_password``, ``priority``) so the demo need not import keyring at all.
"""

from __future__ import annotations

import threading


class MemoryKeyring:
    """A keyring that forgets everything when the process ends."""

    priority = 1.0
    #: Never blocks, so :class:`~bottui.store.tokens.TokenStore` calls it in the
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
