"""Paged reads of any store: the opaque :class:`Cursor` and a :class:`Page` of items.

A store returns at most ``limit`` items and, when more follow, the cursor of
the next page. The cursor is made by the store and handed back unchanged;
callers never look inside (a server's store may put anything there).
"""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec

T = TypeVar("T")


class Cursor(msgspec.Struct, frozen=True):
    """Where the next page starts: made by the store, handed back unchanged.

    Stable while items are added: a page after a cursor never repeats nor
    skips an item because others arrived meanwhile.
    """

    token: str


class Page(msgspec.Struct, Generic[T], frozen=True):
    """Up to ``limit`` items in the store's order, and the next page's cursor (or None)."""

    items: tuple[T, ...]
    next: Cursor | None
