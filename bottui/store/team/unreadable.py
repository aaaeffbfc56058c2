"""Rows of the team store bottui cannot read: skipped, each said once, naming it.

Every operator with INSERT on the shared store (or a buggy older client) can
write a row bottui did not write: a ``target`` that is not JSON, a time
Python cannot hold, a timed change's detail that is not one. A reader skips
such a row and goes on; :class:`Skips` (one per
:class:`~bottui.store.team.store.TeamStore`) hands each skipped row, once, to
whoever listens (the session's warnings, ``--follow``'s stderr, the TUI's
toasts), or keeps them until :meth:`Skips.take`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from bottui.plaintext import clean

#: At most this many skipped rows are remembered (said once each); beyond, they are said again.
_REMEMBER: Final = 10_000


@dataclass(frozen=True)
class Unreadable:
    """One row skipped: which table, its event id (or key), who claimed to write it, why."""

    table: str
    event: str
    operator: str
    why: str

    @property
    def line(self) -> str:
        """``skipped an unreadable row of the team store: journal_entries event X by bob: ...``."""
        return (
            f"skipped a team store row bottui cannot read: {clean(self.table)} event"
            f" {clean(self.event)} by {clean(self.operator)} ({clean(self.why)})"
        )


class Skips:
    """The rows a store's readers skipped: each handed over once."""

    def __init__(self) -> None:
        self._said: set[tuple[str, str]] = set()
        self._kept: list[Unreadable] = []
        #: Told each newly skipped row (None: they are kept for :meth:`take`).
        self.on_skip: Callable[[Unreadable], None] | None = None

    def add(self, row: Unreadable) -> None:
        """Record a skipped row (said once)."""
        key = (row.table, row.event)
        if key in self._said:
            return
        if len(self._said) >= _REMEMBER:
            self._said.clear()
        self._said.add(key)
        if self.on_skip is not None:
            self.on_skip(row)
        else:
            self._kept.append(row)

    def take(self) -> list[Unreadable]:
        """The rows skipped and not yet handed over, emptied."""
        out, self._kept = self._kept, []
        return out


__all__ = ["Skips", "Unreadable"]
