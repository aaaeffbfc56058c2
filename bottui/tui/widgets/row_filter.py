"""Which rows of a table match the text typed after ``/``.

A row matches when its *visible* text (its cells' plain text, joined)
contains the typed text, ignoring case: what the operator reads is what
narrows, nothing hidden. The tables hold thousands of rows (5,000 projects,
4,000 limiters), so each row's text is folded once and kept while the row's
view is the same, and a text that only grew (``shop`` after ``sho``) is
looked for among the last matches alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from rich.text import Text

#: A row as the filter sees it: its key and what it stands for.
R = TypeVar("R")


def fold(text: str) -> str:
    """The form texts are compared in (case ignored, surrounding blanks dropped)."""
    return text.strip().casefold()


def row_text(cells: Sequence[Text]) -> str:
    """A row's visible text, folded: its cells' plain text, a tab between two."""
    return "\t".join(cell.plain for cell in cells).casefold()


class RowFilter(Generic[R]):
    """The typed text, and the rows it kept the last time (to narrow from)."""

    def __init__(self) -> None:
        #: The folded text; "" shows every row.
        self.text = ""
        # (text, source marker, the rows it kept), to narrow from when the text grows.
        self._last: tuple[str, int, list[R]] | None = None
        # Bumped whenever the rows to filter change (read again, updated in place).
        self._source = 0

    @property
    def active(self) -> bool:
        """Whether some text is typed (some rows may be hidden)."""
        return bool(self.text)

    def set(self, text: str) -> None:
        """Take a new typed text."""
        self.text = fold(text)

    def source_changed(self) -> None:
        """The rows or their texts changed: the last matches are no longer a base."""
        self._source += 1
        self._last = None

    def apply(self, rows: Sequence[R], text_of: Callable[[R], str]) -> list[R]:
        """The rows whose text contains the typed text, in their order."""
        wanted = self.text
        if not wanted:
            self._last = None
            return list(rows)
        base: Sequence[R] = rows
        last = self._last
        if last is not None and last[1] == self._source and last[0] in wanted:
            base = last[2]  # every row matching the longer text matched the shorter one
        kept = [row for row in base if wanted in text_of(row)]
        self._last = (wanted, self._source, kept)
        return kept
