"""A failed or unknown attempt in a result panel: the same words on every screen.

The Grants, Rate limiters and Thresholds result panels show the latest
attempt of the current project; when it did not succeed they say so here:
"FAILED" (nothing was changed) or "UNKNOWN" (the request may have arrived),
the server's error, which token to fix when one was refused, and where the
whole error is (the error log, ``e``). Words first, colour second: the
headline reads the same without colour.
"""

from __future__ import annotations

from typing import Final

from textual.content import Content

from bottui.api.errors import without_unknown_note
from bottui.plaintext import clean
from bottui.tui.error_log import Failure
from bottui.tui.widgets.safe import join, safe

#: The headline's CSS class (see ``bottui.tcss``).
FAILED_CLASS: Final = "result-failed"
UNKNOWN_CLASS: Final = "result-unknown"
LOG_HINT: Final = "e: the error log, with the whole error"
#: Under an unknown outcome's details: what to do before trying again.
UNKNOWN_CHECK: Final = "Check whether it was applied before repeating it."


def failure_headline(failure: Failure) -> tuple[Content, str]:
    """The headline and its CSS class."""
    if failure.unknown:
        return join("UNKNOWN: may have been applied · ", safe(failure.title)), UNKNOWN_CLASS
    return join("FAILED: ", safe(failure.title)), FAILED_CLASS


def failure_lines(failure: Failure) -> list[Content]:
    """The server's error, the token hint and where to find the rest."""
    lines: list[Content] = []
    # The headline says "may have been applied": the details do not say it again.
    details = without_unknown_note(failure.details) if failure.unknown else failure.details
    if details:
        lines.append(safe(details, keep_newlines=True))
    if failure.unknown:
        lines.append(Content(UNKNOWN_CHECK))
    if failure.hint:
        lines.append(Content.styled(clean(failure.hint), "bold"))
    lines.append(Content.styled(LOG_HINT, "italic"))
    return lines
